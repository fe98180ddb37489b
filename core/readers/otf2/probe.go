package otf2

import (
	"math"
	"os"
	"runtime"
	"sync"

	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The extent a read ends the trace with (simulator.finish) depends on the
// timestamps only: the time of the first record merged, that of the last
// one, and the clock properties. probe finds them by walking the event
// files record by record without decoding their bodies (each record but
// the singletons is length-prefixed), on all cores, one file per worker.
// The merge delivers the records by corrected timestamp; when the
// corrected timestamps of every file never decrease (as the raw ones must
// not), its first record is the earliest first record of a file and its
// last the latest last record. When they do decrease (a clock correction
// steeper than the clock), or a file cannot be walked, probe does not
// guess: the full read reports what it finds.

// fileExtent is what walking one event file found.
type fileExtent struct {
	any         bool // the file has event records
	first, last uint64
	ok          bool // walked to its end, timestamps in order
}

// probe returns the first and last instants a read of the archive at path
// (the location groups given, all when nil) ends the trace with, reading
// timestamps only. ok is false when it cannot tell exactly.
func probe(path string, groups []uint32) (start, end trace.Time, ok bool) {
	arch, err := openGroups(path, groups, nil)
	if err != nil {
		return 0, 0, false
	}
	return arch.probe()
}

func (arch *archive) probe() (start, end trace.Time, ok bool) {
	exts := make([]fileExtent, len(arch.streams))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(arch.streams)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for i := range jobs {
				exts[i], buf = arch.streams[i].file.walk(buf)
			}
		}()
	}
	for i := range arch.streams {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	var first, last uint64 = math.MaxUint64, 0
	seen := false
	for _, e := range exts {
		if !e.ok {
			return 0, 0, false
		}
		if e.any {
			seen = true
			first, last = min(first, e.first), max(last, e.last)
		}
	}
	if seen {
		// Both converted without error by the read itself, else it fails.
		s, ok1 := arch.tb.toTime(first)
		e, ok2 := arch.tb.toTime(last)
		if !ok1 || !ok2 {
			return 0, 0, false
		}
		start, end = min(0, s), e
	}
	if clk := arch.defs.clock; clk.length <= math.MaxUint64-clk.offset {
		if t, ok := arch.tb.toTime(clk.offset + clk.length); ok {
			end = max(end, t)
		}
	}
	return start, end, true
}

// walk reads the event file's timestamps, skipping the records' bodies,
// and returns the corrected timestamps of its first and last event
// records. buf is scratch space, returned possibly grown.
//
// Without clock corrections a timestamp is the one written, which never
// decreases (the read fails otherwise): the first chunks up to the first
// event record and the last chunks back to the last one are enough, when
// the last chunk read starts with a timestamp (OTF2's writer starts
// every chunk with one). Otherwise every chunk is walked.
func (f *eventFile) walk(buf []byte) (fileExtent, []byte) {
	var ext fileExtent
	file, err := ingest.OpenIn(f.dir, f.path)
	if err != nil {
		return ext, buf
	}
	defer file.Close()
	chunks := (f.size + f.chunkSize - 1) / f.chunkSize
	if len(f.clock.intervals) == 0 && chunks > 2 {
		var ok bool
		if ext, buf, ok = f.walkEnds(file, buf, chunks); ok {
			return ext, buf
		}
	}
	w := walker{clock: clockCorrection{intervals: f.clock.intervals}}
	for k := range chunks {
		var end int
		if buf, end = w.chunk(f, file, buf, k, false); end != chunkDone {
			if end == fileDone {
				w.ext.ok = true
			}
			return w.ext, buf
		}
	}
	return w.ext, buf // no end-of-file marker: the read fails
}

// walkEnds finds the first and last event records of a file whose
// timestamps are the ones written, from its first and last chunks; ok is
// false when they do not tell.
func (f *eventFile) walkEnds(file *os.File, buf []byte, chunks int64) (fileExtent, []byte, bool) {
	first := walker{}
	k := int64(0)
	for ; k < chunks; k++ {
		var end int
		buf, end = first.chunk(f, file, buf, k, true)
		if end == fileDone {
			first.ext.ok = true
			return first.ext, buf, true // no event record at all
		}
		if end == stopped {
			break
		}
		if end != chunkDone {
			return fileExtent{}, buf, false
		}
	}
	for last := chunks - 1; last > k; last-- {
		w := walker{} // an event record before its first timestamp: unknown time
		var end int
		buf, end = w.chunk(f, file, buf, last, false)
		if end != chunkDone && end != fileDone || (end == fileDone) != (last == chunks-1) {
			return fileExtent{}, buf, false
		}
		if w.ext.any {
			return fileExtent{any: true, first: first.ext.first, last: w.ext.last, ok: true}, buf, true
		}
	}
	return fileExtent{}, buf, false
}

// How a walk through a chunk ends.
const (
	chunkDone = iota // at its end-of-chunk marker
	fileDone         // at the file's end-of-file marker
	stopped          // at the first event record, as asked
	failed           // the read fails, or the walk cannot tell
)

// walker walks event records, keeping the latest timestamp.
type walker struct {
	clock      clockCorrection
	raw, ticks uint64
	haveTime   bool
	ext        fileExtent
}

// chunk walks chunk k of the file, up to the first event record if
// first.
func (w *walker) chunk(f *eventFile, file *os.File, buf []byte, k int64, first bool) ([]byte, int) {
	pos := k * f.chunkSize
	n := int(min(f.chunkSize, f.size-pos))
	if cap(buf) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := file.ReadAt(buf, pos); err != nil {
		return buf, failed
	}
	c := cursor{buf: buf, base: pos}
	if readHeader(&c, true) != nil {
		return buf, failed
	}
	for {
		kind := c.u8()
		if c.err != nil {
			return buf, failed
		}
		switch kind {
		case endOfChunk:
			return buf, chunkDone
		case endOfFile, endOfBuffer:
			return buf, fileDone
		case chunkHeader:
			return buf, failed
		case timestamp:
			t := c.u64Full()
			if c.err != nil || (w.haveTime && t < w.raw) {
				return buf, failed
			}
			w.raw, w.ticks, w.haveTime = t, w.clock.apply(t), true
			continue
		case attrList:
			c.record(c.length())
			continue
		}
		if !w.haveTime {
			return buf, failed // an error for the read, an unknown time within the file
		}
		if singleton(kind) {
			c.u64()
		} else {
			c.record(c.length())
		}
		if c.err != nil {
			return buf, failed
		}
		switch {
		case !w.ext.any:
			w.ext.any, w.ext.first, w.ext.last = true, w.ticks, w.ticks
			if first {
				return buf, stopped
			}
		case w.ticks < w.ext.last:
			return buf, failed // the merge would not end with the latest
		default:
			w.ext.last = w.ticks
		}
	}
}

// window guesses the first and last instants a read of the archive at
// path (the location groups given, all when nil) ends the trace with,
// from its definitions alone: the clock properties' global offset (time
// 0) and trace length, which the writers of OTF2 set to the span of the
// records. It reads no event file, so it is a guess: clock corrections or
// a writer that leaves records out of that span make it wrong, which the
// model's read detects (micro.ErrWindow) and corrects. ok is false when
// the clock properties give no length.
func window(path string, groups []uint32) (start, end trace.Time, ok bool) {
	arch, err := openGroups(path, groups, nil)
	if err != nil {
		return 0, 0, false
	}
	return arch.window()
}

func (arch *archive) window() (start, end trace.Time, ok bool) {
	clk := arch.defs.clock
	if clk.length == 0 || clk.length > math.MaxUint64-clk.offset {
		return 0, 0, false
	}
	end, ok = arch.tb.toTime(clk.offset + clk.length)
	return 0, end, ok
}
