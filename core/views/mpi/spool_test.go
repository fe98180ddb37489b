package mpi

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

type record struct {
	at   int64
	n    int32
	size float64
}

// emptyDir fails unless dir holds no file.
func emptyDir(t *testing.T, dir, when string) {
	t.Helper()
	left, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Errorf("%s: %d files left in the spill directory, first %s", when, len(left), left[0].Name())
	}
}

// Spools give back what was appended, in order, whether their chunks
// stayed in memory or went to the spill file and back; the file is never
// left behind.
func TestSpool(t *testing.T) {
	for _, memory := range []int64{-1, 1, 100 * 24, 1 << 20} {
		dir := t.TempDir()
		s := &Spill{Dir: dir, Memory: memory}
		a, b := NewSpool[record](s), NewSpool[int32](s)
		var wantA []record
		var wantB []int32
		for i := range 3*maxChunk + 77 {
			r := record{int64(i) * 1000003, int32(-i), float64(i) / 7}
			a.Append(r)
			wantA = append(wantA, r)
			if i%3 == 0 {
				b.Append(int32(i))
				wantB = append(wantB, int32(i))
			}
		}
		if a.Len() != len(wantA) || b.Len() != len(wantB) {
			t.Errorf("memory %d: Len %d and %d, want %d and %d", memory, a.Len(), b.Len(), len(wantA), len(wantB))
		}
		emptyDir(t, dir, "while spilling") // removed as soon as created
		if spilled := s.Spilled() > 0; spilled != (memory >= 0 && memory < 1<<20) {
			t.Errorf("memory %d: %d bytes spilled", memory, s.Spilled())
		}
		var gotA []record
		a.Drain(func(r *record) { gotA = append(gotA, *r) })
		gotB := b.Take()
		if !slices.Equal(gotA, wantA) || !slices.Equal(gotB, wantB) || len(gotB) != cap(gotB) {
			t.Errorf("memory %d: drained %d and %d records, equal %v %v", memory, len(gotA), len(gotB),
				slices.Equal(gotA, wantA), slices.Equal(gotB, wantB))
		}
		if a.Len() != 0 || s.held != 0 {
			t.Errorf("memory %d: after Drain, Len %d and %d bytes held", memory, a.Len(), s.held)
		}
		if err := s.Err(); err != nil {
			t.Error(err)
		}
		if err := s.Close(); err != nil {
			t.Error(err)
		}
		emptyDir(t, dir, "after Close")
	}
}

// Take gives what Drain visits, chunks in memory and spilled alike, and
// when the file cannot be read back it stops where Drain stops: after the
// chunks before the first that cannot be read, with the spill's error.
func TestSpoolTakeAsDrain(t *testing.T) {
	for _, memory := range []int64{-1, 1, 100 * 24, 1 << 20} {
		for _, unreadable := range []bool{false, true} {
			var spools [2]Spool[record]
			var spills [2]*Spill
			for i := range spools {
				spills[i] = &Spill{Dir: t.TempDir(), Memory: memory}
				defer spills[i].Close()
				spools[i] = NewSpool[record](spills[i])
				for k := range 3*maxChunk + 77 {
					spools[i].Append(record{int64(k) * 1000003, int32(-k), float64(k) / 7})
				}
				if unreadable && spills[i].f != nil {
					spills[i].f.Close()
				}
			}
			var drained []record
			spools[0].Drain(func(r *record) { drained = append(drained, *r) })
			taken := spools[1].Take()
			if !slices.Equal(taken, drained) || spills[1].held != spills[0].held {
				t.Errorf("memory %d, unreadable %v: Take gave %d records, Drain %d; %d and %d bytes held after",
					memory, unreadable, len(taken), len(drained), spills[1].held, spills[0].held)
			}
			if err0, err1 := spills[0].Err(), spills[1].Err(); (err0 == nil) != (err1 == nil) ||
				err1 != nil && !strings.Contains(err1.Error(), "reading back") {
				t.Errorf("memory %d, unreadable %v: Take's error %v, Drain's %v", memory, unreadable, err1, err0)
			}
			if unreadable && memory == 100*24 && (len(taken) == 0 || len(taken) == 3*maxChunk+77) {
				t.Errorf("memory %d: %d records taken: the chunks in memory before the first spilled, not all, were expected", memory, len(taken))
			}
		}
	}
}

// A full disk is an error naming the directory and the cause, and the
// records stay whole in memory.
func TestSpillDiskFull(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skipf("no /dev/full to fill the disk with: %v", err)
	}
	saved := openFile
	defer func() { openFile = saved }()
	// Through a link of its own, which the spill removes as it would its
	// temporary file.
	link := filepath.Join(t.TempDir(), "full")
	if err := os.Symlink("/dev/full", link); err != nil {
		t.Skip(err)
	}
	openFile = func(string) (*os.File, error) { return os.OpenFile(link, os.O_RDWR, 0) }
	s := &Spill{Dir: "/somewhere", Memory: 1}
	p := NewSpool[int64](s)
	for i := range 1000 {
		p.Append(int64(i))
	}
	err := s.Err()
	var ae *errs.ArgumentError
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), "no space left on device") || !strings.Contains(err.Error(), "/somewhere") {
		t.Fatalf("error %v, want one naming the directory and the full disk", err)
	}
	if got := p.Take(); len(got) != 1000 || got[999] != 999 {
		t.Errorf("after the error, %d records kept", len(got))
	}
	s.Close()
}

// Records holding pointers cannot be spilled.
func TestSpoolRefusesPointers(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a spool of strings spilling to a file was made")
		}
	}()
	NewSpool[struct{ s string }](&Spill{})
}

// A spool that spills from its first chunk still writes chunks that grow
// (to spillChunk bytes), not a few records at a time; what it gives back
// is unchanged.
func TestSpoolSpillingEarlyGrowsItsChunks(t *testing.T) {
	s := &Spill{Dir: t.TempDir(), Memory: 1}
	defer s.Close()
	p := NewSpool[int64](s)
	const n = 100_000
	for i := range n {
		p.Append(int64(i) * 7)
	}
	per := spillChunk / 8
	// minChunk, doubling to per records, then per records a chunk.
	most := 0
	for size := minChunk; size < per; size *= 2 {
		most++
	}
	most += n/per + 1
	if s.spilled > int64(most) {
		t.Errorf("%d records in %d chunks written, want at most %d", n, s.spilled, most)
	}
	i := int64(0)
	p.Drain(func(x *int64) {
		if *x != i*7 {
			t.Fatalf("record %d is %d, want %d", i, *x, i*7)
		}
		i++
	})
	if i != n {
		t.Errorf("%d records read back, want %d", i, n)
	}
}

// AppendSlice fills the chunks Append fills, with the same records,
// whether they stay in memory or are spilled, from slices of any length
// (empty, within a chunk, across several).
func TestSpoolAppendSlice(t *testing.T) {
	for _, memory := range []int64{-1, 1, 100 * 24} {
		s := &Spill{Dir: t.TempDir(), Memory: memory}
		one, many := NewSpool[record](s), NewSpool[record](s)
		var all []record
		for _, n := range []int{0, 1, 63, 64, 65, 0, 200, 3 * maxChunk, 5} {
			var xs []record
			for range n {
				i := len(all)
				xs = append(xs, record{int64(i) * 7, int32(i), float64(i) / 3})
				all = append(all, xs[len(xs)-1])
				one.Append(xs[len(xs)-1])
			}
			many.AppendSlice(xs)
		}
		if one.Len() != many.Len() || one.Chunks() != many.Chunks() {
			t.Fatalf("memory %d: %d records in %d chunks, want %d in %d", memory, many.Len(), many.Chunks(), one.Len(), one.Chunks())
		}
		for k := range one.Chunks() {
			if one.ChunkLen(k) != many.ChunkLen(k) {
				t.Errorf("memory %d: chunk %d holds %d records, want %d", memory, k, many.ChunkLen(k), one.ChunkLen(k))
			}
		}
		if got := many.Take(); !slices.Equal(got, all) {
			t.Errorf("memory %d: AppendSlice gave back %d records, not those appended (%d)", memory, len(got), len(all))
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// The slots of the chunks drained are written again before the file
// grows: a spool drained, then another of as many records, leaves the
// file as long as the first made it, and each gives back what was
// appended; the chunks read back with a Reader are not drained, so
// their slots stay theirs.
func TestSpillReusesDrainedSlots(t *testing.T) {
	s := &Spill{Dir: t.TempDir(), Memory: 1}
	defer s.Close()
	const n = 20000
	fill := func(base int64) Spool[record] {
		p := NewSpool[record](s)
		for i := range int64(n) {
			p.Append(record{at: base + i, n: int32(i), size: float64(i)})
		}
		return p
	}
	check := func(what string, got []record, base int64) {
		t.Helper()
		if len(got) != n {
			t.Fatalf("%s: %d records, want %d", what, len(got), n)
		}
		for i, r := range got {
			if want := (record{at: base + int64(i), n: int32(i), size: float64(i)}); r != want {
				t.Fatalf("%s: record %d is %+v, want %+v", what, i, r, want)
			}
		}
	}
	kept := fill(0)
	a := fill(n)
	check("first", a.Take(), n)
	end := s.end
	b := fill(2 * n)
	if s.end != end {
		t.Errorf("the file grew from %d to %d bytes with the drained slots free", end, s.end)
	}
	check("second", b.Take(), 2*n)
	var again []record
	rd := kept.Reader()
	for r, ok := rd.Next(); ok; r, ok = rd.Next() {
		again = append(again, *r)
	}
	check("read without draining", again, 0)
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
}

// DrainUntil stopped after the first chunk reads no other chunk back
// (the file is closed then: a read would fail), frees every slot of the
// file and counts no memory held; never stopped, it visits what Drain
// visits.
func TestSpoolDrainUntil(t *testing.T) {
	const n = 3*maxChunk + 77
	fill := func(memory int64) (*Spool[record], *Spill) {
		s := &Spill{Dir: t.TempDir(), Memory: memory}
		p := NewSpool[record](s)
		for k := range n {
			p.Append(record{int64(k) * 1000003, int32(-k), float64(k) / 7})
		}
		return &p, s
	}
	for _, memory := range []int64{-1, 1, 100 * 24} {
		p, s := fill(memory)
		var want, got []record
		p.Drain(func(r *record) { want = append(want, *r) })
		s.Close()
		q, s := fill(memory)
		all := q.DrainUntil(func(r *record) { got = append(got, *r) }, func() bool { return false })
		if !all || !slices.Equal(got, want) || len(got) != n {
			t.Errorf("memory %d, never stopped: %d records, all %v; want the %d Drain visits", memory, len(got), all, len(want))
		}
		s.Close()

		p, s = fill(memory)
		if memory == 1 && s.Spilled() == 0 {
			t.Fatalf("memory %d: nothing spilled", memory)
		}
		visited, first := 0, p.ChunkLen(0)
		all = p.DrainUntil(func(*record) {
			visited++
			if visited == first && s.f != nil {
				s.f.Close() // a read from now on fails
			}
		}, func() bool { return visited > 0 })
		if all || visited != first {
			t.Errorf("memory %d, stopped after the first chunk: %d records visited, all %v; want %d", memory, visited, all, first)
		}
		if err := s.Err(); err != nil {
			t.Errorf("memory %d: a chunk was read back after the stop: %v", memory, err)
		}
		if s.held != 0 || int64(len(s.free))*spillSlot != s.end || p.Len() != 0 {
			t.Errorf("memory %d: after the stop, %d bytes held, %d of %d bytes of slots free, Len %d; want all let go",
				memory, s.held, int64(len(s.free))*spillSlot, s.end, p.Len())
		}
		s.f = nil
	}
}
