package critpath

import (
	"reflect"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/mpi"
)

// The accumulator keeps of each message only the two calls it was tied
// to, not run.Messages: its path and wait states are those FromRun finds
// from a run that keeps every message.
func TestAccumulatorKeepsNoMessages(t *testing.T) {
	for _, c := range []struct{ name, path, format string }{
		{"cp_mixed", "../../../testdata/critpath/cp_mixed.trace", "paje"},
		{"stencil4d-32", "../../../../shared/traces/tracer-stencil4d/stencil4d-otf/traces-32/traces.otf2", "otf2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := read(t, c.path, c.format)
			got, err := Compute(tr, Options{})
			if err != nil {
				t.Fatal(err)
			}
			run, err := mpi.FromTrace(tr)
			if err != nil {
				t.Fatal(err)
			}
			want, err := FromRun(run, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got.run.NumMessages != len(run.Messages) || len(run.Messages) == 0 {
				t.Errorf("%d messages counted, %d in the run", got.run.NumMessages, len(run.Messages))
			}
			if !reflect.DeepEqual(got.Segments, want.Segments) || !reflect.DeepEqual(got.Waits, want.Waits) {
				t.Errorf("accumulator: %d segments, %d waits; FromRun: %d, %d", len(got.Segments), len(got.Waits),
					len(want.Segments), len(want.Waits))
			}
			t.Logf("%d messages, %d waits, %d segments", len(run.Messages), len(got.Waits), len(got.Segments))
		})
	}
}

// Of a call's candidates that wait as long, the first message in the
// order of the links wins, though the accumulator meets them in the
// order of the resources. Rank 0's MPI_Waitall [0, 10] completes two
// messages, the first link from rank 2 (MPI_Send entered at 20), the
// second from rank 1 (entered at 30): both wait the whole call (10), and
// the wait is rank 2's, whose message comes first, but whose calls
// Blocks reaches after rank 1's. And in rank 0's MPI_Sendrecv [40, 50],
// the late sender of the message it receives from rank 2 (MPI_Send
// entered at 45, the link's start) ties with the late receiver of the
// one it sends rank 1 (MPI_Recv entered at 45, the link's start 47): 5
// each, and the late sender's link comes first.
func TestTiesInTheOrderOfTheLinks(t *testing.T) {
	tr := trace.New()
	tr.DefineType(trace.Type{Name: "rank", Kind: trace.KindContainer, Parent: trace.None, Start: trace.None, End: trace.None})
	tr.DefineType(trace.Type{Name: "STATE", Kind: trace.KindState, Parent: 0, Start: trace.None, End: trace.None})
	for _, n := range []string{"MPI_Waitall", "MPI_Send", "MPI_Recv", "MPI_Sendrecv"} {
		tr.DefineValue(trace.Value{Type: 1, Name: n})
	}
	const waitall, send, recv, sendrecv = 0, 1, 2, 3
	for _, n := range []string{"0", "1", "2"} {
		tr.CreateContainer(trace.Container{Name: n, Type: 0, Parent: 0, Start: 0, End: trace.Unset})
	}
	state := func(rank int32, v int32, start, end trace.Time) {
		tr.State(trace.State{Container: rank + 1, Type: 1, Value: v, Start: start, End: end})
	}
	state(0, waitall, 0, 10)
	state(0, sendrecv, 40, 50)
	state(1, send, 30, 31)
	state(1, recv, 45, 49)
	state(2, send, 20, 21)
	state(2, send, 45, 46)
	tr.Link(trace.Link{From: 3, To: 1, Start: 20, End: 10})
	tr.Link(trace.Link{From: 2, To: 1, Start: 30, End: 10})
	tr.Link(trace.Link{From: 3, To: 1, Start: 45, End: 50})
	tr.Link(trace.Link{From: 1, To: 2, Start: 47, End: 49})
	tr.Finish(0, 100)
	want := []Wait{
		{Call: mpi.CallRef{Resource: 0, Call: 0}, Wait: 10, Kind: LateSender, Cause: mpi.CallRef{Resource: 2, Call: 0}, At: 20},
		{Call: mpi.CallRef{Resource: 0, Call: 1}, Wait: 5, Kind: LateSender, Cause: mpi.CallRef{Resource: 2, Call: 1}, At: 45},
	}
	run, err := mpi.FromTrace(tr)
	if err != nil {
		t.Fatal(err)
	}
	if got := WaitStates(run); !reflect.DeepEqual(got, want) {
		t.Errorf("WaitStates: %+v, want %+v", got, want)
	}
	for _, memory := range []int64{1, 0} {
		r, err := Compute(tr, Options{SpillDir: t.TempDir(), SpillMemory: memory})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(r.Waits, want) {
			t.Errorf("spill memory %d: %+v, want %+v", memory, r.Waits, want)
		}
		r.Close()
	}
}

// The path ends at the latest entry into a resource's last MPI_Finalize,
// which the accumulator notes as it indexes the calls rather than reads
// them back: rank 0 enters MPI_Finalize twice, at 4 and at 11, with an
// MPI_Send between; rank 1's only MPI_Finalize is entered at 9. The path
// ends at 11, as FromRun finds it.
func TestPathEndsAtTheLastFinalize(t *testing.T) {
	tr := trace.New()
	tr.DefineType(trace.Type{Name: "rank", Kind: trace.KindContainer, Parent: trace.None, Start: trace.None, End: trace.None})
	tr.DefineType(trace.Type{Name: "STATE", Kind: trace.KindState, Parent: 0, Start: trace.None, End: trace.None})
	for _, n := range []string{"MPI_Init", "MPI_Send", "MPI_Recv", "MPI_Finalize"} {
		tr.DefineValue(trace.Value{Type: 1, Name: n})
	}
	const initCall, send, recv, finalize = 0, 1, 2, 3
	for _, n := range []string{"0", "1"} {
		tr.CreateContainer(trace.Container{Name: n, Type: 0, Parent: 0, Start: 0, End: trace.Unset})
	}
	state := func(rank int32, v int32, start, end trace.Time) {
		tr.State(trace.State{Container: rank + 1, Type: 1, Value: v, Start: start, End: end})
	}
	state(0, initCall, 0, 1)
	state(0, send, 2, 3)
	state(0, finalize, 4, 5)
	state(0, send, 6, 7)
	state(0, finalize, 11, 12)
	state(1, initCall, 0, 1)
	state(1, recv, 1, 8)
	state(1, finalize, 9, 10)
	tr.Link(trace.Link{From: 1, To: 2, Start: 6, End: 8})
	tr.Finish(0, 20)
	run, err := mpi.FromTrace(tr)
	if err != nil {
		t.Fatal(err)
	}
	want, err := FromRun(run, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want.End != 11 {
		t.Fatalf("FromRun: the path ends at %v, want 11", want.End)
	}
	for _, memory := range []int64{1, 0} {
		r, err := Compute(tr, Options{SpillDir: t.TempDir(), SpillMemory: memory})
		if err != nil {
			t.Fatal(err)
		}
		if r.End != want.End || !reflect.DeepEqual(r.Segments, want.Segments) || !reflect.DeepEqual(r.Waits, want.Waits) {
			t.Errorf("spill memory %d: path %+v ending at %v, want %+v", memory, r.Segments, r.End, want.Segments)
		}
		r.Close()
	}
}
