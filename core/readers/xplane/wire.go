package xplane

import (
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// corrupt is a decoding error at a byte offset of the (decompressed)
// input.
type corrupt struct {
	off int64
	err error
}

func (c *corrupt) Error() string { return c.err.Error() }

func corruptf(off int64, format string, args ...any) error {
	return &corrupt{off: off, err: fmt.Errorf(format, args...)}
}

// field is one field of a message. Varint and fixed fields hold their
// value in u; length-delimited ones their bytes in b. off is the input
// offset of the field's tag, boff that of b.
type field struct {
	num  protowire.Number
	typ  protowire.Type
	u    uint64
	b    []byte
	off  int64
	boff int64
}

func (f *field) int64() int64 { return int64(f.u) }

// each calls fn for each field of msg, which starts at input offset base.
// A malformed field (a bad tag, a varint or length running past the end
// of msg, a length beyond it) stops the walk with a corrupt error at its
// offset: msg is the whole of its message, so a length past its end is
// the file's fault, never a reason to read further.
func each(msg []byte, base int64, fn func(f field) error) error {
	var f field
	for pos := 0; pos < len(msg); {
		num, typ, n := protowire.ConsumeTag(msg[pos:])
		if n < 0 {
			return corruptf(base+int64(pos), "malformed field tag: %v", protowire.ParseError(n))
		}
		f = field{num: num, typ: typ, off: base + int64(pos)}
		pos += n
		switch typ {
		case protowire.VarintType:
			f.u, n = protowire.ConsumeVarint(msg[pos:])
		case protowire.Fixed64Type:
			f.u, n = protowire.ConsumeFixed64(msg[pos:])
		case protowire.Fixed32Type:
			var v uint32
			v, n = protowire.ConsumeFixed32(msg[pos:])
			f.u = uint64(v)
		case protowire.BytesType:
			var l uint64
			l, n = protowire.ConsumeVarint(msg[pos:])
			if n >= 0 {
				if l > uint64(len(msg)-pos-n) {
					return corruptf(f.off, "field %d announces %d bytes, past the end of its message (%d bytes left): the file is cut or corrupt",
						num, l, len(msg)-pos-n)
				}
				f.boff = base + int64(pos+n)
				f.b = msg[pos+n : pos+n+int(l)]
				n += int(l)
			}
		case protowire.StartGroupType:
			// Groups are in no message of the schema: skipped whole,
			// as protobuf parsers skip unknown fields.
			n = protowire.ConsumeFieldValue(num, typ, msg[pos:])
		default:
			return corruptf(f.off, "field %d has the invalid wire type %d", num, typ)
		}
		if n < 0 {
			return corruptf(f.off, "malformed field %d: %v", num, protowire.ParseError(n))
		}
		pos += n
		if err := fn(f); err != nil {
			return err
		}
	}
	return nil
}

// want checks that field f, of message msg, named name, has wire type
// typ: a known field of another type is a corrupt file (the protobuf
// library refuses it too).
func want(f *field, msg, name string, typ protowire.Type) error {
	if f.typ != typ {
		return corruptf(f.off, "%s.%s (field %d) has wire type %s, not %s", msg, name, f.num, wireName(f.typ), wireName(typ))
	}
	return nil
}

func wireName(t protowire.Type) string {
	switch t {
	case protowire.VarintType:
		return "varint"
	case protowire.Fixed64Type:
		return "fixed64"
	case protowire.Fixed32Type:
		return "fixed32"
	case protowire.BytesType:
		return "length-delimited"
	case protowire.StartGroupType, protowire.EndGroupType:
		return "group"
	}
	return fmt.Sprintf("%d", t)
}

// psToNs returns base (nanoseconds) plus ps picoseconds, rounded to the
// nearest nanosecond (halves up); false when the sum leaves int64.
func psToNs(base, ps int64) (int64, bool) {
	q, r := ps/1000, ps%1000
	if r < 0 { // floor division
		q, r = q-1, r+1000
	}
	if r >= 500 {
		q++
	}
	if (q > 0 && base > math.MaxInt64-q) || (q < 0 && base < math.MinInt64-q) {
		return 0, false
	}
	return base + q, true
}
