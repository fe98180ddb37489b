package otf2

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// enc encodes OTF2's elementary types, to build archives for tests.
type enc struct {
	big bool
	b   []byte
}

func (e *enc) u8(v uint8) *enc { e.b = append(e.b, v); return e }

func (e *enc) u64Full(v uint64) *enc {
	if e.big {
		e.b = binary.BigEndian.AppendUint64(e.b, v)
	} else {
		e.b = binary.LittleEndian.AppendUint64(e.b, v)
	}
	return e
}

func (e *enc) u32Full(v uint32) *enc {
	if e.big {
		e.b = binary.BigEndian.AppendUint32(e.b, v)
	} else {
		e.b = binary.LittleEndian.AppendUint32(e.b, v)
	}
	return e
}

// u writes a compressed unsigned integer of the given width (4 or 8 bytes).
func (e *enc) u(v uint64, width int) *enc {
	switch {
	case v == 0:
		return e.u8(0)
	case width == 4 && v == 1<<32-1, width == 8 && v == 1<<64-1:
		return e.u8(0xff)
	}
	n := 1
	for n < 8 && v>>(8*n) != 0 {
		n++
	}
	e.u8(uint8(n))
	for i := 0; i < n; i++ {
		shift := 8 * i
		if e.big {
			shift = 8 * (n - 1 - i)
		}
		e.u8(uint8(v >> shift))
	}
	return e
}

func (e *enc) u32(v uint32) *enc { return e.u(uint64(v), 4) }
func (e *enc) u64(v uint64) *enc { return e.u(v, 8) }

// i64 writes a compressed signed integer: negative values take 8 bytes.
func (e *enc) i64(v int64) *enc {
	if v < 0 {
		e.u8(8)
		var b [8]byte
		if e.big {
			binary.BigEndian.PutUint64(b[:], uint64(v))
		} else {
			binary.LittleEndian.PutUint64(b[:], uint64(v))
		}
		e.b = append(e.b, b[:]...)
		return e
	}
	return e.u(uint64(v), 8)
}

func (e *enc) str(s string) *enc { e.b = append(append(e.b, s...), 0); return e }

// rec writes a record with its length; long forces the 9-byte length form.
func (e *enc) rec(kind uint8, long bool, body func(*enc)) *enc {
	inner := &enc{big: e.big}
	body(inner)
	e.u8(kind)
	if long || len(inner.b) >= 0xff {
		e.u8(0xff).u64Full(uint64(len(inner.b)))
	} else {
		e.u8(uint8(len(inner.b)))
	}
	e.b = append(e.b, inner.b...)
	return e
}

// chunked lays out chunks of records: each chunk gets a header and is
// padded to size with end-of-chunk markers, except the last, which ends
// with the end-of-file and end-of-buffer markers.
func chunked(big bool, size int, chunks ...[]byte) []byte {
	var out []byte
	for i, body := range chunks {
		e := &enc{big: big}
		e.u8(chunkHeader)
		e.u8(map[bool]uint8{false: littleEndian, true: bigEndian}[big])
		e.u64Full(1).u64Full(0)
		e.b = append(e.b, body...)
		if i == len(chunks)-1 {
			e.u8(endOfFile).u8(endOfBuffer)
		} else {
			for len(e.b) < size {
				e.u8(endOfChunk)
			}
			if len(e.b) != size {
				panic("chunk overflow: " + strconv.Itoa(len(e.b)))
			}
		}
		out = append(out, e.b...)
	}
	return out
}

// testArchive describes a small archive to write.
type testArchive struct {
	big         bool
	chunkEvents int
	defs        []byte            // global definition records
	locations   map[uint64][]byte // event file contents by location
	localDefs   map[uint64][]byte // local definition file contents
}

// write writes the archive into dir and returns its anchor file.
func (a testArchive) write(t testing.TB, dir string) string {
	t.Helper()
	chunkEvents := a.chunkEvents
	if chunkEvents == 0 {
		chunkEvents = 1 << 20
	}
	an := &enc{}
	an.u8(chunkHeader).u8(littleEndian).str("OTF2")
	an.u8(3).u8(2).u8(3).u8(0).u8(0) // anchor format 3, trace format 2, version 3.0.0
	an.u64Full(uint64(chunkEvents)).u64Full(1 << 18)
	an.u8(substratePOSIX).u8(compressionNone)
	an.u64Full(uint64(len(a.locations))).u64Full(0)
	an.str("").str("test").str("")
	an.u32Full(0).u64Full(7) // no properties, trace ID 7
	an.u32Full(0).u32Full(0) // no snapshots nor thumbnails
	an.u8(endOfFile).u8(endOfBuffer).u8(endOfChunk)
	must(t, os.WriteFile(filepath.Join(dir, "traces.otf2"), an.b, 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "traces.def"), chunked(a.big, 1<<18, a.defs), 0o644))
	must(t, os.MkdirAll(filepath.Join(dir, "traces"), 0o755))
	for loc, data := range a.locations {
		must(t, os.WriteFile(filepath.Join(dir, "traces", strconv.FormatUint(loc, 10)+".evt"), data, 0o644))
	}
	for loc, data := range a.localDefs {
		must(t, os.WriteFile(filepath.Join(dir, "traces", strconv.FormatUint(loc, 10)+".def"), data, 0o644))
	}
	return filepath.Join(dir, "traces.otf2")
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Definition record builders.

func defStr(e *enc, id uint32, s string) {
	e.rec(defString, false, func(r *enc) { r.u32(id).str(s) })
}

func defClock(e *enc, resolution, offset, length uint64) {
	e.rec(defClockProperties, false, func(r *enc) { r.u64(resolution).u64(offset).u64(length) })
}

func defNode(e *enc, id, name, class, parent uint32) {
	e.rec(defSystemTreeNode, false, func(r *enc) { r.u32(id).u32(name).u32(class).u32(parent) })
}

func defLGroup(e *enc, id, name uint32, kind uint8, parent uint32) {
	e.rec(defLocationGroup, false, func(r *enc) { r.u32(id).u32(name).u8(kind).u32(parent).u32(undefined32) })
}

func defLoc(e *enc, id uint64, name uint32, kind uint8, events uint64, group uint32) {
	e.rec(defLocation, false, func(r *enc) { r.u64(id).u32(name).u8(kind).u64(events).u32(group) })
}

// defRegionRec writes a region with the attributes of OTF2 1.1 and, to test
// forward compatibility, one attribute of a hypothetical later version.
func defRegionRec(e *enc, id, name uint32) {
	e.rec(defRegion, false, func(r *enc) {
		r.u32(id).u32(name).u32(name).u8(0).u32(undefined32).u32(0).u32(0) // 1.0
		r.u32(name).u8(1).u8(1).u32(0)                                     // 1.1
		r.u64(123456789)                                                   // later
	})
}

func defGroupRec(e *enc, id uint32, kind, paradigm uint8, members ...uint64) {
	e.rec(defGroup, false, func(r *enc) {
		r.u32(id).u32(0).u8(0).u32(uint32(len(members)))
		for _, m := range members {
			r.u64(m)
		}
		r.u8(kind).u8(paradigm).u32(0)
	})
}

func defCommRec(e *enc, id, name, group uint32) {
	e.rec(defComm, false, func(r *enc) { r.u32(id).u32(name).u32(group).u32(undefined32).u32(0) })
}

// Event record builders.

func evTime(e *enc, t uint64) { e.u8(timestamp).u64Full(t) }

func evRegion(e *enc, kind uint8, region uint32) { e.u8(kind).u32(region) }

func evP2P(e *enc, kind uint8, peer, comm, tag uint32, size uint64) {
	e.rec(kind, false, func(r *enc) {
		r.u32(peer).u32(comm).u32(tag).u64(size)
		if kind == evMpiIsend || kind == evMpiIrecv {
			r.u64(99) // request
		}
	})
}
