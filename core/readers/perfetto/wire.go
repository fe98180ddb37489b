package perfetto

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/klauspost/compress/zstd"
	"github.com/macroscope-hpc/macroscope/core/readers/pbwalk"
	"google.golang.org/protobuf/encoding/protowire"
)

// maxPacket bounds the length a packet may announce: Perfetto's writers
// keep packets far below it, so a larger length is a corrupt file, not a
// reason to allocate gigabytes.
const maxPacket = 256 << 20

// maxInflated bounds what one compressed_packets field may expand to
// (Perfetto writes them under 512 KB compressed).
const maxInflated = 64 << 20

// field is the protobuf walker's field, under the short name the
// decoders use.
type field = pbwalk.Field

// uints calls fn for each value of a repeated integer field, packed (one
// length-delimited field) or not; fixed tells fixed64 from varint encoding.
func uints(f field, fixed bool, fn func(v uint64)) error {
	if f.IsScalar() {
		fn(f.U)
		return nil
	}
	if !f.IsBytes() {
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
			return pbwalk.Corruptf(f.Off+int64(len(f.B)-len(b)), "malformed packed field %d: %v", f.Num, protowire.ParseError(n))
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
		return pbwalk.Corruptf(start, "truncated packet: %d bytes announced, %d present", need.body, have-(need.bytes-int(need.body)))
	case ended:
		return pbwalk.Corruptf(start, "truncated trace: the input ends inside %s", need.what)
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
		return 0, nil, lack{}, pbwalk.Corruptf(start, "invalid field number %d in the trace (not a Perfetto protobuf trace?)", num)
	}
	switch typ {
	case protowire.BytesType:
		l, m, err := headVarint(data[k:], start, "a length")
		if err != nil || m == 0 {
			return 0, nil, lack{what: "a length", bytes: len(data) + 1}, err
		}
		if l > maxPacket {
			return 0, nil, lack{}, pbwalk.Corruptf(start, "field %d announces %d bytes, more than a trace packet may hold (%d)", num, l, maxPacket)
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
	return 0, nil, lack{}, pbwalk.Corruptf(start, "field %d has the wire type %d, not that of trace packets (not a Perfetto protobuf trace?)", num, typ)
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
				return 0, 0, pbwalk.Corruptf(start, "malformed varint in %s", what)
			}
			return x | uint64(b)<<s, i + 1, nil
		}
		x |= uint64(b&0x7f) << s
		s += 7
	}
	return 0, 0, pbwalk.Corruptf(start, "malformed varint in %s", what)
}

// inflate expands a compressed_packets (zlib) or zstd_compressed_packets
// field into the Trace message it holds.
func inflate(f field, zstdData bool) ([]byte, error) {
	var rd io.Reader
	if zstdData {
		zr, err := zstd.NewReader(bytes.NewReader(f.B), zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, pbwalk.Corruptf(f.Off, "broken zstd compressed packets: %v", err)
		}
		defer zr.Close()
		rd = zr
	} else {
		zr, err := zlib.NewReader(bytes.NewReader(f.B))
		if err != nil {
			return nil, pbwalk.Corruptf(f.Off, "broken compressed packets: %v", err)
		}
		defer zr.Close()
		rd = zr
	}
	out, err := io.ReadAll(io.LimitReader(rd, maxInflated+1))
	if err != nil {
		return nil, pbwalk.Corruptf(f.Off, "broken compressed packets: %v", err)
	}
	if len(out) > maxInflated {
		return nil, pbwalk.Corruptf(f.Off, "compressed packets expand past %d bytes", maxInflated)
	}
	return out, nil
}
