package otf2

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The encoding of messages, to ship the unmatched ends of a part read in
// another process (a cluster's worker) to where they are matched:
//
//	magic     "OTF2MSG\x01"
//	keys      uvarint, then each key, in increasing order (sender,
//	          receiver, communicator, tag), none without ends:
//	  from, to, comm, tag   uvarint each
//	  sends, recvs          uvarint each: the number of ends
//	  the sends' ends, then the receives', each:
//	    time   varint, the difference with the previous end's of the list
//	    size   uvarint
//	    offset varint, the difference with the previous end's of the list
//
// An end's location is not stored: a send lies on the key's sender, a
// receive on its receiver. The times and record offsets of a location
// grow, so their differences take a byte or two: an end costs about 10
// bytes, against 40 in memory. The encoding is canonical: the same
// messages always give the same bytes (a cluster may compute a part
// twice and compare).

const messagesMagic = "OTF2MSG\x01"

// minEndBytes is the least an encoded end takes: three varints.
const minEndBytes = 3

// AppendBinary appends the encoding of m to b (encoding.BinaryAppender).
func (m *messages) AppendBinary(b []byte) ([]byte, error) {
	b = append(b, messagesMagic...)
	var keys []messageKey
	if m != nil {
		for k, e := range m.ends {
			if len(e.sends)+len(e.recvs) > 0 {
				keys = append(keys, k)
			}
		}
	}
	slices.SortFunc(keys, compareKeys)
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for _, k := range keys {
		e := m.ends[k]
		b = binary.AppendUvarint(b, uint64(k.from))
		b = binary.AppendUvarint(b, uint64(k.to))
		b = binary.AppendUvarint(b, uint64(k.comm))
		b = binary.AppendUvarint(b, uint64(k.tag))
		b = binary.AppendUvarint(b, uint64(len(e.sends)))
		b = binary.AppendUvarint(b, uint64(len(e.recvs)))
		b = appendEnds(b, e.sends)
		b = appendEnds(b, e.recvs)
	}
	return b, nil
}

// MarshalBinary encodes m (encoding.BinaryMarshaler).
func (m *messages) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

func appendEnds(b []byte, ends []messageEnd) []byte {
	var t trace.Time
	var off int64
	for _, e := range ends {
		// Differences wrap around in 64 bits: any value decodes back.
		b = binary.AppendVarint(b, int64(uint64(e.time)-uint64(t)))
		b = binary.AppendUvarint(b, e.size)
		b = binary.AppendVarint(b, int64(uint64(e.offset)-uint64(off)))
		t, off = e.time, e.offset
	}
	return b
}

// unmarshalMessages decodes what MarshalBinary encoded. Input cut short,
// altered or of another kind is an *errs.FormatError whose Offset is the
// byte where decoding failed.
func unmarshalMessages(data []byte) (*messages, error) {
	d := &messageDecoder{data: data}
	if len(data) < len(messagesMagic) || string(data[:len(messagesMagic)]) != messagesMagic {
		return nil, d.fail("not encoded OTF2 messages (no %q header)", messagesMagic)
	}
	d.pos = len(messagesMagic)
	n := d.uvarint("number of keys", uint64(len(data)))
	m := &messages{ends: make(map[messageKey]*keyEnds, n)}
	var prev messageKey
	for i := range n {
		at := d.pos
		k := messageKey{
			from: int32(d.uvarint("sender", math.MaxInt32)),
			to:   int32(d.uvarint("receiver", math.MaxInt32)),
			comm: uint32(d.uvarint("communicator", math.MaxUint32)),
			tag:  uint32(d.uvarint("tag", math.MaxUint32)),
		}
		// At most the ends the bytes left can hold: no allocation larger
		// than the input.
		room := uint64(len(data)-d.pos) / minEndBytes
		sends := d.uvarint("number of sends", room)
		recvs := d.uvarint("number of receives", room-sends)
		if d.err != nil {
			return nil, d.err
		}
		if i > 0 && compareKeys(prev, k) >= 0 {
			d.pos = at
			return nil, d.fail("message key (%d, %d, %d, %d) out of order", k.from, k.to, k.comm, k.tag)
		}
		if sends+recvs == 0 {
			d.pos = at
			return nil, d.fail("message key (%d, %d, %d, %d) without ends", k.from, k.to, k.comm, k.tag)
		}
		prev = k
		e := &keyEnds{sends: d.ends(sends, k.from), recvs: d.ends(recvs, k.to)}
		if d.err != nil {
			return nil, d.err
		}
		m.ends[k] = e
	}
	if d.err != nil {
		return nil, d.err
	}
	if d.pos != len(data) {
		return nil, d.fail("%d bytes after the last message key", len(data)-d.pos)
	}
	return m, nil
}

// messageDecoder reads the encoding of messages; the first error sticks.
type messageDecoder struct {
	data []byte
	pos  int
	err  error
}

func (d *messageDecoder) fail(format string, args ...any) error {
	if d.err == nil {
		d.err = &errs.FormatError{File: "encoded OTF2 messages", AtOffset: true, Offset: int64(d.pos),
			Err: fmt.Errorf(format, args...)}
	}
	return d.err
}

var errTruncated = errors.New("cut short")

// uvarint reads an unsigned varint no larger than limit.
func (d *messageDecoder) uvarint(what string, limit uint64) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.data[d.pos:])
	if !d.whole(what, n) {
		return 0
	}
	if v > limit {
		d.fail("%s %d: more than %d", what, v, limit)
		return 0
	}
	d.pos += n
	return v
}

// varint reads a signed varint.
func (d *messageDecoder) varint(what string) int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.data[d.pos:])
	if !d.whole(what, n) {
		return 0
	}
	d.pos += n
	return v
}

// whole reports whether the varint at d.pos was read whole, given n as
// binary.Uvarint and binary.Varint return it, and records the error when
// not: n is 0 when the data ends inside it, negative when it overflows 64
// bits. The error is at the varint's first byte.
func (d *messageDecoder) whole(what string, n int) bool {
	switch {
	case n == 0:
		d.fail("%s: %w", what, errTruncated)
		return false
	case n < 0:
		d.fail("%s: varint overflows 64 bits", what)
		return false
	}
	return true
}

// ends reads n ends on location loc.
func (d *messageDecoder) ends(n uint64, loc int32) []messageEnd {
	if d.err != nil || n == 0 {
		return nil
	}
	out := make([]messageEnd, n)
	var t, off uint64
	for i := range out {
		t += uint64(d.varint("time"))
		size := d.uvarint("size", math.MaxUint64)
		off += uint64(d.varint("record offset"))
		out[i] = messageEnd{time: trace.Time(t), size: size, loc: loc, offset: int64(off)}
	}
	return out
}
