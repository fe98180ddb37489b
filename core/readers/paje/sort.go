package paje

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Reading a trace that is not sorted by time (StarPU's FxT conversions
// before starpu_paje_sort, for instance) takes an external sort, since
// such traces may be larger than the memory:
//
//  1. the lines are read in order, the header's event definitions telling
//     where each event keeps its date (the Time field's place differs
//     from one event id to another); each line gets a key: its date, or
//     the least key for the lines that have none (%EventDef blocks, type
//     and value definitions), which thus keep their order before every
//     event. Comments and blank lines are dropped.
//  2. the keyed lines are gathered in runs of at most SortRun bytes,
//     each sorted by key, stably (equal dates keep their order in the
//     file), and written to a temporary file under os.TempDir, or kept
//     in memory while the runs kept there total at most SortMemory bytes
//     (small inputs sorted in small runs need no file);
//  3. the runs are merged (k-way, a heap of their heads; ties go to the
//     earlier run, which keeps the sort stable) and the merged lines go
//     through the decoder line by line, each with its file and line
//     number, so that errors name where the line is in the input.
//
// A trace that fits in one run never touches the disk; the runs are
// encoded the same way in memory and on disk, and merged by the same code.
// The temporary files are removed when the read ends, whatever its
// outcome.

// DefaultSortRun is the size of the runs the sort writes to disk, unless
// Options.SortRun says otherwise.
const DefaultSortRun = 64 << 20

// DefaultSortMemory is how many bytes of sorted runs the sort keeps in
// memory rather than in temporary files, unless Options.SortMemory says
// otherwise. Less than DefaultSortRun: with the default run size, every
// run goes to disk.
const DefaultSortMemory = 4 << 20

// arenaBlock is the size of the blocks the lines of a run are copied to;
// recordOverhead is what a line costs in memory besides its bytes.
const (
	arenaBlock     = 1 << 20
	recordOverhead = 48
)

// smallBuffer is the least size of the sort's buffers and blocks, which
// are otherwise sized to what they hold, up to their maximum.
const smallBuffer = 4 << 10

// bufferFor returns the size of a buffer for n bytes: n, within
// smallBuffer and most.
func bufferFor(n int64, most int) int {
	return int(max(min(n, int64(most)), smallBuffer))
}

// untimed is the key of the lines without a date: before every date.
const untimed = trace.Time(math.MinInt64)

// keyed is a line of the input with its sort key and its place.
type keyed struct {
	key  trace.Time
	file int32 // index in the files read
	line int64 // line number in its file, from 1
	text []byte
}

// readSorted reads the files as one trace whose lines are sorted by date.
func readSorted(paths []string, sink trace.Sink, opt Options) error {
	if len(paths) == 0 {
		return errs.Argument("paths", "no file to read")
	}
	var total int64
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil {
			total += st.Size()
		}
	}
	s := &sorter{opt: opt, runSize: opt.SortRun, memory: opt.SortMemory, total: total, keys: newDecoder(&trace.Counter{}, opt, 0)}
	if s.runSize <= 0 {
		s.runSize = DefaultSortRun
	}
	if s.memory == 0 {
		s.memory = DefaultSortMemory
	}
	defer s.cleanup()
	for i, p := range paths {
		if err := s.split(int32(i), p); err != nil {
			return err
		}
	}
	// Progress: the split counts the input bytes up to total, the merge
	// the bytes of text it passes on, from total up to twice as many.
	d := newDecoder(sink, opt, 2*total)
	defer d.sim.release()
	d.before = total
	d.file, d.sim.file = paths[len(paths)-1], paths[len(paths)-1] // for an input without lines
	if err := s.merge(func(k keyed) error {
		d.file, d.sim.file = paths[k.file], paths[k.file]
		d.line = int(k.line) - 1
		return d.lineRead(k.text)
	}); err != nil {
		return err
	}
	if err := d.endOfInput(); err != nil {
		return err
	}
	d.input = &ingest.Counter{} // every input byte was read twice
	d.input.Add(total)
	return d.finish()
}

// sorter holds the runs of an external sort.
type sorter struct {
	opt     Options
	runSize int64
	memory  int64 // bytes of runs that may be kept in memory
	held    int64 // bytes of runs kept in memory
	total   int64
	done    int64 // input bytes read, for progress
	keys    *decoder

	// The run being gathered: its lines' bytes in blocks of arena, and
	// the bytes it takes. The blocks grow from smallBuffer to arenaBlock,
	// so that small inputs allocate little (a megabyte per read is most
	// of the cost of sorting a few kilobytes).
	arena     []byte
	nextBlock int
	recs      []keyed
	runBytes  int64
	// The runs written, in input order.
	runs []*run
}

// run is a sorted run, in a temporary file or in memory (mem).
type run struct {
	file *os.File
	mem  []byte
}

// name names the run in errors.
func (r *run) name() string {
	if r.file != nil {
		return r.file.Name()
	}
	return "a run in memory"
}

// reader reads the run back from its start.
func (r *run) reader() interface {
	io.Reader
	io.ByteReader
} {
	if r.file == nil {
		return bytes.NewReader(r.mem)
	}
	size := int64(64 << 10)
	if st, err := r.file.Stat(); err == nil {
		size = st.Size()
	}
	return bufio.NewReaderSize(r.file, bufferFor(size, 64<<10))
}

// split reads one file, keys its lines and gathers them into runs.
func (s *sorter) split(file int32, path string) error {
	f, err := ingest.OpenFile(path)
	if err != nil {
		return err
	}
	defer f.Close()
	in := &ingest.Counter{R: f}
	limit := s.opt.MaxDecompressed
	if limit == 0 {
		limit = ingest.DefaultMaxDecompressed
	}
	text, release, err := ingest.Decompress(bufio.NewReaderSize(in, 64<<10), path, limit)
	if err != nil {
		return err
	}
	defer release()
	k := s.keys
	k.file, k.line = path, 0
	// Sized to the input, but not below 64 KiB: a compressed input
	// expands past its size.
	br := bufio.NewReaderSize(ingest.ReadToCut(text, s.opt.ReadOptions), max(bufferFor(s.total, 1<<20), 64<<10))
	var long []byte
	var line int64
	next := int64(progressEvery)
	for {
		b, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long[:0], b...)
			for err == bufio.ErrBufferFull {
				b, err = br.ReadSlice('\n')
				long = append(long, b...)
			}
			b = long
		}
		if len(b) > 0 {
			line++
			if err := s.add(file, line, b); err != nil {
				return err
			}
			if in.N() >= next {
				if err := s.opt.Canceled(); err != nil {
					return err
				}
				if s.opt.Progress != nil {
					s.opt.Progress(s.done+in.N(), 2*s.total)
				}
				next = in.N() + progressEvery
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			k.line, k.done = int(line), 0
			return k.readFailure(err)
		}
	}
	s.done += in.N()
	return nil
}

// add keys a line and adds it to the current run, writing the run out
// once it is full.
func (s *sorter) add(file int32, line int64, b []byte) error {
	i := 0
	for i < len(b) && (blank[b[i]] || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	if i == len(b) || b[i] == '#' {
		return nil // blank or comment
	}
	k := s.keys
	k.line = int(line)
	key := untimed
	// A line the probe cannot date (a definition, or a line the decoder
	// will refuse) keeps its place among the definitions, where the
	// decoder reports its error with its line number.
	if t, dated, err := k.probeLine(b, true); err == nil && dated {
		key = t
	}
	if size := int64(len(b)) + recordOverhead; s.runBytes+size > s.runSize && len(s.recs) > 0 {
		if err := s.flush(); err != nil {
			return err
		}
	}
	if len(s.arena)+len(b) > cap(s.arena) {
		// A new block: the records before keep the old ones alive until
		// the run is flushed.
		s.nextBlock = min(max(2*s.nextBlock, smallBuffer), arenaBlock, int(min(s.runSize, math.MaxInt32)))
		s.arena = make([]byte, 0, max(len(b), s.nextBlock))
	}
	s.runBytes += int64(len(b)) + recordOverhead
	start := len(s.arena)
	s.arena = append(s.arena, b...)
	s.recs = append(s.recs, keyed{key: key, file: file, line: line, text: s.arena[start:len(s.arena):len(s.arena)]})
	return nil
}

// sortRun sorts the current run by key, stably.
func (s *sorter) sortRun() {
	slices.SortStableFunc(s.recs, func(a, b keyed) int {
		switch {
		case a.key < b.key:
			return -1
		case a.key > b.key:
			return 1
		}
		return 0
	})
}

// flush sorts the current run and writes it out: to memory if it fits
// what is left of the memory allowed (its encoding takes at most
// runBytes: a record's header is less than recordOverhead), otherwise to
// a temporary file.
func (s *sorter) flush() error {
	s.sortRun()
	if s.memory > 0 && s.held+s.runBytes <= s.memory {
		var b bytes.Buffer
		b.Grow(int(s.runBytes))
		s.encodeRun(&b)
		s.runs = append(s.runs, &run{mem: b.Bytes()})
		s.held += int64(b.Len())
	} else {
		f, err := os.CreateTemp("", "paje-sort-*.run")
		if err != nil {
			return fmt.Errorf("sorting the trace: %w", err)
		}
		s.runs = append(s.runs, &run{file: f})
		w := bufio.NewWriterSize(f, bufferFor(s.runBytes, 1<<20))
		s.encodeRun(w)
		if err := w.Flush(); err != nil {
			return fmt.Errorf("sorting the trace: writing %s: %w", f.Name(), err)
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("sorting the trace: %w", err)
		}
	}
	s.recs = s.recs[:0]
	s.arena = s.arena[:0]
	s.runBytes = 0
	return nil
}

// encodeRun writes the current run's records, each a header of varints
// (key, file, line, length) and the line's bytes. Errors are the
// writer's to keep (bufio.Writer's Flush reports them).
func (s *sorter) encodeRun(w io.Writer) {
	var hdr [4 * binary.MaxVarintLen64]byte
	for _, r := range s.recs {
		n := binary.PutVarint(hdr[:], int64(r.key))
		n += binary.PutUvarint(hdr[n:], uint64(r.file))
		n += binary.PutUvarint(hdr[n:], uint64(r.line))
		n += binary.PutUvarint(hdr[n:], uint64(len(r.text)))
		w.Write(hdr[:n])
		w.Write(r.text)
	}
}

// cleanup removes the runs' files.
func (s *sorter) cleanup() {
	s.keys.sim.release()
	for _, r := range s.runs {
		if r.file != nil {
			r.file.Close()
			os.Remove(r.file.Name())
		}
	}
	s.runs = nil
}

// runsMerged, if set (by tests), is told how many runs were merged from
// disk and from memory.
var runsMerged func(onDisk, inMemory int)

// merge calls fn with every line in key order.
func (s *sorter) merge(fn func(keyed) error) error {
	if runsMerged != nil {
		defer func() {
			disk := 0
			for _, r := range s.runs {
				if r.file != nil {
					disk++
				}
			}
			runsMerged(disk, len(s.runs)-disk)
		}()
	}
	if len(s.runs) == 0 {
		// Everything fits in memory.
		s.sortRun()
		for _, r := range s.recs {
			if err := fn(r); err != nil {
				return err
			}
		}
		return nil
	}
	if len(s.recs) > 0 {
		if err := s.flush(); err != nil {
			return err
		}
	}
	s.arena, s.recs = nil, nil
	h := make(runHeap, 0, len(s.runs))
	for i, r := range s.runs {
		c := &runCursor{run: i, r: r.reader()}
		ok, err := c.next()
		if err != nil {
			return fmt.Errorf("sorting the trace: reading %s: %w", r.name(), err)
		}
		if ok {
			h = append(h, c)
		}
	}
	heap.Init(&h)
	for len(h) > 0 {
		c := h[0]
		if err := fn(c.cur); err != nil {
			return err
		}
		ok, err := c.next()
		if err != nil {
			return fmt.Errorf("sorting the trace: reading %s: %w", s.runs[c.run].name(), err)
		}
		if ok {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
	return nil
}

// runCursor reads a run's lines back.
type runCursor struct {
	run int
	r   interface {
		io.Reader
		io.ByteReader
	}
	cur keyed
	buf []byte
}

// next reads the next line of the run; false at its end.
func (c *runCursor) next() (bool, error) {
	key, err := binary.ReadVarint(c.r)
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var v [3]uint64
	for i := range v {
		if v[i], err = binary.ReadUvarint(c.r); err != nil {
			return false, unexpected(err)
		}
	}
	if cap(c.buf) < int(v[2]) {
		c.buf = make([]byte, v[2])
	}
	c.buf = c.buf[:v[2]]
	if _, err := io.ReadFull(c.r, c.buf); err != nil {
		return false, unexpected(err)
	}
	c.cur = keyed{key: trace.Time(key), file: int32(v[0]), line: int64(v[1]), text: c.buf}
	return true, nil
}

func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// runHeap orders the runs' heads by key, then by run: equal keys come
// from the earlier run first, which keeps the merge stable.
type runHeap []*runCursor

func (h runHeap) Len() int { return len(h) }
func (h runHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	if a.cur.key != b.cur.key {
		return a.cur.key < b.cur.key
	}
	return a.run < b.run
}
func (h runHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)   { *h = append(*h, x.(*runCursor)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
