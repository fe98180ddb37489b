package critpath

import (
	"math"
	"slices"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/mpi"
)

type wantCost struct {
	resource, state string
	kind            WaitKind
	short, long     float64 // ns
}

// The delay costs of the SMPI runs, in closed form (testdata/gen/critpath:
// smpi_execute(d) lasts d exactly; a message takes 4 µs from its send).
func TestDelayCostsSMPI(t *testing.T) {
	for _, c := range []struct {
		name string
		want []wantCost
	}{
		// Rank 0 computes 3 s before sending to rank 1, which computed 1 s
		// and waits 2 s: rank 0's extra 2 s of computing cost 2 s. Rank 1
		// then computes 1 s and enters MPI_Barrier last: rank 0 waits 1 s
		// (its 1 s of computing since their last synchronisation), rank 2
		// 3 s, for rank 1's 2 s of computing less its own 1 s, the 4 µs
		// its message took and its 2 s of waiting, which passes 2 s of
		// long-term cost back to rank 0.
		{"cp_delay", []wantCost{
			{"rank-0", "computing", LateSender, 2e9, 0},
			{"rank-0", "computing", Collective, 0, 2e9},
			{"rank-1", "computing", Collective, 2e9, 0},
			{"rank-1", "PMPI_Recv", Collective, 4000, 0},
		}},
		// Rank 1 waits 0.5 s for rank 0 (1 s of computing against its
		// 0.5 s); rank 2 waits 2.800004 s for rank 1 (2.5 s of computing
		// against its 0.2 s, 4 µs of transfer, 0.5 s of waiting).
		{"cp_chain", []wantCost{
			{"rank-1", "computing", LateSender, 2.3e9, 0},
			{"rank-0", "computing", LateSender, 0.5e9, 0.5e9},
			{"rank-1", "PMPI_Recv", LateSender, 4000, 0},
		}},
		{"cp_laterecv", []wantCost{
			{"rank-1", "computing", LateReceiver, 2e9, 0},
		}},
		// Rank 1 waits 1 s for rank 0, then computes 2 s and enters
		// MPI_Allreduce last: rank 0 waits 1.8 s, ranks 2 and 3 2.5 s; rank
		// 3 then computes 0.4 s more than rank 2 before sending to it.
		{"cp_mixed", []wantCost{
			{"rank-1", "computing", Collective, 4.8e9, 0},
			{"rank-0", "computing", Collective, 0, 2e9},
			{"rank-0", "computing", LateSender, 1e9, 0},
			{"rank-3", "computing", LateSender, 0.4e9, 0},
			{"rank-1", "PMPI_Recv", Collective, 8000, 0},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := read(t, "../../../testdata/critpath/"+c.name+".trace", "paje")
			r, err := Compute(tr, Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkCosts(t, r, r.DelayCosts().Costs, c.want)
		})
	}
}

// checkCosts checks the delay costs got of r against want, in order, to
// a thousandth of a nanosecond.
func checkCosts(t *testing.T, r *Result, got []DelayCost, want []wantCost) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d costs, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if r.Resources[g.Resource] != w.resource || g.State != w.state || g.Kind != w.kind ||
			math.Abs(g.ShortTerm-w.short) > 1e-3 || math.Abs(g.LongTerm-w.long) > 1e-3 {
			t.Errorf("cost %d: %s %s %v short %v long %v, want %+v", i, r.Resources[g.Resource], g.State, g.Kind, g.ShortTerm, g.LongTerm, w)
		}
	}
}

// On Score-P's stencil (wait states through messages and barriers), the
// short-term costs of each kind add up to at most the waiting of that
// kind (each wait state hands out at most its wait), and are positive.
func TestDelayCostsBounded(t *testing.T) {
	tr := read(t, "../../../../shared/traces/tracer-stencil4d/stencil4d-otf/traces-32/traces.otf2", "otf2")
	r, err := Compute(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var waited, short [4]float64
	for _, w := range r.Waits {
		waited[w.Kind] += float64(w.Wait)
	}
	for _, c := range r.DelayCosts().Costs {
		if c.ShortTerm < 0 || c.LongTerm < 0 || c.ShortTerm+c.LongTerm == 0 {
			t.Errorf("cost %+v", c)
		}
		short[c.Kind] += c.ShortTerm
	}
	for k := range short {
		if short[k] > waited[k]*(1+1e-12) {
			t.Errorf("%v: short-term costs %v > waiting %v", WaitKind(k), short[k], waited[k])
		}
	}
	if len(r.DelayCosts().Costs) == 0 || short[LateSender] == 0 {
		t.Errorf("costs %+v", r.DelayCosts().Costs)
	}
	t.Logf("%d costs; short-term %v of waiting %v", len(r.DelayCosts().Costs), short, waited)
}

// A wait state whose call has no time of its own in what its resource
// did (its time went to a call overlapping it, which buildActivity keeps
// whole) takes nothing off later wait states' intervals. Rank 0 receives
// from rank 2 in MPI_Recv [10, 18] (sent at 0: no wait), then waits for
// rank 1 in MPI_Recv [30, 50] (sent at 45: C, 15), for rank 2 in MPI_Recv
// [60, 80] (sent at 70: B, 10) and for rank 1 in MPI_Recv [90, 120] (sent
// at 110: A, 20). Rank 1 receives from rank 2 in MPI_Recv [5, 25] (no
// wait) and sends in MPI_Send [45, 46] and [110, 111]; rank 2 sends in
// [0, 1], [2, 3] and [70, 71]. Calls cannot overlap in a run (of nested
// calls the outermost is the call), so rank 0's activity is then rebuilt
// as if an MPI_Waitall [60, 80] held B's MPI_Recv: [60, 80] is the
// Waitall's, and MPI_Recv has no time there.
//
// Backwards: A's interval on rank 1 is [46, 110), 64 of no state; on
// rank 0 [50, 90), 20 of no state (and 20 of MPI_Recv less B's 10, or
// 20 of MPI_Waitall). Rank 1's 64 - 20 = 44 of no state cost A's 20.
// B's interval on rank 2 is [0, 70): 2 of MPI_Send and 68 of no state;
// on rank 0 [0, 60): 32 of no state. The delays, 2 of MPI_Send and 68 -
// 32 = 36 of no state, share B's 10: 10/38 of each. C's interval on rank
// 1 is [0, 45): 25 of no state and 20 of MPI_Recv; on rank 0 [0, 30): 22
// of no state and 8 of MPI_Recv. C's 15 goes 3 to no state and 12 to
// MPI_Recv, with or without the Waitall. Were B's 10 taken off rank 0's
// MPI_Recv in A's interval with the Waitall, where it has no time, and
// left there, B's interval would end with -10 + 8 + 20 - 15 = 3 of it,
// and C's with 3 + 8 = 11: rank 1's MPI_Recv would cost 20 - 11 = 9.
func TestDelayCostsCallWithoutTime(t *testing.T) {
	tr := trace.New()
	tr.DefineType(trace.Type{Name: "rank", Kind: trace.KindContainer, Parent: trace.None, Start: trace.None, End: trace.None})
	tr.DefineType(trace.Type{Name: "STATE", Kind: trace.KindState, Parent: 0, Start: trace.None, End: trace.None})
	for _, n := range []string{"MPI_Send", "MPI_Recv", "MPI_Waitall"} {
		tr.DefineValue(trace.Value{Type: 1, Name: n})
	}
	const send, recv, waitall = 0, 1, 2
	for _, n := range []string{"0", "1", "2"} {
		tr.CreateContainer(trace.Container{Name: n, Type: 0, Parent: 0, Start: 0, End: trace.Unset})
	}
	state := func(rank int32, v int32, start, end trace.Time) {
		tr.State(trace.State{Container: rank + 1, Type: 1, Value: v, Start: start, End: end})
	}
	message := func(from, to int32, sent, received trace.Time) {
		tr.Link(trace.Link{From: from + 1, To: to + 1, Start: sent, End: received})
	}
	state(0, recv, 10, 18)
	state(0, recv, 30, 50)
	state(0, recv, 60, 80)
	state(0, recv, 90, 120)
	state(1, recv, 5, 25)
	state(1, send, 45, 46)
	state(1, send, 110, 111)
	state(2, send, 0, 1)
	state(2, send, 2, 3)
	state(2, send, 70, 71)
	state(2, waitall, 80, 90) // completes nothing: the name of rank 0's Waitall
	message(2, 0, 0, 15)
	message(2, 1, 2, 20)
	message(1, 0, 45, 48)
	message(2, 0, 70, 75)
	message(1, 0, 110, 115)
	tr.Finish(0, 130)
	want := []wantCost{
		{"1", NoState, LateSender, 20 + 3, 0},
		{"1", "MPI_Recv", LateSender, 12, 0},
		{"2", NoState, LateSender, 36 * 10.0 / 38, 0},
		{"2", "MPI_Send", LateSender, 2 * 10.0 / 38, 0},
	}
	r, err := Compute(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Waits) != 3 {
		t.Fatalf("wait states %+v, want C, B and A", r.Waits)
	}
	checkCosts(t, r, r.DelayCosts().Costs, want)

	// Rank 0's calls, with the Waitall B's MPI_Recv is taken to be in.
	rd := r.run.reader()
	var calls []mpi.Call
	for j := range int32(r.run.count(0)) {
		calls = append(calls, *rd.call(mpi.CallRef{Resource: 0, Call: j}))
	}
	waitallName := int32(slices.Index(r.run.Names, "MPI_Waitall"))
	calls = slices.Insert(calls, 2, mpi.Call{Enter: 60, Leave: 80, Name: waitallName, Coll: -1})
	act := newActivity(r.run.Start, nil, nil)
	buildActivity(r.run.Start, r.run.End, calls, nil, r.callName, int32(slices.Index(r.stateNames, NoState)), &act)
	acts := slices.Clone(r.acts)
	acts[0] = act
	var waitallTime trace.Time
	act.each(60, 80, func(s, e trace.Time, n int32) {
		if r.stateNames[n] == "MPI_Waitall" {
			waitallTime += e - s
		}
	})
	if waitallTime != 20 {
		t.Fatalf("rank 0 in MPI_Waitall %v of [60, 80]", waitallTime)
	}
	d, err := delayCosts(r, acts, r.callName, r.stateNames, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkCosts(t, r, d.Costs, want)
}
