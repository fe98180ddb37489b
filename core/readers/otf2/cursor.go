package otf2

import (
	"encoding/binary"
	"fmt"
	"math"
)

// cursor reads OTF2's elementary types from a byte slice, in the byte order
// of the chunk being read. A read that runs past the end of the slice or
// meets an impossible encoding records the problem in err and returns zero;
// later reads return zero too. Decoders therefore check err once per record
// rather than once per field.
type cursor struct {
	buf  []byte
	pos  int
	base int64 // file offset of buf[0], for error messages
	big  bool  // the chunk was written big-endian
	err  *decodeError
}

// decodeError is the first problem a cursor met.
type decodeError struct {
	offset int64 // file offset of the field that could not be read
	msg    string
	// short tells that the data merely ran out: when the slice is a window
	// on a larger chunk, reading more of the chunk may resolve it.
	short bool
}

func (c *cursor) offset() int64 { return c.base + int64(c.pos) }

func (c *cursor) fail(short bool, format string, args ...any) {
	if c.err == nil {
		c.err = &decodeError{offset: c.offset(), msg: fmt.Sprintf(format, args...), short: short}
	}
}

// need reports whether n more bytes are available, recording a short read
// otherwise.
func (c *cursor) need(n int) bool {
	if c.err != nil {
		return false
	}
	if n > len(c.buf)-c.pos {
		c.fail(true, "unexpected end of data")
		return false
	}
	return true
}

func (c *cursor) u8() uint8 {
	if !c.need(1) {
		return 0
	}
	v := c.buf[c.pos]
	c.pos++
	return v
}

func (c *cursor) u32Full() uint32 {
	if !c.need(4) {
		return 0
	}
	b := c.buf[c.pos : c.pos+4]
	c.pos += 4
	if c.big {
		return binary.BigEndian.Uint32(b)
	}
	return binary.LittleEndian.Uint32(b)
}

func (c *cursor) u64Full() uint64 {
	if !c.need(8) {
		return 0
	}
	b := c.buf[c.pos : c.pos+8]
	c.pos += 8
	if c.big {
		return binary.BigEndian.Uint64(b)
	}
	return binary.LittleEndian.Uint64(b)
}

func (c *cursor) f64() float64 { return math.Float64frombits(c.u64Full()) }

// compressed reads OTF2's variable-length integer of at most max bytes: a
// length byte n, then the n low-order bytes of the value in the chunk's
// byte order. Two lengths are special: 0 is the value 0 with no bytes
// following, and 0xff is the all-ones value (OTF2's "undefined").
func (c *cursor) compressed(max int) uint64 {
	n := int(c.u8())
	switch {
	case c.err != nil:
		return 0
	case n == 0:
		return 0
	case n == 0xff:
		if max == 4 {
			return math.MaxUint32
		}
		return math.MaxUint64
	case n > max:
		c.pos--
		c.fail(false, "invalid size %d of a compressed %d-bit integer", n, 8*max)
		return 0
	}
	if !c.need(n) {
		return 0
	}
	b := c.buf[c.pos : c.pos+n]
	c.pos += n
	var v uint64
	if c.big {
		for _, x := range b {
			v = v<<8 | uint64(x)
		}
	} else {
		for i := n - 1; i >= 0; i-- {
			v = v<<8 | uint64(b[i])
		}
	}
	return v
}

func (c *cursor) u32() uint32 { return uint32(c.compressed(4)) }
func (c *cursor) u64() uint64 { return c.compressed(8) }

// i64 reads a compressed signed integer: negative values are written with
// all eight bytes, so the two's complement bits come back unchanged.
func (c *cursor) i64() int64 { return int64(c.compressed(8)) }

// str reads a NUL-terminated string.
func (c *cursor) str() string {
	if c.err != nil {
		return ""
	}
	for i := c.pos; i < len(c.buf); i++ {
		if c.buf[i] == 0 {
			s := string(c.buf[c.pos:i])
			c.pos = i + 1
			return s
		}
	}
	c.fail(true, "string without terminating NUL byte")
	return ""
}

// length reads a record length: one byte, or 0xff followed by the length
// as a full 8-byte integer for records of 255 bytes or more.
func (c *cursor) length() uint64 {
	n := c.u8()
	if n != 0xff {
		return uint64(n)
	}
	return c.u64Full()
}

// record returns a cursor on the next n bytes, which hold one record's
// attributes, and moves past them. Reading beyond the end of that cursor is
// a malformed record, not a short read.
func (c *cursor) record(n uint64) cursor {
	if c.err != nil {
		return cursor{err: c.err}
	}
	if n > uint64(len(c.buf)-c.pos) {
		c.fail(true, "record of %d bytes runs past the end of the data", n)
		return cursor{err: c.err}
	}
	r := cursor{buf: c.buf[c.pos : c.pos+int(n)], base: c.offset(), big: c.big}
	c.pos += int(n)
	return r
}

// more reports whether a record cursor still holds attributes: records grow
// new attributes at their end as the format evolves, and a reader must
// accept records written before or after its own version.
func (c *cursor) more() bool { return c.err == nil && c.pos < len(c.buf) }

// recordErr turns a problem met inside a record into a malformed-record
// problem: the record announced its length, so running out is not short.
func (c *cursor) recordErr(kind string) *decodeError {
	if c.err == nil {
		return nil
	}
	e := *c.err
	if e.short {
		e.short = false
		e.msg = kind + " record is shorter than its attributes"
	} else {
		e.msg = kind + " record: " + e.msg
	}
	return &e
}
