package critpath

import (
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// syntheticRun streams into sink a message-passing run shaped as
// bench/otf2_synth.py --mpi writes it (ranks ranks, steps time steps of a
// computation, a message exchange with rank xor 1 and an MPI_Allreduce),
// the states of each step coming rank after rank, as a reader merging
// the ranks by time hands them over.
func syntheticRun(sink trace.Sink, ranks, steps int) {
	sink.DefineType(trace.Type{Name: "Process", Kind: trace.KindContainer, Parent: trace.None})
	sink.DefineType(trace.Type{Name: "Region", Kind: trace.KindState, Parent: 0})
	sink.DefineType(trace.Type{Name: "MPI collective", Kind: trace.KindEvent, Parent: 0, Role: trace.RoleCollectiveEnd})
	sink.DefineType(trace.Type{Name: "MPI message", Kind: trace.KindLink, Parent: trace.None, Start: 0, End: 0})
	for _, n := range []string{"step", "compute", "MPI_Send", "MPI_Recv", "MPI_Allreduce"} {
		sink.DefineValue(trace.Value{Type: 1, Name: n})
	}
	sink.DefineValue(trace.Value{Type: 2, Name: "MPI_Allreduce", Category: "MPI_COMM_WORLD"})
	sink.DefineValue(trace.Value{Type: 3, Name: "message"})
	for range ranks {
		sink.CreateContainer(trace.Container{Name: "rank", Type: 0, Parent: 0, End: trace.Unset})
	}
	t0 := trace.Time(0)
	ready, done := make([]trace.Time, ranks), make([]trace.Time, ranks)
	seed := uint64(1)
	rand := func(n uint64) trace.Time {
		seed = seed*6364136223846793005 + 1442695040888963407
		return trace.Time((seed >> 33) % n)
	}
	for range steps {
		for r := range ranks {
			ready[r] = t0 + 10 + 1000 + rand(99_000)
			sink.State(trace.State{Container: int32(r + 1), Type: 1, Value: 1, Start: t0 + 10, End: ready[r], Depth: 1})
		}
		for a := 0; a < ranks; a += 2 {
			b := a + 1
			sa := ready[a]
			ea := sa + 200
			rbEnter := ready[b]
			rbLeave := max(rbEnter, sa+1000) + 100
			sb := rbLeave
			eb := sb + 200
			raLeave := max(ea, sb+1000) + 100
			ca, cb := int32(a+1), int32(b+1)
			sink.State(trace.State{Container: ca, Type: 1, Value: 2, Start: sa, End: ea, Depth: 1})
			sink.State(trace.State{Container: cb, Type: 1, Value: 3, Start: rbEnter, End: rbLeave, Depth: 1})
			sink.Link(trace.Link{Type: 3, Value: 6, Start: sa, End: rbLeave, From: ca, To: cb, Size: 4096})
			sink.State(trace.State{Container: cb, Type: 1, Value: 2, Start: sb, End: eb, Depth: 1})
			sink.State(trace.State{Container: ca, Type: 1, Value: 3, Start: ea, End: raLeave, Depth: 1})
			sink.Link(trace.Link{Type: 3, Value: 6, Start: sb, End: raLeave, From: cb, To: ca, Size: 4096})
			done[a], done[b] = raLeave+10, eb+10
		}
		last := trace.Time(0)
		for _, d := range done {
			last = max(last, d)
		}
		leave := last + 500
		for r := range ranks {
			c := int32(r + 1)
			sink.Event(trace.Event{Container: c, Type: 2, Value: 5, Time: leave})
			sink.State(trace.State{Container: c, Type: 1, Value: 4, Start: done[r], End: leave, Depth: 1})
			sink.State(trace.State{Container: c, Type: 1, Value: 0, Start: t0, End: leave + 10})
		}
		t0 = leave + 20
	}
	sink.Finish(0, t0)
}

// BenchmarkAccumulatorStream times the critical path's accumulator while
// a run of 64 ranks streams into it (its share of the read, the reader
// aside), and BenchmarkCounterStream the same stream into a sink that
// only counts. Timed in CPU (perf stat, /usr/bin/time): the records it
// writes make it memory bound.
func BenchmarkAccumulatorStream(b *testing.B) {
	for range b.N {
		a := New(Options{})
		syntheticRun(a, 64, 8000)
		a.Close()
	}
}

func BenchmarkCounterStream(b *testing.B) {
	for range b.N {
		var c trace.Counter
		syntheticRun(&c, 64, 8000)
	}
}

// BenchmarkAccumulatorStreamSpilled is BenchmarkAccumulatorStream with
// 8 MiB of records in memory: most records go to the spill file, as on
// a trace of tens of millions of calls.
func BenchmarkAccumulatorStreamSpilled(b *testing.B) {
	for range b.N {
		a := New(Options{SpillMemory: 8 << 20})
		syntheticRun(a, 64, 8000)
		a.Close()
	}
}
