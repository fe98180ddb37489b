package otf2

import (
	"runtime"
	"sync"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
)

// The event files of all locations are decoded in parallel by a pool of
// workers, a batch at a time, and merged into one stream in a deterministic
// order: by timestamp (in ticks, after clock correction), then by location
// in the order of their definitions, then in file order. Each location has
// at most two batches in memory: the one being merged and the next one,
// decoded ahead by a worker.

// stream is one location's event file as the merge sees it.
type stream struct {
	loc   int // index of the location in definition order
	file  *eventFile
	ready chan *batch // the next batch, decoded by a worker
	spare *batch      // the batch a worker fills next
	cur   *batch
	i     int    // next record of cur
	ticks uint64 // its timestamp, kept here for the merge's comparisons
}

// head is the stream's next record.
func (s *stream) head() *record { return &s.cur.records[s.i] }

// before orders streams by their next record. The timestamps compared are
// the streams' own copies: the heap's comparisons then read no record.
func (s *stream) before(t *stream) bool {
	if s.ticks != t.ticks {
		return s.ticks < t.ticks
	}
	return s.loc < t.loc
}

// merger runs the workers and the merge.
type merger struct {
	streams []*stream
	max     int // records per batch
	jobs    chan *stream
	quit    chan struct{}
	wg      sync.WaitGroup
	heap    []*stream
	// progress, if set, learns the input bytes of each batch the merge
	// starts on.
	progress func(bytes int64)
}

// totalBuffered is the number of records held in batches over all
// locations, so that memory hardly grows with the number of locations:
// batches shrink as locations multiply, down to 64 records, still enough to
// amortise reopening the file for each batch.
const totalBuffered = 1 << 17

func newMerger(streams []*stream) *merger {
	perBatch := totalBuffered / (2 * max(len(streams), 1))
	return &merger{
		streams: streams,
		max:     min(max(perBatch, 64), 4096),
		jobs:    make(chan *stream, len(streams)),
		quit:    make(chan struct{}),
	}
}

func (m *merger) worker() {
	defer m.wg.Done()
	var buf []byte
	for {
		select {
		case <-m.quit:
			return
		case s := <-m.jobs:
			b := s.spare
			buf = s.file.fill(b, m.max, buf)
			s.ready <- b
		}
	}
}

// run calls fn for every record of every location, in merge order. fn
// receives the location index, the record and the metric values of its
// batch. run stops at the first error, of decoding or of fn.
func (m *merger) run(fn func(loc int, r *record, values []float64) error) error {
	if len(m.streams) == 1 {
		return m.runOne(fn)
	}
	if len(m.streams) <= keepOpen {
		defer m.keepOpen()()
	}
	workers := min(runtime.GOMAXPROCS(0), len(m.streams))
	m.wg.Add(workers)
	for range workers {
		go m.worker()
	}
	defer func() {
		close(m.quit)
		m.wg.Wait()
	}()
	for _, s := range m.streams {
		s.ready = make(chan *batch, 1)
		s.spare = &batch{}
		m.jobs <- s
	}
	for _, s := range m.streams {
		ok, err := m.next(s)
		if err != nil {
			return err
		}
		if ok {
			m.heap = append(m.heap, s)
		}
	}
	for i := len(m.heap)/2 - 1; i >= 0; i-- {
		m.down(i)
	}
	for len(m.heap) > 0 {
		s := m.heap[0]
		if err := fn(s.loc, s.head(), s.cur.values); err != nil {
			return err
		}
		s.i++
		if s.i < len(s.cur.records) {
			s.ticks = s.cur.records[s.i].ticks
		} else {
			ok, err := m.next(s)
			if err != nil {
				return err
			}
			if !ok {
				last := len(m.heap) - 1
				m.heap[0] = m.heap[last]
				m.heap = m.heap[:last]
			}
		}
		if len(m.heap) > 0 {
			m.down(0)
		}
	}
	return nil
}

// keepOpen is the number of locations up to which their event files are
// opened once for the whole merge, not for each batch: opening a file (its
// path checked inside the archive) costs as much as decoding a few
// thousand records.
const keepOpen = 64

// keepOpen opens the event file of each stream for the merge and returns
// what closes them. A file that does not open is left to each batch, which
// then reports the error where it did before.
func (m *merger) keepOpen() (closeAll func()) {
	var opened []*eventFile
	for _, s := range m.streams {
		if s.file.file != nil {
			continue
		}
		if file, err := ingest.OpenIn(s.file.dir, s.file.path); err == nil {
			s.file.file = file
			opened = append(opened, s.file)
		}
	}
	return func() {
		for _, f := range opened {
			f.file.Close()
			f.file = nil
		}
	}
}

// next makes the stream's next batch current and asks a worker for the one
// after. It reports false when the stream has no more records, and the
// decoding error met at this point of the stream, if any.
func (m *merger) next(s *stream) (bool, error) {
	for {
		if s.cur != nil && (s.cur.err != nil || s.cur.done) {
			return false, s.cur.err
		}
		b := <-s.ready
		if m.progress != nil {
			m.progress(b.bytes)
		}
		s.spare, s.cur, s.i = s.cur, b, 0
		if s.spare == nil {
			s.spare = &batch{}
		}
		if b.err == nil && !b.done {
			m.jobs <- s
		}
		if len(b.records) > 0 {
			s.ticks = b.records[0].ticks
			return true, nil
		}
	}
}

// down restores the heap order below position i.
func (m *merger) down(i int) {
	h := m.heap
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		if r := l + 1; r < len(h) && h[r].before(h[l]) {
			l = r
		}
		if !h[l].before(h[i]) {
			return
		}
		h[i], h[l] = h[l], h[i]
		i = l
	}
}

// oneBatch is the number of records of a batch when a location is read
// alone: no other location waits for it, so larger batches cost nothing
// but amortise more. The file is read a window (readWindow) at a time
// until the batch is full: a larger window would be read again from the
// batch's end for the next batch.
const oneBatch = 1 << 13

// oneSpace is the scratch space of runOne, reused from one location to
// the next: a part of an archive is read after another on each core, and
// allocating a megabyte or two for each would keep the collector busy.
type oneSpace struct {
	b   batch
	buf []byte
}

var onePool = sync.Pool{New: func() any { return &oneSpace{} }}

// runOne is run for a single location (a part of an archive read on its
// own, see readGroups): no merge, so the records are decoded and handed
// over on the calling goroutine, the file kept open.
func (m *merger) runOne(fn func(loc int, r *record, values []float64) error) error {
	s := m.streams[0]
	f := *s.file // the stream's position stays as it was
	file, err := ingest.OpenIn(f.dir, f.path)
	if err != nil {
		return &errs.FormatError{File: f.path, Err: err}
	}
	defer file.Close()
	f.file = file
	sp := onePool.Get().(*oneSpace)
	defer onePool.Put(sp)
	b := &sp.b
	buf := sp.buf
	defer func() { sp.buf = buf }()
	for {
		buf = f.fill(b, oneBatch, buf)
		if m.progress != nil {
			m.progress(b.bytes)
		}
		for i := range b.records {
			if err := fn(s.loc, &b.records[i], b.values); err != nil {
				return err
			}
		}
		if b.err != nil {
			return b.err
		}
		if b.done {
			return nil
		}
	}
}
