package otf2

import (
	"math"
	"os"
	"runtime"
	"sync"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The extent a read ends the trace with (simulator.finish) depends on the
// timestamps only: the time of the first record merged, that of the last
// one, and the clock properties. Probe finds them by walking the event
// files record by record without decoding their bodies (each record but
// the singletons is length-prefixed), on all cores, one file per worker.
// The merge delivers the records by corrected timestamp; when the
// corrected timestamps of every file never decrease (as the raw ones must
// not), its first record is the earliest first record of a file and its
// last the latest last record. When they do decrease (a clock correction
// steeper than the clock), or a file cannot be walked, Probe does not
// guess: the full read reports what it finds.

// fileExtent is what walking one event file found.
type fileExtent struct {
	any         bool // the file has event records
	first, last uint64
	ok          bool // walked to its end, timestamps in order
}

// Probe returns the first and last instants a read of the archive at path
// (the location groups given, all when nil) ends the trace with, reading
// timestamps only. ok is false when it cannot tell exactly.
func Probe(path string, groups []uint32) (start, end trace.Time, ok bool) {
	arch, err := open(path)
	if err != nil {
		return 0, 0, false
	}
	if groups != nil && arch.selectGroups(groups) != nil {
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
func (f *eventFile) walk(buf []byte) (fileExtent, []byte) {
	var ext fileExtent
	file, err := os.Open(f.path)
	if err != nil {
		return ext, buf
	}
	defer file.Close()
	clock := clockCorrection{intervals: f.clock.intervals}
	var raw, ticks uint64
	haveTime := false
	for pos := int64(0); pos < f.size; pos += f.chunkSize {
		n := int(min(f.chunkSize, f.size-pos))
		if cap(buf) < n {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		if _, err := file.ReadAt(buf, pos); err != nil {
			return ext, buf
		}
		c := cursor{buf: buf, base: pos}
		if readHeader(&c, true) != nil {
			return ext, buf
		}
	records:
		for {
			kind := c.u8()
			if c.err != nil {
				return ext, buf
			}
			switch kind {
			case endOfChunk:
				break records
			case endOfFile, endOfBuffer:
				ext.ok = true
				return ext, buf
			case chunkHeader:
				return ext, buf
			case timestamp:
				t := c.u64Full()
				if c.err != nil || (haveTime && t < raw) {
					return ext, buf
				}
				raw, ticks, haveTime = t, clock.apply(t), true
				continue
			case attrList:
				c.record(c.length())
				continue
			}
			if !haveTime {
				return ext, buf
			}
			if singleton(kind) {
				c.u64()
			} else {
				c.record(c.length())
			}
			if c.err != nil {
				return ext, buf
			}
			switch {
			case !ext.any:
				ext.any, ext.first, ext.last = true, ticks, ticks
			case ticks < ext.last:
				return ext, buf // the merge would not end with the latest
			default:
				ext.last = ticks
			}
		}
	}
	return ext, buf // no end-of-file marker: the read fails
}
