package perfetto

import (
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
	} else if c >= 0x80 && pos+1 < len(b) && b[pos+1] < 0x80 { // fields 16 to 2047
		key := uint64(c&0x7f) | uint64(b[pos+1])<<7
		num, typ, n = protowire.Number(key>>3), protowire.Type(key&7), 2
	} else {
		num, typ, n = protowire.ConsumeTag(b[pos:])
		if n < 0 {
			return false, corruptf(it.base+int64(pos), "malformed field tag: %v", protowire.ParseError(n))
		}
	}
	f.Num, f.Typ = num, typ
	pos += n
	switch typ {
	case protowire.VarintType:
		f.B, f.Off = nil, 0
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
		if n >= 0 && l <= uint64(len(b)-pos-n) {
			start := pos + n
			end := start + int(l)
			f.B, f.Off = b[start:end:end], it.base+int64(start)
			n += int(l)
		} else {
			f.B, n = protowire.ConsumeBytes(b[pos:])
		}
	case protowire.Fixed64Type:
		f.B, f.Off = nil, 0
		f.U, n = protowire.ConsumeFixed64(b[pos:])
	case protowire.Fixed32Type:
		f.B, f.Off = nil, 0
		var v uint32
		v, n = protowire.ConsumeFixed32(b[pos:])
		f.U = uint64(v)
	case protowire.StartGroupType:
		f.U, f.B, f.Off = 0, nil, 0
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

// framer splits a Trace message, a sequence of length-delimited
// TracePacket fields (field 1), into packets. It reads the input in large
// blocks into buf, the buffer of a batch, and hands out the packets as
// slices of it: no copy and no call per byte. A packet that does not fit
// in what remains of a full buffer waits for the next one (more says
// so).
type framer struct {
	r   io.Reader
	buf []byte // buf[pos:] is read and not yet framed
	pos int
	off int64 // input offset of buf[pos]
	// rerr is what ended the reading (io.EOF at the end), once it has.
	rerr error
	// others counts top-level fields other than packets (none in files
	// Perfetto writes).
	others int64
	// cutAt says where the input ended inside a field after whole ones,
	// when it did: the reading ends there as at the end of the input.
	cutAt *cutPoint
}

// cutPoint is where an input ends inside a top-level field: the field's
// offset, and what of it arrived (a head, or a packet's body).
type cutPoint struct {
	start int64
	need  lack
	have  int // the field's bytes present
}

// String words the cut for the trace's notes.
func (c *cutPoint) String() string {
	if c.need.what == "" {
		return fmt.Sprintf("the input ends inside the packet at byte %d (%d bytes announced, %d present)",
			c.start, c.need.body, c.have-(c.need.bytes-int(c.need.body)))
	}
	return fmt.Sprintf("the input ends inside %s at byte %d", c.need.what, c.start)
}

// errMore is what next returns, with nothing consumed, when the next
// packet does not fit in the rest of the buffer, which is full.
var errMore = errors.New("the next packet does not fit in the buffer")

// lack tells what the field at the head of the unframed bytes lacks.
type lack struct {
	what  string // "a field tag", "a length", "a value": a head; "" a packet's body
	bytes int    // the field's bytes at least, counted from its start
	body  uint64 // a packet's announced length, when what is ""
}

// next returns the next packet and the offset of its first byte; io.EOF
// at a clean end of the input. full allows errMore: the caller can take
// the packet in a new buffer, as this one holds packets already.
func (r *framer) next(full bool) ([]byte, int64, error) {
	for {
		data := r.buf[r.pos:]
		start := r.off
		// Inline: a packet (field 1) shorter than 16 KiB, whole in data.
		if len(data) >= 3 && data[0] == 0x0a {
			l, k := int(data[1]), 2
			if l >= 0x80 {
				l, k = l&0x7f|int(data[2])<<7, 3
			}
			if data[k-1] < 0x80 && k+l <= len(data) {
				r.pos += k + l
				r.off += int64(k + l)
				return data[k : k+l : k+l], start + int64(k), nil
			}
		}
		n, body, need, err := frameField(data, start)
		if err != nil {
			return nil, 0, err
		}
		if n == 0 { // the field is not whole in data
			if r.rerr == nil {
				if full && len(r.buf) == cap(r.buf) {
					return nil, 0, errMore
				}
				r.read(need.bytes)
				continue
			}
			return nil, 0, r.cut(start, len(data), need)
		}
		r.pos += n
		r.off += int64(n)
		if body != nil {
			return body, start + int64(n-len(body)), nil
		}
		r.others++
	}
}

// fill reads the head of the input into a new buf: all of it when it
// is shorter than a chunk (rerr then says how the input ended), else a
// chunk's worth, in a buffer of chunkBytes. The buffer starts at the
// size of the file (size, compressed or not), so that a small input
// costs no more than its bytes.
func (r *framer) fill(size int64) {
	r.buf = make([]byte, 0, min(max(size+1, 4096), chunkBytes))
	for r.rerr == nil {
		if len(r.buf) == cap(r.buf) {
			if cap(r.buf) == chunkBytes {
				return
			}
			r.buf = append(make([]byte, 0, min(2*cap(r.buf), chunkBytes)), r.buf...)
		}
		k, err := r.r.Read(r.buf[len(r.buf):cap(r.buf)])
		r.buf = r.buf[:len(r.buf)+k]
		r.rerr = err
	}
}

// read reads more input into buf, making room when it is full: at most
// a megabyte at a time beyond what has arrived, so that a corrupt length
// costs no more memory than the input holds.
func (r *framer) read(want int) {
	if len(r.buf) == cap(r.buf) {
		grow := min(max(want-(len(r.buf)-r.pos), 4096), 1<<20)
		if r.pos > 0 && r.pos >= len(r.buf)/2 { // reuse the framed part
			n := copy(r.buf, r.buf[r.pos:])
			r.buf, r.pos = r.buf[:n], 0
		} else {
			r.buf = slices.Grow(r.buf, grow)
		}
	}
	k, err := r.r.Read(r.buf[len(r.buf):cap(r.buf)])
	r.buf = r.buf[:len(r.buf)+k]
	if err != nil {
		r.rerr = err
	}
}

// cut words the end of the input inside the field at start, of which
// have bytes arrived. An input that ends (io.EOF, io.ErrUnexpectedEOF)
// after whole packets was cut, as when the tracing service, or a copy of
// its file, stopped abruptly: the reading ends there (io.EOF), as in
// Perfetto's trace processor, and r.cutAt says where. One that ends inside
// its first field is no trace, and one whose reading failed fails.
func (r *framer) cut(start int64, have int, need lack) error {
	err := r.rerr
	ended := err == io.EOF || err == io.ErrUnexpectedEOF
	switch {
	case need.what == "a field tag" && have == 0 && err == io.EOF:
		return io.EOF
	case ended && start > 0:
		r.cutAt = &cutPoint{start: start, need: need, have: have}
		return io.EOF
	case ended && need.what == "":
		return corruptf(start, "truncated packet: %d bytes announced, %d present", need.body, have-(need.bytes-int(need.body)))
	case ended:
		return corruptf(start, "truncated trace: the input ends inside %s", need.what)
	}
	return err
}

// frameField reads the top-level field at the head of data, at input
// offset start: it returns the field's length n and, for a packet, its
// body; n == 0 when data does not hold the whole field, and need says
// what is missing.
func frameField(data []byte, start int64) (n int, body []byte, need lack, err error) {
	key, k, err := headVarint(data, start, "a field tag")
	if err != nil || k == 0 {
		return 0, nil, lack{what: "a field tag", bytes: len(data) + 1}, err
	}
	num, typ := protowire.Number(key>>3), protowire.Type(key&7)
	if num < 1 || num > protowire.MaxValidNumber {
		return 0, nil, lack{}, corruptf(start, "invalid field number %d in the trace (not a Perfetto protobuf trace?)", num)
	}
	switch typ {
	case protowire.BytesType:
		l, m, err := headVarint(data[k:], start, "a length")
		if err != nil || m == 0 {
			return 0, nil, lack{what: "a length", bytes: len(data) + 1}, err
		}
		if l > maxPacket {
			return 0, nil, lack{}, corruptf(start, "field %d announces %d bytes, more than a trace packet may hold (%d)", num, l, maxPacket)
		}
		end := k + m + int(l)
		if end > len(data) {
			return 0, nil, lack{bytes: end, body: l}, nil
		}
		if num == 1 {
			body = data[k+m : end : end]
		}
		return end, body, lack{}, nil
	case protowire.VarintType:
		_, m, err := headVarint(data[k:], start, "a value")
		if err != nil || m == 0 {
			return 0, nil, lack{what: "a value", bytes: len(data) + 1}, err
		}
		return k + m, nil, lack{}, nil
	case protowire.Fixed32Type, protowire.Fixed64Type:
		size := 4
		if typ == protowire.Fixed64Type {
			size = 8
		}
		if k+size > len(data) {
			return 0, nil, lack{what: "a value", bytes: k + size}, nil
		}
		return k + size, nil, lack{}, nil
	}
	return 0, nil, lack{}, corruptf(start, "field %d has the wire type %d, not that of trace packets (not a Perfetto protobuf trace?)", num, typ)
}

// headVarint decodes a varint of a field's head as a byte-by-byte reader
// would: k == 0 when data ends before its last byte; a malformed varint
// (past 64 bits) is an error at start, the field's offset.
func headVarint(data []byte, start int64, what string) (x uint64, k int, err error) {
	var s uint
	for i := 0; i < binary.MaxVarintLen64; i++ {
		if i == len(data) {
			return 0, 0, nil
		}
		b := data[i]
		if b < 0x80 {
			if i == binary.MaxVarintLen64-1 && b > 1 {
				return 0, 0, corruptf(start, "malformed varint in %s", what)
			}
			return x | uint64(b)<<s, i + 1, nil
		}
		x |= uint64(b&0x7f) << s
		s += 7
	}
	return 0, 0, corruptf(start, "malformed varint in %s", what)
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
