package hpctoolkit

import (
	"encoding/binary"
	"io"
)

// traceLine is a trace.db Context Trace Header: the profile whose samples
// it holds and where its (timestamp, context) records are.
type traceLine struct {
	prof       uint32
	start, end uint64 // file offsets of the first record and past the last
	at         uint64 // offset of the header, for errors
}

func (l traceLine) records() uint64 { return (l.end - l.start) / recordSize }

// traceDB is the directory of trace.db.
type traceDB struct {
	lines    []traceLine
	min, max uint64 // smallest and largest timestamps of all lines
	empty    bool   // no line has a sample (min > max)
}

const (
	recordSize  = 12 // u64 timestamp, u32 context identifier
	szTraceHdr4 = 0x18
)

// decodeTraceHeaders reads the Context Trace Headers section of trace.db
// and checks that every line lies in the file and holds whole records.
func decodeTraceHeaders(r io.ReaderAt, size int64, file string) (*traceDB, error) {
	if err := checkFooter(r, size, file, "trace.db"); err != nil {
		return nil, err
	}
	b, err := readBlob(r, size, file, 0, min(uint64(size), 0x20))
	if err != nil {
		return nil, err
	}
	h := readHeader(b, uint64(size), "trce", 1)
	if b.err != nil {
		return nil, b.err
	}
	s := h.sections[0]
	if s.size < 0x20 {
		return nil, b.failed(0x10, "the Context Trace Headers section is too small (%d bytes)", s.size)
	}
	sb, err := readBlob(r, size, file, s.ptr, s.size)
	if err != nil {
		return nil, err
	}
	pTraces := sb.u64(s.ptr, "the trace headers pointer")
	n := uint64(sb.u32(s.ptr+8, "the number of traces"))
	stride := uint64(sb.u8(s.ptr+0x0c, "the trace header size"))
	t := &traceDB{min: sb.u64(s.ptr+0x10, ""), max: sb.u64(s.ptr+0x18, "")}
	if !sb.array(pTraces, n, stride, szTraceHdr4, "the trace headers") {
		return nil, sb.err
	}
	for i := range n {
		at := pTraces + i*stride
		l := traceLine{prof: sb.u32(at, ""), start: sb.u64(at+8, ""), end: sb.u64(at+0x10, ""), at: at}
		switch {
		case l.start > l.end:
			return nil, sb.failed(at, "trace line %d ends (offset %d) before it starts (offset %d)", i, l.end, l.start)
		case l.end > uint64(size):
			return nil, sb.failed(at, "trace line %d ends at offset %d, past the file's %d bytes: the file is truncated or corrupt", i, l.end, size)
		case (l.end-l.start)%recordSize != 0:
			return nil, sb.failed(at, "trace line %d holds %d bytes, not a whole number of %d-byte records", i, l.end-l.start, recordSize)
		}
		t.lines = append(t.lines, l)
	}
	// Databases without samples carry the sentinels min = 2^63-1 and
	// max = 2^63; no real timestamp comes near them.
	t.empty = t.min > t.max || t.max >= 1<<63
	return t, nil
}

// chunkRecords is how many records a line is read by at a time.
const chunkRecords = 1 << 14

// scanLine calls fn with each record of line l in order, reading it by
// chunks into buf (grown as needed, returned for the next line). fn
// returning an error stops the scan.
func scanLine(r io.ReaderAt, file string, l traceLine, buf []byte, fn func(ts uint64, ctx uint32) error) ([]byte, error) {
	if want := min(l.end-l.start, chunkRecords*recordSize); uint64(len(buf)) < want {
		buf = make([]byte, want)
	}
	for off := l.start; off < l.end; {
		n := min(uint64(len(buf)), l.end-off)
		if _, err := r.ReadAt(buf[:n], int64(off)); err != nil {
			return buf, (&blob{file: file}).failed(off, "%v", err)
		}
		for k := uint64(0); k < n; k += recordSize {
			if err := fn(binary.LittleEndian.Uint64(buf[k:]), binary.LittleEndian.Uint32(buf[k+8:])); err != nil {
				return buf, err
			}
		}
		off += n
	}
	return buf, nil
}
