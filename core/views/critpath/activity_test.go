package critpath

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/mpi"
)

// An activity spilled a chunk at a time gives, for any interval, the
// pieces a slice of them gives (clipped, in order), reading its chunks
// in any order: forwards, backwards and at random, across chunk ends.
func TestActivityChunksEqualSlice(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, memory := range []int64{1, -1} {
		spill := &mpi.Spill{Dir: t.TempDir(), Memory: memory}
		total := make([]trace.Time, 3)
		act := newActivity(0, spill, total)
		type ref struct {
			start, end trace.Time
			name       int32
		}
		var want []ref
		at := trace.Time(rng.IntN(5))
		for range 5000 {
			d := trace.Time(rng.IntN(4)) // 0: dropped
			name := int32(rng.IntN(3))   // repeated names merge
			act.add(at, at+d, name)
			if d > 0 {
				if n := len(want); n > 0 && want[n-1].name == name && want[n-1].end == at {
					want[n-1].end = at + d
				} else {
					want = append(want, ref{at, at + d, name})
				}
			}
			at += d
		}
		act.finish()
		if spill.Err() != nil {
			t.Fatal(spill.Err())
		}
		if memory > 0 && spill.Spilled() == 0 {
			t.Fatal("nothing spilled")
		}
		wantTotal := make([]trace.Time, 3)
		for _, p := range want {
			wantTotal[p.name] += p.end - p.start
		}
		if !slices.Equal(total, wantTotal) {
			t.Fatalf("memory %d: times by name %v, want %v", memory, total, wantTotal)
		}
		if len(act.chunkEnd) < 5 {
			t.Fatalf("%d chunks: too few to test", len(act.chunkEnd))
		}
		for q := range 3000 {
			from := trace.Time(rng.IntN(int(at) + 10))
			if q%3 == 0 { // backwards, as the delay costs go
				from = at - trace.Time(q)
			}
			to := from + trace.Time(rng.IntN(300))
			var got, exp []ref
			act.each(from, to, func(s, e trace.Time, n int32) { got = append(got, ref{s, e, n}) })
			for _, p := range want {
				if s, e := max(p.start, from), min(p.end, to); e > s {
					exp = append(exp, ref{s, e, p.name})
				}
			}
			if len(got) != len(exp) {
				t.Fatalf("memory %d, [%d, %d): %d pieces, want %d", memory, from, to, len(got), len(exp))
			}
			for i := range got {
				if got[i] != exp[i] {
					t.Fatalf("memory %d, [%d, %d): piece %d is %v, want %v", memory, from, to, i, got[i], exp[i])
				}
			}
		}
		spill.Close()
	}
}

// waitsAfter, galloping out from any hint, finds what a binary search of
// the resource's wait states finds.
func TestWaitsAfterFromAnyHint(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		r := &Result{}
		resources := 1 + rng.IntN(4)
		for res := range resources {
			call := int32(rng.IntN(3))
			for range rng.IntN(40) {
				r.Waits = append(r.Waits, Wait{Call: mpi.CallRef{Resource: int32(res), Call: call}})
				call += 1 + int32(rng.IntN(3))
			}
		}
		r.waitFrom = waitOffsets(r.Waits, resources)
		for range 200 {
			res, after := int32(rng.IntN(resources)), int32(rng.IntN(130)-3)
			hint := int32(rng.IntN(len(r.Waits)+6) - 3)
			want := r.waitFrom[res]
			for want < r.waitFrom[res+1] && r.Waits[want].Call.Call <= after {
				want++
			}
			got, end := r.waitsAfter(res, after, &hint)
			if got != want || end != r.waitFrom[res+1] || hint != got {
				t.Fatalf("resource %d after call %d: %d, %d (hint %d), want %d, %d", res, after, got, end, hint, want, r.waitFrom[res+1])
			}
		}
	}
}

// The calls of a resource spooled a chunk at a time (spilled or not) read
// as the slice of them: by index in any order, and the first entered at
// or after any instant, whatever the two chunks read last.
func TestSpooledCallsEqualSlice(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, memory := range []int64{1, -1} {
		spill := &mpi.Spill{Dir: t.TempDir(), Memory: memory}
		var held [][]mpi.Call
		r := &run{}
		for res := range 3 {
			spool := mpi.NewSpool[mpi.Call](spill)
			var calls []mpi.Call
			at := trace.Time(0)
			for j := range 3000 * res { // the first resource has no calls
				at += trace.Time(rng.IntN(3)) // entries repeat
				c := mpi.Call{Enter: at, Leave: at + trace.Time(rng.IntN(2)), Name: int32(j)}
				calls = append(calls, c)
				spool.Append(c)
			}
			held = append(held, calls)
			r.spooled = append(r.spooled, indexCalls(&spool, calls))
		}
		if memory > 0 && spill.Spilled() == 0 {
			t.Fatal("nothing spilled")
		}
		want := (&run{held: held}).reader()
		rd := r.reader()
		for q := range 20000 {
			res := int32(rng.IntN(3))
			if r.count(res) != len(held[res]) {
				t.Fatalf("resource %d: %d calls, want %d", res, r.count(res), len(held[res]))
			}
			if len(held[res]) == 0 {
				continue
			}
			j := int32(rng.IntN(len(held[res])))
			if q%2 == 0 { // a walk back
				j = int32(len(held[res]) - 1 - q/2%len(held[res]))
			}
			ref := mpi.CallRef{Resource: res, Call: j}
			if got := *rd.call(ref); got != held[res][j] {
				t.Fatalf("memory %d, %v: %+v, want %+v", memory, ref, got, held[res][j])
			}
			at := held[res][j].Enter + trace.Time(rng.IntN(3)-1)
			if got, w := rd.firstEntered(res, at), want.firstEntered(res, at); got != w {
				t.Fatalf("memory %d, resource %d, first entered at or after %d: %d, want %d", memory, res, at, got, w)
			}
		}
		if !rd.ok {
			t.Fatal(spill.Err())
		}
		spill.Close()
	}
}

// The attribution's total time of each state on the path is its time
// within the path's extent on every resource: the time of every piece
// added up as the activities are built, less what falls before the path's
// start and after its end.
func TestAttributionTotalsWithinThePath(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	names := []string{"a", "b", "c"}
	for range 50 {
		total := make([]trace.Time, len(names))
		acts := make([]activity, 2)
		type ref struct {
			start, end trace.Time
			name       int32
		}
		var pieces [][]ref
		for i := range acts {
			acts[i] = newActivity(0, nil, total)
			var mine []ref
			at := trace.Time(0)
			for range 200 {
				d, n := trace.Time(1+rng.IntN(5)), int32(rng.IntN(len(names)))
				acts[i].add(at, at+d, n)
				mine = append(mine, ref{at, at + d, n})
				at += d
			}
			acts[i].finish()
			pieces = append(pieces, mine)
		}
		start := trace.Time(rng.IntN(300))
		end := start + 1 + trace.Time(rng.IntN(300))
		r := &Result{Resources: []string{"0", "1"}, Start: start, End: end,
			Segments: []Segment{{Resource: 0, Start: start, End: end, Via: "start", From: -1}}}
		a := attribute(r, acts, total, names)
		want := map[string]trace.Time{}
		for _, mine := range pieces {
			for _, p := range mine {
				if d := min(p.end, end) - max(p.start, start); d > 0 {
					want[names[p.name]] += d
				}
			}
		}
		for _, s := range a.ByState {
			if s.Total != want[s.State] {
				t.Fatalf("path [%d, %d]: %s totals %d, want %d", start, end, s.State, s.Total, want[s.State])
			}
		}
	}
}
