package mpi

import (
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Two applications of one trace (trace.RoleApplication), two ranks each,
// every rank in two barriers no event gives a communicator: each
// application's barriers pair among its own ranks, never with the other
// application's (which would make one collective of four calls whose
// waits cross programs).
func TestCollectivesOfApplicationsPairApart(t *testing.T) {
	tr := trace.New()
	def := func(ty trace.Type) int32 { tr.DefineType(ty); return int32(len(tr.Types) - 1) }
	create := func(c trace.Container) int32 { tr.CreateContainer(c); return int32(len(tr.Containers) - 1) }
	app := def(trace.Type{Name: "Application", Kind: trace.KindContainer, Parent: trace.None, Start: trace.None, End: trace.None, Role: trace.RoleApplication})
	rank := def(trace.Type{Name: "Rank", Kind: trace.KindContainer, Parent: app, Start: trace.None, End: trace.None})
	state := def(trace.Type{Name: "MPI", Kind: trace.KindState, Parent: rank, Start: trace.None, End: trace.None})
	tr.DefineValue(trace.Value{Type: state, Name: "MPI_Barrier"})
	const barrier = 0
	for a, appName := range []string{"APPL 1", "APPL 2"} {
		ac := create(trace.Container{Name: appName, Type: app, Parent: 0, End: trace.Unset})
		for r := range 2 {
			rc := create(trace.Container{Name: "rank", Type: rank, Parent: ac, End: trace.Unset})
			for k := range 2 {
				// Each application's ranks leave their barrier together;
				// the second application's later than the first's.
				start := trace.Time(10*k + r + 3*a)
				tr.State(trace.State{Container: rc, Value: barrier, Start: start, End: trace.Time(10*k + 5 + 3*a)})
			}
		}
	}
	tr.Finish(0, 30)
	run, err := FromTrace(tr)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Collectives) != 4 {
		t.Fatalf("%d collectives, want 4 (two barriers of each application)", len(run.Collectives))
	}
	for i, c := range run.Collectives {
		if len(c.Members) != 2 {
			t.Fatalf("collective %d has %d calls, want 2", i, len(c.Members))
		}
		a, b := c.Members[0].Resource, c.Members[1].Resource
		if run.Resources[a].Path[:6] != run.Resources[b].Path[:6] {
			t.Errorf("collective %d pairs %s with %s", i, run.Resources[a].Path, run.Resources[b].Path)
		}
		if got, want := run.Comms[c.Comm], run.Resources[a].Path[:6]; got != want {
			t.Errorf("collective %d on communicator %q, want %q", i, got, want)
		}
	}
}

// Collectives told by events at their ends (trace.RoleCollectiveEnd) of
// one value, communicator "1", in two applications whose ranks nest a
// level deeper (application, node, rank), the ends of the applications
// interleaved in time: each application's are on its own communicator 1
// (the application is its container's, set once; the last end's
// communicator is kept only for the same application and value).
func TestCollectiveEndsOfApplicationsPairApart(t *testing.T) {
	tr := trace.New()
	def := func(ty trace.Type) int32 { tr.DefineType(ty); return int32(len(tr.Types) - 1) }
	create := func(c trace.Container) int32 { tr.CreateContainer(c); return int32(len(tr.Containers) - 1) }
	app := def(trace.Type{Name: "Application", Kind: trace.KindContainer, Parent: trace.None, Start: trace.None, End: trace.None, Role: trace.RoleApplication})
	node := def(trace.Type{Name: "Node", Kind: trace.KindContainer, Parent: app, Start: trace.None, End: trace.None})
	rank := def(trace.Type{Name: "Rank", Kind: trace.KindContainer, Parent: node, Start: trace.None, End: trace.None})
	state := def(trace.Type{Name: "MPI", Kind: trace.KindState, Parent: rank, Start: trace.None, End: trace.None})
	end := def(trace.Type{Name: "Collective end", Kind: trace.KindEvent, Parent: rank, Start: trace.None, End: trace.None, Role: trace.RoleCollectiveEnd})
	tr.DefineValue(trace.Value{Type: state, Name: "MPI_Barrier"})
	tr.DefineValue(trace.Value{Type: end, Name: "end", Category: "1"})
	var ranks [2][2]int32
	for a, appName := range []string{"APPL 1", "APPL 2"} {
		ac := create(trace.Container{Name: appName, Type: app, Parent: 0, End: trace.Unset})
		nc := create(trace.Container{Name: "node", Type: node, Parent: ac, End: trace.Unset})
		for r := range 2 {
			ranks[a][r] = create(trace.Container{Name: "rank", Type: rank, Parent: nc, End: trace.Unset})
		}
	}
	for k := range 3 {
		for r := range 2 {
			for a := range 2 {
				at := trace.Time(10*k + r + a)
				tr.State(trace.State{Container: ranks[a][r], Type: state, Value: 0, Start: at, End: at + 5})
				tr.Event(trace.Event{Container: ranks[a][r], Type: end, Value: 1, Time: at + 4})
			}
		}
	}
	tr.Finish(0, 40)
	run, err := FromTrace(tr)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Collectives) != 6 {
		t.Fatalf("%d collectives, want 6 (three barriers of each application)", len(run.Collectives))
	}
	for i, c := range run.Collectives {
		if len(c.Members) != 2 {
			t.Fatalf("collective %d has %d calls, want 2", i, len(c.Members))
		}
		a, b := run.Resources[c.Members[0].Resource].Path, run.Resources[c.Members[1].Resource].Path
		if a[:6] != b[:6] {
			t.Errorf("collective %d pairs %s with %s", i, a, b)
		}
		if got, want := run.Comms[c.Comm], "1 of "+a[:6]; got != want {
			t.Errorf("collective %d on communicator %q, want %q", i, got, want)
		}
	}
}
