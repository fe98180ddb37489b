package otf2

import (
	"encoding/binary"
	"io"
	"math"
	"os"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// record is one decoded event record of a location. Which fields are set
// depends on the kind; IDs are already mapped to global definitions.
type record struct {
	ticks  uint64     // timestamp on the global clock (clock offsets applied)
	time   trace.Time // the same, in nanoseconds since the global offset
	offset int64      // file offset of the record's type byte
	size   uint64     // MPI point-to-point: message length; collective: bytes sent
	ref    uint32     // Enter/Leave: region; MPI: communicator; Metric: metric; Parameter*: parameter; ProgramBegin: name
	peer   uint32     // MPI point-to-point: rank of the other side; collective: root rank
	tag    uint32     // MPI point-to-point: tag; collective: operation; MeasurementOnOff: mode
	first  uint32     // Metric: index of the first value in batch.values
	n      uint8      // Metric: number of values
	kind   uint8
}

// batch is a run of consecutive records of one location.
type batch struct {
	records []record
	values  []float64 // metric values of the records
	bytes   int64     // input bytes consumed, for progress reports
	err     error     // decoding stopped here with this error
	done    bool      // the location has no records after these
}

func (b *batch) reset() {
	b.records, b.values = b.records[:0], b.values[:0]
	b.bytes, b.err, b.done = 0, nil, false
}

// eventFile decodes a location's event file a batch at a time, keeping
// only its position between batches: the file is reopened for each batch,
// so any number of locations can be read without holding their files or
// chunks in memory.
type eventFile struct {
	path      string
	dir       string // the archive's directory, which path must stay in
	size      int64
	chunkSize int64
	maps      *[mapTypes]*idMap
	clock     clockCorrection
	tb        timeBase
	window    int // bytes read at first for a batch; readWindow if 0
	// file, if not nil, is the event file kept open between batches (a
	// location read alone); fill opens it for each batch otherwise.
	file *os.File

	pos      int64  // next byte to decode
	chunkEnd int64  // end of the current chunk, 0 before its header is read
	big      bool   // byte order of the current chunk
	raw      uint64 // latest timestamp as written
	ticks    uint64 // the same, clock offsets applied
	time     trace.Time
	haveTime bool
	done     bool
}

// readWindow is how much of a chunk a batch reads at first. A record that
// does not fit (large metric or attribute lists) makes it grow.
const readWindow = 64 << 10

// fill decodes the next records of the file into b, at most max of them.
// buf is scratch space, returned possibly grown.
func (f *eventFile) fill(b *batch, max int, buf []byte) []byte {
	b.reset()
	file := f.file
	if file == nil {
		var err error
		if file, err = ingest.OpenIn(f.dir, f.path); err != nil {
			b.err = &errs.FormatError{File: f.path, Err: err}
			return buf
		}
		defer file.Close()
	}
	window := f.window
	if window <= 0 {
		window = readWindow
	}
	for len(b.records) < max && !f.done && b.err == nil {
		if f.chunkEnd == 0 && !f.startChunk(file, b) {
			break
		}
		n := int(min(int64(window), f.chunkEnd-f.pos))
		if cap(buf) < n {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		if _, err := file.ReadAt(buf, f.pos); err != nil {
			b.err = &errs.FormatError{File: f.path, AtOffset: true, Offset: f.pos, Err: err}
			break
		}
		window = f.decodeWindow(buf, b, max, window)
	}
	return buf
}

// decodeWindow decodes records from buf, which holds the file from f.pos
// on, without going past the current chunk. It returns the window size for
// the next read: larger when a record did not fit at all.
func (f *eventFile) decodeWindow(buf []byte, b *batch, max, window int) int {
	c := cursor{buf: buf, base: f.pos, big: f.big}
	whole := f.pos+int64(len(buf)) == f.chunkEnd // the window reaches the chunk's end
	for len(b.records) < max {
		if !c.big && f.haveTime {
			f.decodeCommon(&c, b, max)
			if len(b.records) >= max {
				break
			}
		}
		start := c.pos
		next := f.decode(&c, b)
		if c.err != nil {
			if c.err.short && !whole { // the record continues beyond the window
				c.pos, c.err = start, nil
				if start == 0 {
					window *= 2
				}
				break
			}
			msg := c.err.msg
			if c.err.short && f.chunkEnd == f.size {
				msg = "file ends before its end-of-file marker (truncated?): " + msg
			}
			b.err = &errs.FormatError{File: f.path, AtOffset: true, Offset: c.err.offset, Err: errorString(msg)}
			return window
		}
		switch next {
		case nextChunk: // the rest of the chunk is padding
			b.bytes += f.chunkEnd - f.pos
			f.pos, f.chunkEnd = f.chunkEnd, 0
			return window
		case noMore: // what follows are closing markers
			f.done, b.done = true, true
			b.bytes += f.size - f.pos
			f.pos = f.size
			return window
		}
	}
	b.bytes += int64(c.pos)
	f.pos += int64(c.pos)
	return window
}

// startChunk reads the header of the chunk at f.pos.
func (f *eventFile) startChunk(file *os.File, b *batch) bool {
	if f.pos >= f.size {
		b.err = &errs.FormatError{File: f.path, AtOffset: true, Offset: f.size, Err: errorString("file ends without an end-of-file marker (truncated?)")}
		return false
	}
	var head [chunkHeaderSize]byte
	n, err := file.ReadAt(head[:], f.pos)
	if err != nil && err != io.EOF {
		b.err = &errs.FormatError{File: f.path, AtOffset: true, Offset: f.pos, Err: err}
		return false
	}
	c := cursor{buf: head[:n], base: f.pos}
	if derr := readHeader(&c, true); derr != nil {
		b.err = &errs.FormatError{File: f.path, AtOffset: true, Offset: derr.offset, Err: errorString(derr.msg)}
		return false
	}
	f.big = c.big
	f.chunkEnd = min(f.pos+f.chunkSize, f.size)
	f.pos += chunkHeaderSize
	b.bytes += chunkHeaderSize
	return true
}

// What follows a decoded record.
const (
	sameChunk = iota // more records
	nextChunk        // the end of the chunk: the rest is padding
	noMore           // the end of the file
)

// decode decodes one record at c: a marker, a timestamp, an attribute list
// (skipped) or an event record, which it appends to b. It tells where the
// next record is. On a problem it leaves c.err set and b unchanged.
func (f *eventFile) decode(c *cursor, b *batch) int {
	at := c.offset()
	kind := c.u8()
	if c.err != nil {
		return sameChunk
	}
	switch kind {
	case endOfChunk:
		return nextChunk
	case endOfFile, endOfBuffer:
		return noMore
	case chunkHeader:
		c.pos--
		c.fail(false, "chunk header inside a chunk")
		return sameChunk
	case timestamp:
		f.setTime(c)
		return sameChunk
	case attrList:
		c.record(c.length()) // attributes of the next event are not used
		return sameChunk
	}
	if !f.haveTime {
		c.pos--
		c.fail(false, "%s record before any timestamp", eventName(kind))
		return sameChunk
	}
	r := record{kind: kind, offset: at, ticks: f.ticks, time: f.time}
	if singleton(kind) {
		v := c.u64()
		if kind == evEnter || kind == evLeave {
			switch {
			case c.err != nil:
			case v == math.MaxUint64:
				// The singleton is read at 64 bits, where OTF2's mark of
				// an undefined value (one byte 0xff) is 2^64-1.
				c.fail(false, "%s of the undefined region (OTF2_UNDEFINED_REGION)", eventName(kind))
			case v > math.MaxUint32:
				c.fail(false, "region ID %d does not fit 32 bits", v)
			}
			r.ref = f.mapped(mapRegion, uint32(v))
		}
		if c.err == nil {
			b.records = append(b.records, r)
		}
		return sameChunk
	}
	body := c.record(c.length())
	if c.err != nil {
		return sameChunk
	}
	nvalues := len(b.values)
	f.decodeAttributes(&body, &r, b)
	if body.err != nil {
		b.values = b.values[:nvalues]
		c.err = body.recordErr(eventName(kind))
		return sameChunk
	}
	b.records = append(b.records, r)
	return sameChunk
}

// decodeCommon decodes the records most archives are made of (timestamps,
// Enter and Leave) as long as they come, without the cursor's checks per
// field: each record is checked to lie whole in the window first. It
// stops before any other record, a record that may not lie whole in the
// window, and anything the cursor must report (a timestamp going back),
// leaving them to decode. The chunk is little-endian and a timestamp has
// been seen.
func (f *eventFile) decodeCommon(c *cursor, b *batch, max int) {
	buf, p := c.buf, c.pos
	recs := b.records
	noClock := len(f.clock.intervals) == 0
	for len(recs) < max && p+10 <= len(buf) { // 10: the longest record here
		switch kind := buf[p]; kind {
		case timestamp:
			t := binary.LittleEndian.Uint64(buf[p+1:])
			if t < f.raw || !noClock {
				c.pos, b.records = p, recs
				return
			}
			tm, ok := f.tb.toTime(t)
			if !ok {
				c.pos, b.records = p, recs
				return
			}
			f.raw, f.ticks, f.time = t, t, tm
			p += 9
		case evEnter, evLeave:
			n := int(buf[p+1])
			if n > 4 { // larger region IDs (and 0xff) take the careful way
				c.pos, b.records = p, recs
				return
			}
			var v uint64
			for i := n - 1; i >= 0; i-- {
				v = v<<8 | uint64(buf[p+2+i])
			}
			recs = append(recs, record{kind: kind, offset: c.base + int64(p), ticks: f.ticks, time: f.time,
				ref: f.mapped(mapRegion, uint32(v))})
			p += 2 + n
		default:
			c.pos, b.records = p, recs
			return
		}
	}
	c.pos, b.records = p, recs
}

// setTime reads a timestamp record and converts the time once for all the
// records that share it.
func (f *eventFile) setTime(c *cursor) {
	at := c.pos - 1
	t := c.u64Full()
	if c.err != nil {
		return
	}
	if f.haveTime && t < f.raw {
		c.pos = at
		c.fail(false, "timestamp %d is earlier than the previous one (%d)", t, f.raw)
		return
	}
	ticks := f.clock.apply(t)
	tm, ok := f.tb.toTime(ticks)
	if !ok {
		c.pos = at
		c.fail(false, "timestamp %d is more than 292 years away from the global offset %d", ticks, f.tb.offset)
		return
	}
	if f.haveTime && ticks < f.ticks {
		// Offsets falling faster than the clock runs: no time order
		// survives them, and states would end before they begin.
		c.pos = at
		c.fail(false, "the location's clock offsets move timestamp %d to %d ticks, before the previous one (%d)", t, ticks, f.ticks)
		return
	}
	f.raw, f.ticks, f.time, f.haveTime = t, ticks, tm, true
}

// decodeAttributes reads the attributes the reader uses; the rest of the
// record, including attributes added by later OTF2 versions, is skipped.
func (f *eventFile) decodeAttributes(r *cursor, rec *record, b *batch) {
	switch rec.kind {
	case evMpiSend, evMpiIsend, evMpiRecv, evMpiIrecv:
		rec.peer = r.u32()
		rec.ref = f.mapped(mapComm, r.u32())
		rec.tag = r.u32()
		rec.size = r.u64()
	case evMpiCollectiveEnd:
		rec.tag = uint32(r.u8())
		rec.ref = f.mapped(mapComm, r.u32())
		rec.peer = r.u32()
		rec.size = r.u64()
	case evMetric:
		rec.ref = f.mapped(mapMetric, r.u32())
		rec.n = r.u8()
		rec.first = uint32(len(b.values))
		for range rec.n {
			typ := r.u8()
			if r.err == nil && typ != typeUint64 && typ != typeInt64 && typ != typeDouble {
				r.pos--
				r.fail(false, "metric value of unknown type %d", typ)
			}
			v := metricValue(typ, r.u64())
			if r.err != nil {
				return
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				r.fail(false, "metric value %v is not a finite number", v)
				return
			}
			b.values = append(b.values, v)
		}
	case evParameterString, evParameterInt, evParameterUnsignedInt:
		rec.ref = f.mapped(mapParameter, r.u32())
	case evProgramBegin:
		rec.ref = f.mapped(mapString, r.u32())
	case evMeasurementOnOff:
		rec.tag = uint32(r.u8())
	}
}

// metricValue interprets the bits of a metric value by its type.
func metricValue(typ uint8, bits uint64) float64 {
	switch typ {
	case typeInt64:
		return float64(int64(bits))
	case typeDouble:
		return math.Float64frombits(bits)
	}
	return float64(bits)
}

func (f *eventFile) mapped(kind int, id uint32) uint32 {
	return uint32(f.maps[kind].global(uint64(id)))
}

func eventName(kind uint8) string {
	if n := recordName(kind); n != "" {
		return n
	}
	return "event type " + itoa(uint64(kind))
}
