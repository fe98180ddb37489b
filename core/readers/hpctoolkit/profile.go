package hpctoolkit

import (
	"io"
	"os"

	"github.com/macroscope-hpc/macroscope/core/ingest"
)

// ident is one identification of a hierarchical identifier tuple: a kind
// (index into meta.kinds) and a value.
type ident struct {
	kind     uint8
	physical bool
	logical  uint32
	phys     uint64
}

// value is the identifier's number: the physical one for physical kinds
// (a node's host id), the logical one otherwise.
func (id ident) value() uint64 {
	if id.physical {
		return id.phys
	}
	return uint64(id.logical)
}

// profile is what the reader takes from a profile.db Profile Info: the
// identifier tuple of the thread or stream it measured.
type profile struct {
	summary bool
	tuple   []ident
}

const (
	// A Profile Info is 0x30 bytes; the first releases wrote 0x28, without
	// the flags.
	szProfileInfo4 = 0x28
	szIdent        = 0x10
)

// decodeProfiles decodes the Profile Info and Identifier Tuple sections of
// profile.db. Only those two sections are read: the metric values, by far
// the largest part of the file, are not needed for traces.
func decodeProfiles(r io.ReaderAt, size int64, file string) ([]profile, error) {
	if err := checkFooter(r, size, file, "_prof.db"); err != nil {
		return nil, err
	}
	b, err := readBlob(r, size, file, 0, min(uint64(size), 0x30))
	if err != nil {
		return nil, err
	}
	h := readHeader(b, uint64(size), "prof", 2)
	if b.err != nil {
		return nil, b.err
	}
	infos, tuples := h.sections[0], h.sections[1]
	ib, err := readBlob(r, size, file, infos.ptr, infos.size)
	if err != nil {
		return nil, err
	}
	tb, err := readBlob(r, size, file, tuples.ptr, tuples.size)
	if err != nil {
		return nil, err
	}
	if infos.size < 0x0d {
		return nil, ib.failed(infos.ptr, "the Profile Info section is too small (%d bytes)", infos.size)
	}
	pp := ib.u64(infos.ptr, "the profiles pointer")
	n := uint64(ib.u32(infos.ptr+8, "the number of profiles"))
	stride := uint64(ib.u8(infos.ptr+0x0c, "the profile info size"))
	if !ib.array(pp, n, stride, szProfileInfo4, "the profile infos") {
		return nil, ib.err
	}
	out := make([]profile, n)
	// Profiles may share a tuple (one pointer): it is decoded once, and
	// shared, so that a million profiles pointing at one tuple of
	// thousands of identifiers do not make a billion.
	decoded := map[uint64][]ident{}
	for i := range n {
		at := pp + i*stride
		pTuple := ib.u64(at+0x20, "an identifier tuple pointer")
		if stride >= 0x2c {
			out[i].summary = ib.u32(at+0x28, "a profile's flags")&1 != 0
		}
		if pTuple == 0 {
			continue
		}
		if tuple, ok := decoded[pTuple]; ok {
			out[i].tuple = tuple
			continue
		}
		nIds := uint64(tb.u16(pTuple, "an identifier tuple"))
		if nIds > maxTuple {
			// Each identifier is a level of the hierarchy: hpcprof writes
			// a handful (node, rank, thread, GPU context, stream).
			return nil, tb.failed(pTuple, "an identifier tuple of %d identifiers, more than %d: not a database hpcprof writes", nIds, maxTuple)
		}
		if !tb.array(pTuple+8, nIds, szIdent, szIdent, "an identifier tuple") {
			return nil, tb.err
		}
		tuple := make([]ident, nIds)
		for k := range nIds {
			a := pTuple + 8 + k*szIdent
			tuple[k] = ident{
				kind:     tb.u8(a, ""),
				physical: tb.u16(a+2, "")&1 != 0,
				logical:  tb.u32(a+4, ""),
				phys:     tb.u64(a+8, ""),
			}
		}
		decoded[pTuple] = tuple
		out[i].tuple = tuple
	}
	if ib.err != nil {
		return nil, ib.err
	}
	return out, tb.err
}

// maxTuple bounds the identifiers of a tuple, each a level of the
// hierarchy (trace.MaxDepth bounds the whole of it).
const maxTuple = 64

// readBlob reads the n bytes at off of a file of the given size, after
// checking that they lie in it.
func readBlob(r io.ReaderAt, size int64, file string, off, n uint64) (*blob, error) {
	b := &blob{base: off, file: file}
	if off > uint64(size) || n > uint64(size)-off {
		return nil, b.failed(off, "%d bytes at offset %d lie outside the file's %d bytes: the file is truncated or corrupt", n, off, size)
	}
	b.data = make([]byte, n)
	if _, err := r.ReadAt(b.data, int64(off)); err != nil && !(err == io.EOF && n == 0) {
		return nil, b.failed(off, "%v", err)
	}
	return b, nil
}

func (b *blob) failed(off uint64, format string, args ...any) error {
	b.fail(off, format, args...)
	return b.err
}

// openAt opens a file of the database in dir for random access and
// returns its size.
func openAt(dir, name string) (*os.File, int64, error) {
	f, err := ingest.OpenIn(dir, name)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}
