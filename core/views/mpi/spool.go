package mpi

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"sync"
	"unsafe"

	"github.com/macroscope-hpc/macroscope/core/budget"
	"github.com/macroscope-hpc/macroscope/core/errs"
)

// Spill is where the records an analysis gathers while a trace streams
// go when they are too many to keep in memory: one temporary file that
// its spools (Spool) write their full chunks to once the chunks they keep
// in memory reach Memory bytes, and read back, in order, once the trace
// has been read. The records are the compact ones the analyses read
// once, in order, after the read (the links, the collectives' events,
// the states between the MPI calls), so memory holds a chunk per spool
// and what it is turned into, not every record of the trace.
//
// The file is created at the first chunk spilled and removed at once on
// the systems that allow it (it is reached through its open descriptor
// until Close), else by Close: it is never left behind.
type Spill struct {
	// Dir is the directory of the file; "" is os.TempDir().
	Dir string
	// Memory is the bytes of records the spools keep in memory before
	// spilling; 0 is DefaultSpillMemory (less when the memory budget
	// is smaller), a negative value no limit (nothing spilled).
	Memory int64

	// mu guards held, size and err: spools are drained, and filled, on
	// several cores at once (the critical path builds what each resource
	// did on one while it finds the wait states on another).
	mu      sync.Mutex
	held    int64 // bytes of records in memory
	limit   int64 // memory(), once settled
	f       *os.File
	name    string // the file's name while it is still to be removed
	size    int64  // bytes written
	spilled int64  // chunks written
	// The file is laid out in slots of spillSlot bytes, a chunk in one or
	// more in a row: end is where the next slots begin, free the slots
	// of the chunks drained (read back for the last time), which the next
	// chunks of a slot take before the file grows. Written again, a page
	// of the file already in the page cache is only copied into; a new
	// one is also allocated (the calls are written once as they come and
	// again once sorted, the states once, what each resource did once).
	end  int64
	free []int64
	err  error
}

// spillSlot is the size of the spill file's slots: that of the chunks
// of a spool that spills from its first ones (spillChunk), the usual.
const spillSlot = spillChunk

// DefaultSpillMemory is the bytes of records kept in memory before they
// are spilled: a trace of a few million MPI calls never touches the disk.
const DefaultSpillMemory = 64 << 20

// memory returns the bytes the spools may keep in memory, settled at
// the first chunk set aside.
func (s *Spill) memory() int64 {
	if s.limit == 0 {
		switch {
		case s.Memory < 0:
			s.limit = 1<<63 - 1
		case s.Memory > 0:
			s.limit = s.Memory
		default:
			s.limit = max(min(DefaultSpillMemory, budget.Default()/8), 1)
		}
	}
	return s.limit
}

// Err returns the first error writing or reading the file.
func (s *Spill) Err() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Spilled returns the bytes written to the file.
func (s *Spill) Spilled() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.size
}

// Close closes the file and removes it if still there. It may be called
// more than once, and on a nil Spill.
func (s *Spill) Close() error {
	if s == nil || s.f == nil {
		return nil
	}
	err := s.f.Close()
	if s.name != "" {
		if rerr := os.Remove(s.name); rerr != nil && !errors.Is(rerr, os.ErrNotExist) && err == nil {
			err = rerr
		}
		s.name = ""
	}
	s.f = nil
	return err
}

func (s *Spill) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failLocked(err)
}

func (s *Spill) failLocked(err error) {
	if s.err == nil {
		s.err = err
	}
}

// openFile opens the spill file; a variable so that tests can make the
// disk full.
var openFile = func(dir string) (*os.File, error) { return os.CreateTemp(dir, "macroscope-spill-*") }

// write appends b to the file and returns where it begins, -1 after an
// error. s.mu is held.
func (s *Spill) write(b []byte) int64 {
	if s.err != nil {
		return -1
	}
	if s.f == nil {
		f, err := openFile(s.Dir)
		if err != nil {
			s.failLocked(errs.Argument(s.param(), "spilling the MPI records to a temporary file: %v", err))
			return -1
		}
		s.f, s.name = f, f.Name()
		// Removed now where an open file can be: nothing to clean up
		// however the process ends.
		if os.Remove(s.name) == nil {
			s.name = ""
		}
	}
	at := s.end
	reused := len(b) <= spillSlot && len(s.free) > 0
	if reused {
		at = s.free[len(s.free)-1]
	}
	if _, err := s.f.WriteAt(b, at); err != nil {
		free := ""
		if n, ok := budget.FreeDisk(dirOf(s.Dir)); ok {
			free = fmt.Sprintf(", %s free", budget.Bytes(n))
		}
		s.failLocked(errs.Argument(s.param(), "spilling the MPI records to a temporary file in %s (%s written%s): %v; "+
			"free some disk space there or choose another directory", dirOf(s.Dir), budget.Bytes(s.size), free, err))
		return -1
	}
	if reused {
		s.free = s.free[:len(s.free)-1]
	} else {
		s.end += (int64(len(b)) + spillSlot - 1) / spillSlot * spillSlot
	}
	s.size += int64(len(b))
	s.spilled++
	return at
}

// release frees the slots of a chunk of n bytes at offset at, drained:
// it is never read again.
func (s *Spill) release(at int64, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for end := at + int64(n); at < end; at += spillSlot {
		s.free = append(s.free, at)
	}
}

// param names the setting that chose the directory, for errors: the
// disk is the user's to free or to change, not the trace's fault.
func (s *Spill) param() string {
	if s.Dir == "" {
		return "TMPDIR"
	}
	return "spill directory"
}

func dirOf(dir string) string {
	if dir == "" {
		return os.TempDir()
	}
	return dir
}

// read fills b from the file at offset at.
func (s *Spill) read(b []byte, at int64) bool {
	if s.Err() != nil {
		return false
	}
	if _, err := s.f.ReadAt(b, at); err != nil {
		s.fail(fmt.Errorf("reading back the MPI records spilled to a temporary file: %w", err))
		return false
	}
	return true
}

// Spool is an append-only sequence of records read back in order (Drain,
// Reader) or a chunk at a time (ReadChunk): Chunks whose full chunks go
// to a Spill's file once the spill's memory is taken. T must hold no pointers (its bytes are written as they are).
// The zero Spool (no Spill) keeps everything in memory.
type Spool[T any] struct {
	spill *Spill
	cur   []T       // the chunk being filled
	segs  []segment // the full chunks, in order
	mem   [][]T     // the full chunks kept in memory, by segment (nil when spilled)
	n     int
}

// segment is a full chunk of a spool: in memory, or n records at offset
// at of the spill file.
type segment struct {
	at int64
	n  int
}

// NewSpool returns an empty spool spilling to s (nil: never).
func NewSpool[T any](s *Spill) Spool[T] {
	if s != nil && hasPointers(reflect.TypeFor[T]()) {
		panic(fmt.Sprintf("mpi.Spool of %v: records with pointers cannot be spilled", reflect.TypeFor[T]()))
	}
	return Spool[T]{spill: s}
}

// hasPointers tells whether values of t hold pointers.
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
		return false
	case reflect.Array:
		return hasPointers(t.Elem())
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return false
	}
	return true
}

// bytesOf returns the memory of xs as bytes.
func bytesOf[T any](xs []T) []byte {
	if len(xs) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&xs[0])), len(xs)*int(unsafe.Sizeof(xs[0])))
}

// Len returns the number of records.
func (p *Spool[T]) Len() int { return p.n }

// Append adds x at the end.
func (p *Spool[T]) Append(x T) {
	if len(p.cur) == cap(p.cur) {
		p.full()
	}
	p.cur = append(p.cur, x)
	p.n++
}

// AppendSlice adds xs at the end, in the chunks Append would fill.
func (p *Spool[T]) AppendSlice(xs []T) {
	for len(xs) > 0 {
		if len(p.cur) == cap(p.cur) {
			p.full()
		}
		n := copy(p.cur[len(p.cur):cap(p.cur)], xs)
		p.cur = p.cur[:len(p.cur)+n]
		p.n += n
		xs = xs[n:]
	}
}

// spillChunk is the size in bytes up to which the chunks of a spool
// that spills keep growing.
const spillChunk = 16 << 10

// full sets aside the chunk being filled, if any, and starts the next,
// twice as large up to maxChunk.
func (p *Spool[T]) full() {
	size := minChunk
	if c := p.cur; cap(c) > 0 {
		size = min(2*cap(c), maxChunk)
		bytes := int64(len(c)) * int64(unsafe.Sizeof(c[0]))
		if s := p.spill; s != nil {
			s.mu.Lock()
			at := int64(-1)
			if s.held+bytes > s.memory() && s.err == nil {
				// After an error (the spill's Err) the records stay in
				// memory.
				at = s.write(bytesOf(c))
			}
			if at < 0 {
				s.held += bytes
			}
			s.mu.Unlock()
			if at >= 0 {
				p.segs = append(p.segs, segment{at: at, n: len(c)})
				p.mem = append(p.mem, nil)
				// Written: the chunk is filled again, or a larger one
				// up to spillChunk bytes (a spool that spills from its
				// first chunks would else write a few records at a time).
				if next := size * int(unsafe.Sizeof(c[0])); size > cap(c) && next <= spillChunk {
					p.cur = make([]T, 0, size)
				} else {
					p.cur = c[:0]
				}
				return
			}
		}
		p.segs = append(p.segs, segment{at: -1, n: len(c)})
		p.mem = append(p.mem, c)
	}
	p.cur = make([]T, 0, size)
}

// Drain calls visit with each record in order and empties p, letting go
// of each chunk once visited (Chunks.Drain); the spilled ones are read
// back into one chunk's memory. It stops early when the spill file cannot
// be read (Spill.Err).
func (p *Spool[T]) Drain(visit func(*T)) { p.DrainUntil(visit, nil) }

// DrainUntil is Drain that asks stop, when not nil, before each chunk:
// once it says true, the chunks left are let go unread (their slots of
// the spill file freed, their memory no longer counted), so that a
// computation stopped (Ctrl-C) with a spilled spool does not read the
// rest of the file back for nothing. A chunk holds at most maxChunk
// records: that bounds the records visited after the stop. It reports
// whether every record was visited.
func (p *Spool[T]) DrainUntil(visit func(*T), stop func() bool) bool {
	segs, mem, cur, s := p.segs, p.mem, p.cur, p.spill
	*p = Spool[T]{spill: s}
	var buf []T
	for k, seg := range segs {
		if stop != nil && stop() {
			letGoUnread(s, segs[k:], mem[k:])
			return false
		}
		chunk := mem[k]
		if chunk == nil {
			if cap(buf) < seg.n {
				buf = make([]T, seg.n)
			}
			buf = buf[:seg.n]
			if !s.read(bytesOf(buf), seg.at) {
				return false
			}
			s.release(seg.at, len(bytesOf(buf)))
			chunk = buf
		} else {
			s.letGo(bytesOf(chunk))
		}
		for i := range chunk {
			visit(&chunk[i])
		}
		mem[k] = nil
	}
	if stop != nil && len(cur) > 0 && stop() {
		return false
	}
	for i := range cur {
		visit(&cur[i])
	}
	return true
}

// letGoUnread lets go of the chunks segs (mem: those kept in memory, nil
// when spilled) without reading them: the file's slots are freed for
// other spools, the memory is no longer counted as held.
func letGoUnread[T any](s *Spill, segs []segment, mem [][]T) {
	for k, seg := range segs {
		if chunk := mem[k]; chunk != nil {
			s.letGo(bytesOf(chunk))
			mem[k] = nil
			continue
		}
		var zero T
		s.release(seg.at, seg.n*int(unsafe.Sizeof(zero)))
	}
}

// Take returns the records in one slice of the exact size and empties p,
// as Drain would visit them: the spilled chunks are read straight into
// their place in it, the others copied whole, rather than each record
// copied out of a chunk's buffer by a call. It stops early, the records
// of the chunks before in the slice, when the spill file cannot be read
// (Spill.Err).
func (p *Spool[T]) Take() []T {
	segs, mem, cur, s := p.segs, p.mem, p.cur, p.spill
	out := make([]T, 0, p.n)
	*p = Spool[T]{spill: s}
	for k, seg := range segs {
		at := len(out)
		out = out[:at+seg.n]
		if chunk := mem[k]; chunk != nil {
			copy(out[at:], chunk)
			s.letGo(bytesOf(chunk))
			mem[k] = nil
			continue
		}
		to := bytesOf(out[at:])
		if !s.read(to, seg.at) {
			return out[:at]
		}
		s.release(seg.at, len(to))
	}
	return append(out, cur...)
}

// letGo counts chunk, a chunk kept in memory and drained, out of the
// memory the spools hold (none on a nil Spill).
func (s *Spill) letGo(chunk []byte) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.held -= int64(len(chunk))
	s.mu.Unlock()
}

// Chunks returns the number of chunks p keeps its records in: the full
// ones, in the order they were filled, then the one being filled (empty
// before the first Append). A record appended to p lands in a new chunk
// when Chunks grows as it is appended.
func (p *Spool[T]) Chunks() int { return len(p.segs) + 1 }

// ChunkLen returns the number of records of chunk k (0 <= k < Chunks()),
// without reading it.
func (p *Spool[T]) ChunkLen(k int) int {
	if k == len(p.segs) {
		return len(p.cur)
	}
	return p.segs[k].n
}

// ReadChunk returns the records of chunk k (0 <= k < Chunks()): a chunk
// in memory as it is, a spilled one read into buf (grown as needed, and
// returned in its place). It returns false when the spill file cannot be
// read (Spill.Err). This is how an analysis reaches the records of a
// spool it finished appending to anywhere, not only in order: it keeps
// what it searches by for each chunk (its first or last record's key),
// and reads the chunk it needs. The records are read only, and the
// spool must not be appended to meanwhile.
func (p *Spool[T]) ReadChunk(k int, buf []T) (chunk, newBuf []T, ok bool) {
	if k == len(p.segs) {
		return p.cur, buf, true
	}
	if c := p.mem[k]; c != nil {
		return c, buf, true
	}
	seg := p.segs[k]
	if cap(buf) < seg.n {
		buf = make([]T, seg.n)
	}
	buf = buf[:seg.n]
	if !p.spill.read(bytesOf(buf), seg.at) {
		return nil, buf, false
	}
	return buf, buf, true
}

// Reader returns a reader of p's records in order that leaves p as it is:
// a spool read several times (the calls of a resource, by the analyses
// that pass over them more than once), or by several goroutines at once,
// each with its reader. p is not appended to while read.
func (p *Spool[T]) Reader() *SpoolReader[T] { return &SpoolReader[T]{p: p} }

// SpoolReader reads a spool's records in order (Spool.Reader), the
// spilled ones a chunk at a time into its own buffer.
type SpoolReader[T any] struct {
	p     *Spool[T]
	seg   int // the next segment to read; len(segs) for cur
	chunk []T // the records being read
	i     int
	buf   []T
}

// Next returns the next record, or false at the end or when the spill
// file cannot be read (Spill.Err). The record is valid until the next
// call.
func (r *SpoolReader[T]) Next() (*T, bool) {
	for r.i == len(r.chunk) {
		p := r.p
		switch {
		case r.seg < len(p.segs):
			seg := p.segs[r.seg]
			if chunk := p.mem[r.seg]; chunk != nil {
				r.chunk = chunk
			} else {
				if cap(r.buf) < seg.n {
					r.buf = make([]T, seg.n)
				}
				r.buf = r.buf[:seg.n]
				if !p.spill.read(bytesOf(r.buf), seg.at) {
					r.seg, r.chunk, r.i = len(p.segs)+1, nil, 0
					return nil, false
				}
				r.chunk = r.buf
			}
		case r.seg == len(p.segs):
			r.chunk = p.cur
		default:
			return nil, false
		}
		r.seg++
		r.i = 0
	}
	r.i++
	return &r.chunk[r.i-1], true
}
