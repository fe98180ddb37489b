package pbwalk

import (
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// Corrupt is a decoding error at byte Off of the (decompressed) input.
// Readers turn it into their format error, naming the file.
type Corrupt struct {
	Off int64
	Err error
}

func (c *Corrupt) Error() string { return c.Err.Error() }

// Corruptf returns a *Corrupt at byte off, worded as fmt.Errorf does.
func Corruptf(off int64, format string, args ...any) error {
	return &Corrupt{Off: off, Err: fmt.Errorf(format, args...)}
}

// Field is one decoded field of a message. Varint and fixed fields hold
// their value in U; length-delimited ones their bytes in B (capped at
// their end, so that an append cannot reach the next field). Off is the
// input offset of the value (of B's bytes, so that the walk of a nested
// message locates its errors), Head the number of bytes before it: the
// tag's and, for a length-delimited field, its length's. At tells where
// the field starts. (Head rather than the tag's offset keeps a Field at
// 48 bytes: the readers copy and clear them once a packet.)
type Field struct {
	Num  protowire.Number
	Typ  protowire.Type
	Head uint8
	U    uint64
	B    []byte
	Off  int64
}

// At is the input offset of the field's tag.
func (f Field) At() int64 { return f.Off - int64(f.Head) }

// Int64 and friends read U as the protobuf scalar types of those names
// do; String reads B as a string field.
func (f Field) Int64() int64    { return int64(f.U) }
func (f Field) Int32() int32    { return int32(f.U) }
func (f Field) Bool() bool      { return f.U != 0 }
func (f Field) Double() float64 { return math.Float64frombits(f.U) }
func (f Field) String() string  { return string(f.B) }

// IsVarint and IsBytes tell the wire types; IsScalar is true of the
// varint and fixed-size fields.
func (f Field) IsVarint() bool { return f.Typ == protowire.VarintType }
func (f Field) IsBytes() bool  { return f.Typ == protowire.BytesType }
func (f Field) IsScalar() bool {
	return f.Typ != protowire.BytesType && f.Typ != protowire.StartGroupType
}

// Each calls fn for each field of the message msg, which starts at input
// offset base, and returns the first error of fn or of the walk.
func Each(msg []byte, base int64, fn func(f Field) error) error {
	it := NewIter(msg, base)
	var f Field
	for {
		ok, err := it.Next(&f)
		if !ok {
			return err
		}
		if err := fn(f); err != nil {
			return err
		}
	}
}

// Iter walks the fields of a message without a call through a function
// value per field, for the loops that run once per packet or event.
type Iter struct {
	b    []byte
	pos  int
	base int64 // input offset of b
}

// NewIter returns an Iter over the message msg, which starts at input
// offset base.
func NewIter(msg []byte, base int64) Iter { return Iter{b: msg, base: base} }

// Next decodes the next field into f: false at the end of the message,
// or with a *Corrupt error at a malformed field, which every later call
// returns again.
func (it *Iter) Next(f *Field) (bool, error) {
	b, pos := it.b, it.pos
	if pos >= len(b) {
		return false, nil
	}
	at := pos
	var num protowire.Number
	var typ protowire.Type
	var n int
	if c := b[pos]; c < 0x80 && c >= 8 { // fields 1 to 15
		num, typ, n = protowire.Number(c>>3), protowire.Type(c&7), 1
	} else if c >= 0x80 && pos+1 < len(b) && b[pos+1]-1 < 0x7f { // fields 16 to 2047
		// A second byte of 0 would be a non-minimal tag, perhaps of
		// field 0: protowire judges those.
		key := uint64(c&0x7f) | uint64(b[pos+1])<<7
		num, typ, n = protowire.Number(key>>3), protowire.Type(key&7), 2
	} else {
		num, typ, n = protowire.ConsumeTag(b[pos:])
		if n < 0 {
			return false, Corruptf(it.base+int64(at), "malformed field tag: %v", protowire.ParseError(n))
		}
	}
	f.Num, f.Typ = num, typ
	pos += n
	f.Off, f.Head = it.base+int64(pos), uint8(n)
	switch typ {
	case protowire.VarintType:
		f.B = nil
		if pos < len(b) && b[pos] < 0x80 {
			f.U, n = uint64(b[pos]), 1
		} else {
			f.U, n = protowire.ConsumeVarint(b[pos:])
		}
	case protowire.BytesType:
		f.U = 0
		var l uint64
		if pos < len(b) && b[pos] < 0x80 {
			l, n = uint64(b[pos]), 1
		} else {
			l, n = protowire.ConsumeVarint(b[pos:])
		}
		if n >= 0 {
			if l > uint64(len(b)-pos-n) {
				return false, Corruptf(it.base+int64(at), "malformed field %d: it announces %d bytes, past the end of its message (%d bytes left): the file is cut or corrupt",
					num, l, len(b)-pos-n)
			}
			start := pos + n
			end := start + int(l)
			f.B, f.Off, f.Head = b[start:end:end], it.base+int64(start), f.Head+uint8(n)
			n += int(l)
		}
	case protowire.Fixed64Type:
		f.B = nil
		f.U, n = protowire.ConsumeFixed64(b[pos:])
	case protowire.Fixed32Type:
		f.B = nil
		var v uint32
		v, n = protowire.ConsumeFixed32(b[pos:])
		f.U = uint64(v)
	case protowire.StartGroupType:
		f.U, f.B = 0, nil
		n = protowire.ConsumeFieldValue(num, typ, b[pos:])
	default:
		return false, Corruptf(it.base+int64(at), "field %d has the invalid wire type %d", num, typ)
	}
	if n < 0 {
		return false, Corruptf(it.base+int64(at), "malformed field %d: %v", num, protowire.ParseError(n))
	}
	it.pos = pos + n
	return true, nil
}
