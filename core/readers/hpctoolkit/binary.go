package hpctoolkit

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
)

// blob is a run of bytes of a file that starts at file offset base. Every
// access goes through it and is bounds-checked: the *.db formats are webs of
// absolute offsets, and a corrupt offset must end in a FormatError naming
// the file and the offset, never in a panic. The first error sticks: later
// reads return zero, so a structure is decoded field by field and checked
// once.
type blob struct {
	data []byte
	base uint64
	file string
	err  error
	text ingest.ValidText // the strings read, made valid UTF-8
}

func (b *blob) fail(off uint64, format string, args ...any) {
	if b.err == nil {
		b.err = &errs.FormatError{File: b.file, AtOffset: true, Offset: int64(min(off, 1<<62)), Err: fmt.Errorf(format, args...)}
	}
}

// has reports whether the n bytes at file offset off are in the blob, and
// records an error naming what if not.
func (b *blob) has(off, n uint64, what string) bool {
	if b.err != nil {
		return false
	}
	if off < b.base || off-b.base > uint64(len(b.data)) || n > uint64(len(b.data))-(off-b.base) {
		b.fail(off, "%s (%d bytes at offset %d) lies outside the file's %d bytes", what, n, off, b.base+uint64(len(b.data)))
		return false
	}
	return true
}

func (b *blob) u8(off uint64, what string) uint8 {
	if !b.has(off, 1, what) {
		return 0
	}
	return b.data[off-b.base]
}

func (b *blob) u16(off uint64, what string) uint16 {
	if !b.has(off, 2, what) {
		return 0
	}
	return binary.LittleEndian.Uint16(b.data[off-b.base:])
}

func (b *blob) u32(off uint64, what string) uint32 {
	if !b.has(off, 4, what) {
		return 0
	}
	return binary.LittleEndian.Uint32(b.data[off-b.base:])
}

func (b *blob) u64(off uint64, what string) uint64 {
	if !b.has(off, 8, what) {
		return 0
	}
	return binary.LittleEndian.Uint64(b.data[off-b.base:])
}

// str reads the NUL-terminated string at off.
func (b *blob) str(off uint64, what string) string {
	if !b.has(off, 1, what) {
		return ""
	}
	rest := b.data[off-b.base:]
	n := bytes.IndexByte(rest, 0)
	if n < 0 {
		b.fail(off, "%s at offset %d has no terminating NUL byte", what, off)
		return ""
	}
	return b.text.String(string(rest[:n]))
}

// section is a {size, pointer} pair of a file header.
type section struct{ size, ptr uint64 }

// header is the common header of the *.db files: the magic, the format
// identifier, the versions and the sections.
type header struct {
	major, minor uint8
	sections     []section
}

// headerSize is the size of the fixed part of the common header.
const headerSize = 0x10

// readHeader checks the common header of a *.db file of the given format
// ("meta", "prof", "trce") and reads its first nSections sections, checking
// that they lie within the file's size bytes. b holds the file's first
// bytes.
func readHeader(b *blob, size uint64, format string, nSections int) header {
	var h header
	if !b.has(0, headerSize, "the file header") {
		return h
	}
	if string(b.data[:10]) != "HPCTOOLKIT" {
		b.fail(0, "not an HPCToolkit database file: no HPCTOOLKIT magic")
		return h
	}
	if got := string(b.data[10:14]); got != format {
		b.fail(10, "an HPCToolkit %q file where a %q file was expected", got, format)
		return h
	}
	h.major, h.minor = b.data[14], b.data[15]
	if h.major != 4 {
		b.fail(14, "HPCToolkit database version %d.%d: only version 4 is read", h.major, h.minor)
		return h
	}
	for i := range nSections {
		off := uint64(headerSize + 16*i)
		s := section{size: b.u64(off, "a section size"), ptr: b.u64(off+8, "a section pointer")}
		if b.err == nil && (s.ptr > size || s.size > size-s.ptr) {
			b.fail(off, "section %d (%d bytes at offset %d) lies outside the file's %d bytes: the file is truncated or corrupt", i+1, s.size, s.ptr, size)
		}
		h.sections = append(h.sections, s)
	}
	return h
}

// checkFooter checks that a *.db file of size bytes ends with its 8-byte
// footer, which only a complete file has.
func checkFooter(r io.ReaderAt, size int64, file, footer string) error {
	b := &blob{file: file}
	if size < 8 {
		return b.failed(uint64(size), "the file is truncated (%d bytes)", size)
	}
	tail := make([]byte, 8)
	if _, err := r.ReadAt(tail, size-8); err != nil {
		return b.failed(uint64(size-8), "%v", err)
	}
	if string(tail) != footer {
		return b.failed(uint64(size), "the file does not end with %q: it is truncated", footer)
	}
	return nil
}

// array checks that n elements of size stride (at least min bytes each)
// starting at ptr lie in the blob, and returns false otherwise.
func (b *blob) array(ptr, n, stride, minSize uint64, what string) bool {
	if b.err != nil {
		return false
	}
	if n == 0 {
		return true
	}
	if stride < minSize {
		b.fail(ptr, "%s: element size %d is below the %d bytes of version 4.0", what, stride, minSize)
		return false
	}
	if n > (1<<62)/stride {
		b.fail(ptr, "%s: %d elements is too many", what, n)
		return false
	}
	return b.has(ptr, n*stride, what)
}
