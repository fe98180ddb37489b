package hpctoolkit

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// This file writes small version 4 databases for the tests, following the
// layouts of FORMATS.md, so that the reader is tested on inputs whose every
// byte is known.

// wbuf is a growing file image with helpers to place aligned structures
// and patch pointers into them.
type wbuf struct{ b []byte }

func (w *wbuf) off() uint64 { return uint64(len(w.b)) }

func (w *wbuf) align(n int) {
	for len(w.b)%n != 0 {
		w.b = append(w.b, 0)
	}
}

func (w *wbuf) zeros(n int) uint64 {
	at := w.off()
	w.b = append(w.b, make([]byte, n)...)
	return at
}

func (w *wbuf) u8(v uint8) uint64 { at := w.off(); w.b = append(w.b, v); return at }
func (w *wbuf) u16(v uint16) uint64 {
	at := w.off()
	w.b = binary.LittleEndian.AppendUint16(w.b, v)
	return at
}
func (w *wbuf) u32(v uint32) uint64 {
	at := w.off()
	w.b = binary.LittleEndian.AppendUint32(w.b, v)
	return at
}
func (w *wbuf) u64(v uint64) uint64 {
	at := w.off()
	w.b = binary.LittleEndian.AppendUint64(w.b, v)
	return at
}

func (w *wbuf) str(s string) uint64 {
	at := w.off()
	w.b = append(append(w.b, s...), 0)
	return at
}

func (w *wbuf) put64(at, v uint64) { binary.LittleEndian.PutUint64(w.b[at:], v) }

// header writes the common header with n sections and returns the offset
// of the section table.
func (w *wbuf) header(format string, n int) uint64 {
	w.b = append(w.b, "HPCTOOLKIT"+format...)
	w.u8(4)
	w.u8(0)
	return w.zeros(16 * n)
}

// section records that section i (of the table at tab) spans [start, end).
func (w *wbuf) section(tab uint64, i int, start uint64) {
	w.put64(tab+uint64(16*i), w.off()-start)
	w.put64(tab+uint64(16*i)+8, start)
}

// synthCtx is a context of a synthetic tree.
type synthCtx struct {
	id       uint32
	lex      uint8 // lexFunction, lexLoop, lexLine, lexInstruction
	function int   // index into synthDB.functions, -1 for none
	line     uint32
	children []synthCtx
}

type synthLine struct {
	prof    uint32
	records [][2]uint64 // timestamp, context id
}

type synthDB struct {
	kinds     []string
	module    string
	functions []string // "" for an anonymous function (named from module and offset)
	entries   []struct {
		id       uint32
		name     string
		children []synthCtx
	}
	tuples   [][]ident // profile 0 is the summary profile, without tuple
	lines    []synthLine
	min, max uint64
}

func (s *synthDB) meta() []byte {
	w := &wbuf{}
	tab := w.header("meta", 8)
	w.align(8)
	// General Properties.
	start := w.off()
	p := w.zeros(16)
	w.put64(p, w.str("synthetic"))
	w.put64(p+8, w.str("a database written by the tests"))
	w.section(tab, 0, start)
	// Identifier Names.
	w.align(8)
	start = w.off()
	hdr := w.zeros(16)
	w.b[hdr+8] = uint8(len(s.kinds))
	w.align(8)
	arr := w.zeros(8 * len(s.kinds))
	w.put64(hdr, arr)
	for i, k := range s.kinds {
		w.put64(arr+uint64(8*i), w.str(k))
	}
	w.section(tab, 1, start)
	// Performance Metrics: none.
	w.align(8)
	start = w.zeros(0x20)
	w.section(tab, 2, start)
	// Common String Table.
	start = w.off()
	modPath := w.str(s.module)
	fileName := w.str("src/loop.c")
	names := make([]uint64, len(s.functions))
	for i, f := range s.functions {
		if f != "" {
			names[i] = w.str(f)
		}
	}
	w.section(tab, 4, start)
	// Load Modules: one.
	w.align(8)
	start = w.off()
	w.u64(w.off() + 16)
	w.u32(1)
	w.u16(16)
	w.u16(0)
	modules := w.off()
	w.u32(0)
	w.u32(0)
	w.u64(modPath)
	w.section(tab, 5, start)
	// Source Files: one.
	start = w.off()
	w.u64(w.off() + 16)
	w.u32(1)
	w.u16(16)
	w.u16(0)
	files := w.off()
	w.u32(0)
	w.u32(0)
	w.u64(fileName)
	w.section(tab, 6, start)
	// Functions.
	start = w.off()
	w.u64(w.off() + 16)
	w.u32(uint32(len(s.functions)))
	w.u16(0x28)
	w.u16(0)
	funcs := w.off()
	for i := range s.functions {
		w.u64(names[i])
		w.u64(modules)
		w.u64(0x1000 + uint64(i)*0x10)
		w.u64(0)
		w.u32(0)
		w.u32(0)
	}
	w.section(tab, 7, start)
	// Context Tree.
	start = w.off()
	ctxHdr := w.zeros(16)
	w.put64(ctxHdr, w.off())
	binary.LittleEndian.PutUint16(w.b[ctxHdr+8:], uint16(len(s.entries)))
	w.b[ctxHdr+10] = 0x20
	type todo struct {
		patch    uint64
		children []synthCtx
	}
	var queue []todo
	for _, e := range s.entries {
		at := w.zeros(0x20)
		binary.LittleEndian.PutUint32(w.b[at+0x10:], e.id)
		binary.LittleEndian.PutUint16(w.b[at+0x14:], 1)
		queue = append(queue, todo{at, e.children})
	}
	for len(queue) > 0 {
		q := queue[0]
		queue = queue[1:]
		if len(q.children) == 0 {
			continue
		}
		arrStart := w.off()
		for _, c := range q.children {
			at := w.zeros(0x20)
			binary.LittleEndian.PutUint32(w.b[at+0x10:], c.id)
			w.b[at+0x16] = c.lex
			var flex []uint64
			switch {
			case c.lex == lexFunction && c.function >= 0:
				w.b[at+0x14] = 1
				flex = []uint64{funcs + uint64(c.function)*0x28}
			case c.lex == lexLoop:
				w.b[at+0x14] = 2
				flex = []uint64{files, uint64(c.line)}
			}
			w.b[at+0x17] = uint8(len(flex))
			for _, f := range flex {
				w.u64(f)
			}
			queue = append(queue, todo{at, c.children})
		}
		w.put64(q.patch, w.off()-arrStart)
		w.put64(q.patch+8, arrStart)
	}
	w.section(tab, 3, start)
	// Entry point names live in the string table in hpcprof's files; here
	// they follow the tree, which the format allows for any string.
	for i, e := range s.entries {
		at := binary.LittleEndian.Uint64(w.b[ctxHdr:]) + uint64(0x20*i)
		w.put64(at+0x18, w.str(e.name))
	}
	w.b = append(w.b, "_meta.db"...)
	return w.b
}

func (s *synthDB) profile() []byte {
	w := &wbuf{}
	tab := w.header("prof", 2)
	w.align(8)
	start := w.off()
	tupleAt := make([]uint64, len(s.tuples))
	for i, t := range s.tuples {
		if t == nil {
			continue
		}
		w.align(8)
		tupleAt[i] = w.u16(uint16(len(t)))
		w.zeros(6)
		for _, id := range t {
			w.u8(id.kind)
			w.u8(0)
			flags := uint16(0)
			if id.physical {
				flags = 1
			}
			w.u16(flags)
			w.u32(id.logical)
			w.u64(id.value())
		}
	}
	w.section(tab, 1, start)
	w.align(8)
	start = w.off()
	w.u64(w.off() + 16)
	w.u32(uint32(len(s.tuples)))
	w.u8(0x30)
	w.zeros(3)
	for i := range s.tuples {
		w.zeros(0x20)
		w.u64(tupleAt[i])
		flags := uint32(0)
		if i == 0 {
			flags = 1
		}
		w.u32(flags)
		w.u32(0)
	}
	w.section(tab, 0, start)
	w.b = append(w.b, "_prof.db"...)
	return w.b
}

func (s *synthDB) trace() []byte {
	w := &wbuf{}
	tab := w.header("trce", 1)
	w.align(8)
	start := w.off()
	w.u64(w.off() + 0x20)
	w.u32(uint32(len(s.lines)))
	w.u8(0x18)
	w.zeros(3)
	w.u64(s.min)
	w.u64(s.max)
	hdrs := w.zeros(0x18 * len(s.lines))
	w.section(tab, 0, start)
	for i, l := range s.lines {
		at := hdrs + uint64(0x18*i)
		binary.LittleEndian.PutUint32(w.b[at:], l.prof)
		w.put64(at+8, w.off())
		for _, r := range l.records {
			w.u64(r[0])
			w.u32(uint32(r[1]))
		}
		w.put64(at+0x10, w.off())
	}
	w.b = append(w.b, "trace.db"...)
	return w.b
}

// write writes the database into a new directory and returns it.
func (s *synthDB) write(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range map[string][]byte{"meta.db": s.meta(), "profile.db": s.profile(), "trace.db": s.trace()} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// sample builds the database of the synthetic tests: a main thread whose
// main calls foo (through a line) and bar, and baz inside a loop; one rank
// with two threads, the second without samples.
func sample() *synthDB {
	s := &synthDB{
		kinds:     []string{"SUMMARY", "NODE", "RANK", "THREAD"},
		module:    "/usr/lib/libsynth.so",
		functions: []string{"main", "foo", "bar", "baz", ""},
		tuples: [][]ident{
			nil,
			{{kind: 1, physical: true, logical: 0, phys: 0xabc}, {kind: 2, logical: 0}, {kind: 3, logical: 0}},
			{{kind: 1, physical: true, logical: 0, phys: 0xabc}, {kind: 2, logical: 0}, {kind: 3, logical: 1}},
		},
		min: 100, max: 1000,
	}
	s.entries = append(s.entries, struct {
		id       uint32
		name     string
		children []synthCtx
	}{1, "main thread", []synthCtx{
		{id: 2, lex: lexFunction, function: 0, children: []synthCtx{
			{id: 3, lex: lexLine, function: -1, children: []synthCtx{
				{id: 4, lex: lexFunction, function: 1, children: []synthCtx{
					{id: 5, lex: lexInstruction, function: -1},
				}},
			}},
			{id: 6, lex: lexLine, function: -1, children: []synthCtx{
				{id: 7, lex: lexFunction, function: 2},
				{id: 10, lex: lexFunction, function: 4},
			}},
			{id: 8, lex: lexLoop, function: -1, line: 12, children: []synthCtx{
				{id: 9, lex: lexFunction, function: 3},
			}},
		}},
	}})
	s.lines = []synthLine{
		{prof: 2}, // listed first: the reader orders lines by tuple
		{prof: 1, records: [][2]uint64{{100, 5}, {200, 4}, {300, 7}, {400, 0}, {500, 9}, {600, 3}, {700, 10}, {800, 3}}},
	}
	return s
}
