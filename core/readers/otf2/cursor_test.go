package otf2

import (
	"math"
	"testing"
)

func TestCompressedIntegers(t *testing.T) {
	for _, big := range []bool{false, true} {
		for _, v := range []uint64{0, 1, 0xff, 0x100, 0x1234, 0xabcdef, 1 << 32, 0x0102030405060708, math.MaxUint64 - 1, math.MaxUint64} {
			e := &enc{big: big}
			e.u64(v)
			c := cursor{buf: e.b, big: big}
			if got := c.u64(); got != v || c.err != nil || c.pos != len(e.b) {
				t.Errorf("big=%v: u64 %#x read as %#x (err %v, %d of %d bytes)", big, v, got, c.err, c.pos, len(e.b))
			}
		}
		e := &enc{big: big}
		e.u32(math.MaxUint32).i64(-2).i64(5)
		c := cursor{buf: e.b, big: big}
		if a, b, d := c.u32(), c.i64(), c.i64(); a != math.MaxUint32 || b != -2 || d != 5 || c.err != nil {
			t.Errorf("big=%v: got %d %d %d (%v)", big, a, b, d, c.err)
		}
	}
	// Known encodings: length byte, then the low-order bytes in file order.
	le := cursor{buf: []byte{2, 0x34, 0x12}}
	be := cursor{buf: []byte{2, 0x12, 0x34}, big: true}
	if a, b := le.u32(), be.u32(); a != 0x1234 || b != 0x1234 {
		t.Errorf("0x1234 read as %#x (little-endian) and %#x (big-endian)", a, b)
	}
}

func TestCursorErrors(t *testing.T) {
	c := cursor{buf: []byte{5, 1, 2, 3, 4, 5}, base: 100}
	if c.u32(); c.err == nil || c.err.short || c.err.offset != 100 {
		t.Errorf("a 5-byte compressed 32-bit integer: got %+v, want an invalid-data error at 100", c.err)
	}
	c = cursor{buf: []byte{4, 1, 2}, base: 100}
	if c.u64(); c.err == nil || !c.err.short {
		t.Errorf("a cut integer: got %+v, want a short read", c.err)
	}
	c = cursor{buf: []byte{'a', 'b'}}
	if c.str(); c.err == nil || !c.err.short {
		t.Errorf("a string without NUL: got %+v, want a short read", c.err)
	}
	// Inside a record, running out is a malformed record.
	c = cursor{buf: []byte{2, 4, 1, 0xff}}
	r := c.record(c.length())
	r.u64()
	if e := r.recordErr("Test"); e == nil || e.short || e.offset != 2 {
		t.Errorf("a record too short for its attributes: got %+v", e)
	}
	// Reads after an error return zero and keep the first error.
	c = cursor{buf: []byte{9}}
	c.u64()
	first := c.err
	if v := c.u8(); v != 0 || c.err != first {
		t.Errorf("read after an error returned %d, error %v", v, c.err)
	}
}

func TestAnchor(t *testing.T) {
	anchor := archivePath(t, "pipit/tests/data/ping-pong-otf2")
	a, err := readAnchor(anchor)
	if err != nil {
		t.Fatal(err)
	}
	// As otf2-print -I shows it.
	if a.version != [3]uint8{2, 3, 0} || a.chunkEvents != 1<<20 || a.chunkDefs != 1<<18 ||
		a.locations != 2 || a.globalDefs != 533 || a.creator != "Score-P 7.1" || a.traceID != 0x96e85fffda166e11 ||
		a.properties["OTF2::MPI_COMMUNICATION_COMPLETE"] != "true" || len(a.properties) != 5 {
		t.Errorf("anchor %+v", a)
	}
}
