package perfetto

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/klauspost/compress/zstd"
	"google.golang.org/protobuf/encoding/protowire"
)

// maxPacket bounds the length a packet may announce: Perfetto's writers
// keep packets far below it, so a larger length is a corrupt file, not a
// reason to allocate gigabytes.
const maxPacket = 256 << 20

// maxInflated bounds what one compressed_packets field may expand to
// (Perfetto writes them under 512 KB compressed).
const maxInflated = 64 << 20

// corrupt is a decoding error at a byte offset of the decompressed input.
type corrupt struct {
	off int64
	err error
}

func (c *corrupt) Error() string { return c.err.Error() }

func corruptf(off int64, format string, args ...any) error {
	return &corrupt{off: off, err: fmt.Errorf(format, args...)}
}

// field is one decoded field of a message. For varint and fixed fields U
// holds the value; for length-delimited fields B holds the bytes and Off
// their offset in the input, so that errors in a nested message locate it.
type field struct {
	Num protowire.Number
	Typ protowire.Type
	U   uint64
	B   []byte
	Off int64
}

// Int64 and friends read U as the protobuf scalar types do.
func (f field) Int64() int64    { return int64(f.U) }
func (f field) Int32() int32    { return int32(f.U) }
func (f field) Bool() bool      { return f.U != 0 }
func (f field) Double() float64 { return math.Float64frombits(f.U) }
func (f field) String() string  { return string(f.B) }
func (f field) isVarint() bool  { return f.Typ == protowire.VarintType }
func (f field) isBytes() bool   { return f.Typ == protowire.BytesType }
func (f field) isScalar() bool {
	return f.Typ != protowire.BytesType && f.Typ != protowire.StartGroupType
}

// fields calls fn for each field of the message b, which starts at input
// offset base. A malformed field stops the walk with a corrupt error.
func fields(b []byte, base int64, fn func(f field) error) error {
	it := fieldIter{b: b, base: base}
	var f field
	for {
		ok, err := it.next(&f)
		if !ok {
			return err
		}
		if err := fn(f); err != nil {
			return err
		}
	}
}

// fieldIter walks the fields of a message without a call through a
// function value per field, for the loops that run once per packet.
type fieldIter struct {
	b    []byte
	pos  int
	base int64 // input offset of b
}

// next decodes the next field into f: false at the end of the message,
// or with a corrupt error at a malformed field. The one- and two-byte
// varints that make most of a trace are decoded here; longer ones, and
// every malformed input, go to protowire, whose verdicts the errors word.
func (it *fieldIter) next(f *field) (bool, error) {
	b, pos := it.b, it.pos
	if pos >= len(b) {
		return false, nil
	}
	var num protowire.Number
	var typ protowire.Type
	var n int
	if c := b[pos]; c < 0x80 && c >= 8 {
		num, typ, n = protowire.Number(c>>3), protowire.Type(c&7), 1
	} else {
		num, typ, n = protowire.ConsumeTag(b[pos:])
		if n < 0 {
			return false, corruptf(it.base+int64(pos), "malformed field tag: %v", protowire.ParseError(n))
		}
	}
	*f = field{Num: num, Typ: typ}
	pos += n
	switch typ {
	case protowire.VarintType:
		f.U, n = varint(b[pos:])
	case protowire.Fixed64Type:
		f.U, n = protowire.ConsumeFixed64(b[pos:])
	case protowire.Fixed32Type:
		var v uint32
		v, n = protowire.ConsumeFixed32(b[pos:])
		f.U = uint64(v)
	case protowire.BytesType:
		var l uint64
		l, n = varint(b[pos:])
		if n >= 0 && l <= uint64(len(b)-pos-n) {
			f.B = b[pos+n : pos+n+int(l) : pos+n+int(l)]
			f.Off = it.base + int64(pos+n)
			n += int(l)
		} else {
			f.B, n = protowire.ConsumeBytes(b[pos:])
		}
	case protowire.StartGroupType:
		n = protowire.ConsumeFieldValue(num, typ, b[pos:])
	default:
		return false, corruptf(it.base+int64(pos-1), "field %d has the invalid wire type %d", num, typ)
	}
	if n < 0 {
		return false, corruptf(it.base+int64(pos), "malformed field %d: %v", num, protowire.ParseError(n))
	}
	it.pos = pos + n
	return true, nil
}

// varint decodes a varint as protowire.ConsumeVarint does, the short ones
// inline.
func varint(b []byte) (uint64, int) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint64(b[0]), 1
	}
	if len(b) > 1 && b[1] < 0x80 {
		return uint64(b[0]&0x7f) | uint64(b[1])<<7, 2
	}
	return protowire.ConsumeVarint(b)
}

// uints calls fn for each value of a repeated integer field, packed (one
// length-delimited field) or not; fixed tells fixed64 from varint encoding.
func uints(f field, fixed bool, fn func(v uint64)) error {
	if f.isScalar() {
		fn(f.U)
		return nil
	}
	if !f.isBytes() {
		return nil
	}
	b := f.B
	for len(b) > 0 {
		var v uint64
		var n int
		if fixed {
			v, n = protowire.ConsumeFixed64(b)
		} else {
			v, n = protowire.ConsumeVarint(b)
		}
		if n < 0 {
			return corruptf(f.Off+int64(len(f.B)-len(b)), "malformed packed field %d: %v", f.Num, protowire.ParseError(n))
		}
		fn(v)
		b = b[n:]
	}
	return nil
}

// packetReader reads a Trace message, a sequence of length-delimited
// TracePacket fields (field 1), one packet at a time from a buffered
// reader, appending each to buf, which its user empties: only the
// packets of a batch are in memory.
type packetReader struct {
	br  *bufio.Reader
	off int64 // bytes consumed so far
	buf []byte
	// others counts top-level fields other than packets (none in files
	// Perfetto writes).
	others int64
}

// next appends the next packet to buf and returns it and the offset of
// its first byte; io.EOF at a clean end of the input.
func (r *packetReader) next() ([]byte, int64, error) {
	for {
		start := r.off
		key, err := r.uvarint()
		if err == io.EOF {
			return nil, 0, io.EOF
		}
		if err != nil {
			return nil, 0, r.cut(start, "a field tag", err)
		}
		num, typ := protowire.Number(key>>3), protowire.Type(key&7)
		if num < 1 || num > protowire.MaxValidNumber {
			return nil, 0, corruptf(start, "invalid field number %d in the trace (not a Perfetto protobuf trace?)", num)
		}
		switch typ {
		case protowire.BytesType:
			n, err := r.uvarint()
			if err != nil {
				return nil, 0, r.cut(start, "a length", err)
			}
			if n > maxPacket {
				return nil, 0, corruptf(start, "field %d announces %d bytes, more than a trace packet may hold (%d)", num, n, maxPacket)
			}
			body, at := r.off, len(r.buf)
			k, err := r.fill(int(n))
			r.off += int64(k)
			if err != nil {
				r.buf = r.buf[:at]
				if err == io.EOF || err == io.ErrUnexpectedEOF {
					return nil, 0, corruptf(start, "truncated packet: %d bytes announced, %d present", n, k)
				}
				return nil, 0, err
			}
			if num == 1 {
				return r.buf[at:len(r.buf):len(r.buf)], body, nil
			}
			r.buf = r.buf[:at]
		case protowire.VarintType:
			if _, err := r.uvarint(); err != nil {
				return nil, 0, r.cut(start, "a value", err)
			}
		case protowire.Fixed32Type, protowire.Fixed64Type:
			size := 4
			if typ == protowire.Fixed64Type {
				size = 8
			}
			k, err := r.br.Discard(size)
			r.off += int64(k)
			if err != nil {
				return nil, 0, r.cut(start, "a value", err)
			}
		default:
			return nil, 0, corruptf(start, "field %d has the wire type %d, not that of trace packets (not a Perfetto protobuf trace?)", num, typ)
		}
		r.others++
	}
}

// fill appends the next n bytes to r.buf. The buffer grows with what
// arrives, a megabyte at a time, so that a corrupt length costs no more
// memory than the input holds.
func (r *packetReader) fill(n int) (int, error) {
	base := len(r.buf)
	for len(r.buf)-base < n {
		chunk := min(n-(len(r.buf)-base), 1<<20)
		have := len(r.buf)
		r.buf = slices.Grow(r.buf, chunk)[:have+chunk]
		k, err := io.ReadFull(r.br, r.buf[have:])
		if err != nil {
			return have - base + k, err
		}
	}
	return n, nil
}

// cut words an error met while reading a field's head.
func (r *packetReader) cut(at int64, what string, err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return corruptf(at, "truncated trace: the input ends inside %s", what)
	}
	var c *corrupt
	if errors.As(err, &c) {
		return err
	}
	if errors.Is(err, errOverflow) {
		return corruptf(at, "malformed varint in %s", what)
	}
	return err
}

var errOverflow = errors.New("varint overflows 64 bits")

// uvarint reads a varint, counting its bytes; io.EOF only when the input
// ends before its first byte.
func (r *packetReader) uvarint() (uint64, error) {
	var x uint64
	var s uint
	for i := 0; i < binary.MaxVarintLen64; i++ {
		b, err := r.br.ReadByte()
		if err != nil {
			if i > 0 && err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		r.off++
		if b < 0x80 {
			if i == binary.MaxVarintLen64-1 && b > 1 {
				return 0, errOverflow
			}
			return x | uint64(b)<<s, nil
		}
		x |= uint64(b&0x7f) << s
		s += 7
	}
	return 0, errOverflow
}

// inflate expands a compressed_packets (zlib) or zstd_compressed_packets
// field into the Trace message it holds.
func inflate(f field, zstdData bool) ([]byte, error) {
	var rd io.Reader
	if zstdData {
		zr, err := zstd.NewReader(bytes.NewReader(f.B), zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, corruptf(f.Off, "broken zstd compressed packets: %v", err)
		}
		defer zr.Close()
		rd = zr
	} else {
		zr, err := zlib.NewReader(bytes.NewReader(f.B))
		if err != nil {
			return nil, corruptf(f.Off, "broken compressed packets: %v", err)
		}
		defer zr.Close()
		rd = zr
	}
	out, err := io.ReadAll(io.LimitReader(rd, maxInflated+1))
	if err != nil {
		return nil, corruptf(f.Off, "broken compressed packets: %v", err)
	}
	if len(out) > maxInflated {
		return nil, corruptf(f.Off, "compressed packets expand past %d bytes", maxInflated)
	}
	return out, nil
}
