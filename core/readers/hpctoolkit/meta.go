package hpctoolkit

import (
	"bytes"
	"fmt"
	"path"

	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// meta is what the reader takes from meta.db: the names of the identifier
// kinds and the context tree, reduced to frames.
type meta struct {
	title string
	kinds []string // identifier kind names ("NODE", "RANK"...), by kind
	fr    frames
	// frameOf maps a context identifier to its frame: the context itself
	// if it is a frame, else its nearest enclosing frame.
	frameOf map[uint32]int32
	text    *ingest.ValidText // the names made valid UTF-8 (the blob's count)
}

// Context lexical types (meta.db Context Tree section).
const (
	lexFunction    = 0
	lexLoop        = 1
	lexLine        = 2
	lexInstruction = 3
)

// Sizes of the version 4.0 structures, the least a stride may be.
const (
	szFunction4   = 0x28
	szModule4     = 0x10
	szFile4       = 0x10
	szEntryPoint4 = 0x20
	szCtx4        = 0x20
	szCtxEarly    = 0x18 // contexts of the first releases (see decodeMeta)
)

// pendingArray is an array of child contexts still to decode.
type pendingArray struct {
	ptr, size uint64
	frame     int32 // frame enclosing the contexts of the array
}

// table is an array of fixed-stride structures: a pointer into it is
// turned into an index, and checked.
type table struct {
	ptr, n, stride uint64
	what           string
}

func (t table) index(b *blob, p uint64, from uint64) (int, bool) {
	if p < t.ptr || t.stride == 0 || (p-t.ptr)%t.stride != 0 || (p-t.ptr)/t.stride >= t.n {
		b.fail(from, "pointer %d does not point to an element of the %s", p, t.what)
		return 0, false
	}
	return int((p - t.ptr) / t.stride), true
}

// decodeMeta decodes meta.db, held whole in b. loops tells whether loop
// contexts become frames.
func decodeMeta(b *blob, loops bool) (*meta, error) {
	if err := checkFooter(bytes.NewReader(b.data), int64(len(b.data)), b.file, "_meta.db"); err != nil {
		return nil, err
	}
	h := readHeader(b, uint64(len(b.data)), "meta", 8)
	if b.err != nil {
		return nil, b.err
	}
	general, idNames, ctxSec := h.sections[0], h.sections[1], h.sections[3]
	modSec, fileSec, funSec := h.sections[5], h.sections[6], h.sections[7]
	m := &meta{frameOf: map[uint32]int32{}, text: &b.text}

	if general.size >= 8 {
		if p := b.u64(general.ptr, "the database title pointer"); p != 0 {
			m.title = b.str(p, "the database title")
		}
	}

	if idNames.size >= 9 {
		pp := b.u64(idNames.ptr, "the identifier names pointer")
		n := uint64(b.u8(idNames.ptr+8, "the number of identifier kinds"))
		if b.array(pp, n, 8, 8, "the identifier names") {
			for i := range n {
				m.kinds = append(m.kinds, b.str(b.u64(pp+8*i, "an identifier name pointer"), "an identifier name"))
			}
		}
	}

	modules := readTable(b, modSec, szModule4, "load modules")
	files := readTable(b, fileSec, szFile4, "source files")
	functions := readTable(b, funSec, szFunction4, "functions")
	if b.err != nil {
		return nil, b.err
	}
	modPath := func(i int) string {
		return b.str(b.u64(modules.ptr+uint64(i)*modules.stride+8, "a load module path pointer"), "a load module path")
	}
	filePath := func(i int) string {
		return b.str(b.u64(files.ptr+uint64(i)*files.stride+8, "a source file path pointer"), "a source file path")
	}
	// Function names, decoded once each.
	funcNames := make([]string, functions.n)
	for i := range functions.n {
		at := functions.ptr + i*functions.stride
		pName := b.u64(at, "a function name pointer")
		pModule := b.u64(at+8, "a function module pointer")
		offset := b.u64(at+0x10, "a function offset")
		if pName != 0 {
			funcNames[i] = b.str(pName, "a function name")
			continue
		}
		// An anonymous function: named as hpcprof names unknown procedures.
		name := fmt.Sprintf("<unknown procedure> 0x%x", offset)
		if pModule != 0 {
			if j, ok := modules.index(b, pModule, at+8); ok {
				name += " [" + path.Base(modPath(j)) + "]"
			}
		}
		funcNames[i] = name
	}
	if b.err != nil {
		return nil, b.err
	}

	if ctxSec.size < 0x0b {
		return m, nil
	}
	pEntries := b.u64(ctxSec.ptr, "the entry points pointer")
	nEntries := uint64(b.u16(ctxSec.ptr+8, "the number of entry points"))
	szEntry := uint64(b.u8(ctxSec.ptr+0x0a, "the entry point size"))
	// Databases of the first hpcprof releases of version 4.0 have no
	// entry points: the section starts with the size and the address of
	// the array of root contexts, whose header is 0x18 bytes (no
	// propagation field). Their entry point size, which is then a byte of
	// the roots' address, is below the 0x20 bytes of an entry point.
	ctxHdr := uint64(szCtx4)
	var roots *pendingArray
	if b.err == nil && szEntry < szEntryPoint4 {
		ctxHdr = szCtxEarly
		roots = &pendingArray{size: b.u64(ctxSec.ptr, "the root contexts size"), ptr: b.u64(ctxSec.ptr+8, "the root contexts pointer"), frame: trace.None}
		nEntries = 0
	} else if !b.array(pEntries, nEntries, szEntry, szEntryPoint4, "the entry points") {
		return nil, b.err
	}

	// The tree is walked with an explicit stack of child arrays still to
	// read; every context is visited once, so a corrupt file whose child
	// pointers loop is caught by the duplicate identifier (or by the bound
	// on the number of contexts the section can hold).
	var stack []pendingArray
	if roots != nil {
		stack = append(stack, *roots)
	}
	maxCtx := ctxSec.size/szCtxEarly + nEntries + 1
	visited := uint64(0)
	seen := func(id uint32, at uint64) bool {
		if _, dup := m.frameOf[id]; dup || id == 0 {
			b.fail(at, "context identifier %d appears twice (or is 0): the context tree is corrupt", id)
			return false
		}
		if visited++; visited > maxCtx {
			b.fail(at, "more contexts than the context tree section can hold: the tree is corrupt")
			return false
		}
		return true
	}
	for i := range nEntries {
		at := pEntries + i*szEntry
		szChildren := b.u64(at, "an entry point's children size")
		pChildren := b.u64(at+8, "an entry point's children pointer")
		id := b.u32(at+0x10, "an entry point's context identifier")
		kind := b.u16(at+0x14, "an entry point's type")
		name := ""
		if p := b.u64(at+0x18, "an entry point's name pointer"); p != 0 {
			name = b.str(p, "an entry point's name")
		}
		if name == "" {
			name = [...]string{"unknown entry", "main thread", "application thread"}[min(kind, 2)]
			if kind > 2 {
				name = fmt.Sprintf("entry point %d", kind)
			}
		}
		if b.err != nil || !seen(id, at) {
			return nil, b.err
		}
		f := m.fr.add(name, trace.None)
		m.frameOf[id] = f
		stack = append(stack, pendingArray{pChildren, szChildren, f})
	}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if p.size == 0 {
			continue
		}
		if !b.has(p.ptr, p.size, "an array of child contexts") {
			return nil, b.err
		}
		for at, end := p.ptr, p.ptr+p.size; at < end; {
			if end-at < ctxHdr {
				b.fail(at, "a context overruns its array of child contexts")
				return nil, b.err
			}
			szChildren := b.u64(at, "a context's children size")
			pChildren := b.u64(at+8, "a context's children pointer")
			id := b.u32(at+0x10, "a context identifier")
			flags := b.u8(at+0x14, "a context's flags")
			lexType := b.u8(at+0x16, "a context's lexical type")
			nFlex := uint64(b.u8(at+0x17, "a context's flex size"))
			size := ctxHdr + 8*nFlex
			if end-at < size {
				b.fail(at, "a context overruns its array of child contexts")
				return nil, b.err
			}
			fx := flex{b: b, at: at + ctxHdr, n: nFlex}
			var pFunction, pFile, pModule uint64
			var line uint32
			if flags&1 != 0 {
				pFunction = fx.u64()
			}
			if flags&2 != 0 {
				pFile = fx.u64()
				line = fx.u32()
			}
			if flags&4 != 0 {
				pModule = fx.u64()
				fx.u64() // offset in the module
			}
			_ = pModule
			if b.err != nil || !seen(id, at) {
				return nil, b.err
			}
			frame := p.frame
			switch lexType {
			case lexFunction:
				name := "<unknown procedure>"
				if pFunction != 0 {
					if j, ok := functions.index(b, pFunction, at+ctxHdr); ok {
						name = funcNames[j]
					}
				}
				frame = m.fr.add(name, p.frame)
			case lexLoop:
				if loops {
					name := "loop"
					if pFile != 0 {
						if j, ok := files.index(b, pFile, at+ctxHdr); ok {
							name = fmt.Sprintf("loop at %s: %d", path.Base(filePath(j)), line)
						}
					}
					frame = m.fr.add(name, p.frame)
				}
			}
			// Lines, instructions and lexical types of later versions
			// are not frames: they belong to the enclosing one.
			if b.err != nil {
				return nil, b.err
			}
			m.frameOf[id] = frame
			stack = append(stack, pendingArray{pChildren, szChildren, frame})
			at += size
		}
	}
	return m, b.err
}

// readTable reads the header of a Load Modules, Source Files or Functions
// section: a pointer to an array, its length (u32) and its stride (u16).
func readTable(b *blob, s section, minSize uint64, what string) table {
	if s.size < 0x0e {
		return table{what: what}
	}
	t := table{
		ptr:    b.u64(s.ptr, "the "+what+" pointer"),
		n:      uint64(b.u32(s.ptr+8, "the number of "+what)),
		stride: uint64(b.u16(s.ptr+0x0c, "the size of "+what)),
		what:   what,
	}
	b.array(t.ptr, t.n, t.stride, minSize, "the "+what)
	return t
}

// flex reads the sub-fields of a context's flex region in their packing
// order: a u64 takes the next whole word, a u32 the next free half word.
type flex struct {
	b       *blob
	at      uint64 // offset of the region
	n, next uint64 // words in the region, next whole word
	half    uint64 // offset of a free half word, 0 if none
}

func (f *flex) u64() uint64 {
	if f.next >= f.n {
		f.b.fail(f.at, "a context's flex region is too small for its fields")
		return 0
	}
	v := f.b.u64(f.at+8*f.next, "a context's flex field")
	f.next++
	return v
}

func (f *flex) u32() uint32 {
	if f.half != 0 {
		v := f.b.u32(f.half, "a context's flex field")
		f.half = 0
		return v
	}
	if f.next >= f.n {
		f.b.fail(f.at, "a context's flex region is too small for its fields")
		return 0
	}
	off := f.at + 8*f.next
	f.next++
	f.half = off + 4
	return f.b.u32(off, "a context's flex field")
}
