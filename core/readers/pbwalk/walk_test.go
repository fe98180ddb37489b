package pbwalk

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// reference walks msg with protowire alone, field by field: the fields
// it decodes and, at a malformed one, the offset of its tag.
func reference(msg []byte, base int64) (fs []Field, errAt int64, failed bool) {
	for pos := 0; pos < len(msg); {
		num, typ, n := protowire.ConsumeTag(msg[pos:])
		if n < 0 {
			return fs, base + int64(pos), true
		}
		f := Field{Num: num, Typ: typ, Off: base + int64(pos+n), Head: uint8(n)}
		at := base + int64(pos)
		v := msg[pos+n:]
		var m int
		switch typ {
		case protowire.VarintType:
			f.U, m = protowire.ConsumeVarint(v)
		case protowire.Fixed32Type:
			var u uint32
			u, m = protowire.ConsumeFixed32(v)
			f.U = uint64(u)
		case protowire.Fixed64Type:
			f.U, m = protowire.ConsumeFixed64(v)
		case protowire.BytesType:
			f.B, m = protowire.ConsumeBytes(v)
			if m >= 0 {
				f.Off = base + int64(pos+n+m-len(f.B))
				f.Head += uint8(m - len(f.B))
			}
		case protowire.StartGroupType:
			m = protowire.ConsumeFieldValue(num, typ, v)
		default:
			m = -1
		}
		if m < 0 {
			return fs, at, true
		}
		fs = append(fs, f)
		pos += n + m
	}
	return fs, 0, false
}

func equalFields(a, b []Field) bool {
	return slices.EqualFunc(a, b, func(x, y Field) bool {
		return x.Num == y.Num && x.Typ == y.Typ && x.U == y.U && bytes.Equal(x.B, y.B) && x.Off == y.Off && x.Head == y.Head
	})
}

// check compares Each (and the iterator behind it) with the reference on
// msg at offset base.
func check(t *testing.T, msg []byte, base int64) {
	t.Helper()
	want, wantAt, wantFail := reference(msg, base)
	var got []Field
	err := Each(msg, base, func(f Field) error {
		got = append(got, f)
		return nil
	})
	if !equalFields(got, want) {
		t.Fatalf("% x: fields\n%+v, want\n%+v", msg, got, want)
	}
	var c *Corrupt
	switch {
	case wantFail && (!errors.As(err, &c) || c.Off != wantAt):
		t.Fatalf("% x: error %v, want a Corrupt at byte %d", msg, err, wantAt)
	case !wantFail && err != nil:
		t.Fatalf("% x: error %v, want none", msg, err)
	}
}

func TestAgainstProtowire(t *testing.T) {
	var good []byte
	good = protowire.AppendTag(good, 1, protowire.VarintType)
	good = protowire.AppendVarint(good, 127)
	good = protowire.AppendTag(good, 15, protowire.VarintType)
	good = protowire.AppendVarint(good, 1<<63)
	good = protowire.AppendTag(good, 16, protowire.BytesType)
	good = protowire.AppendBytes(good, bytes.Repeat([]byte{'x'}, 127))
	good = protowire.AppendTag(good, 2047, protowire.BytesType)
	good = protowire.AppendBytes(good, bytes.Repeat([]byte{'y'}, 128))
	good = protowire.AppendTag(good, 2048, protowire.Fixed32Type)
	good = protowire.AppendFixed32(good, 0xdeadbeef)
	good = protowire.AppendTag(good, protowire.MaxValidNumber, protowire.Fixed64Type)
	good = protowire.AppendFixed64(good, 1<<60)
	good = protowire.AppendTag(good, 5, protowire.StartGroupType)
	good = protowire.AppendTag(good, 1, protowire.VarintType)
	good = protowire.AppendVarint(good, 3)
	good = protowire.AppendTag(good, 5, protowire.EndGroupType)
	good = protowire.AppendTag(good, 3, protowire.BytesType)
	good = protowire.AppendBytes(good, nil)
	fs, _, failed := reference(good, 100)
	if failed || len(fs) != 8 {
		t.Fatalf("reference: %d fields, failed %v", len(fs), failed)
	}
	check(t, good, 100)
	// Every cut of it, and every byte of it spoiled.
	for n := range len(good) {
		check(t, good[:n], 7)
	}
	for i := range good {
		for _, v := range []byte{0x00, 0x07, 0x0f, 0x7f, 0x80, 0xff} {
			spoiled := slices.Clone(good)
			spoiled[i] = v
			check(t, spoiled, 0)
		}
	}
}

// The two-byte tags of the fast path are minimal ones: a tag of field 0
// written on two bytes is refused as protowire refuses it.
func TestFieldZero(t *testing.T) {
	for _, msg := range [][]byte{{0x00, 0x01}, {0x80, 0x00, 0x01}, {0x82, 0x00, 0x01, 0x00}} {
		err := Each(msg, 10, func(Field) error { return nil })
		var c *Corrupt
		if !errors.As(err, &c) || c.Off != 10 || !strings.Contains(err.Error(), "malformed field tag") {
			t.Errorf("% x: %v, want a malformed tag at byte 10", msg, err)
		}
	}
}

// A length past the end of the message says so, at the field's tag; a
// later call of Next says it again.
func TestLengthPastTheEnd(t *testing.T) {
	msg := []byte{0x08, 0x01, 0x12, 0x05, 'a', 'b'}
	it := NewIter(msg, 1000)
	var f Field
	if ok, err := it.Next(&f); !ok || err != nil || f.Num != 1 || f.U != 1 || f.At() != 1000 {
		t.Fatalf("first field %+v, %v", f, err)
	}
	for range 2 {
		ok, err := it.Next(&f)
		var c *Corrupt
		if ok || !errors.As(err, &c) || c.Off != 1002 || err.Error() !=
			"malformed field 2: it announces 5 bytes, past the end of its message (2 bytes left): the file is cut or corrupt" {
			t.Fatalf("got %v %v", ok, err)
		}
	}
}

// The error of fn ends the walk and is returned as it is.
func TestStop(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	err := Each([]byte{0x08, 0x01, 0x08, 0x02}, 0, func(Field) error { n++; return stop })
	if err != stop || n != 1 {
		t.Errorf("%v after %d fields", err, n)
	}
}

func FuzzWalk(f *testing.F) {
	f.Add([]byte{0x08, 0x96, 0x01, 0x12, 0x02, 'h', 'i'}, int64(0))
	f.Add([]byte{0x80, 0x01, 0x01, 0x0b, 0x08, 0x01, 0x0c}, int64(5))
	f.Fuzz(func(t *testing.T, msg []byte, base int64) {
		check(t, msg, base&(1<<40-1))
	})
}
