package mpi

import (
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// BenchmarkBuilderCollectiveEnds builds the Run of a trace whose
// collectives are told by events at their ends (trace.RoleCollectiveEnd,
// Extrae's): 4 applications of 16 nodes of 4 ranks of 2 threads, each
// thread 500 barriers. Each end looks up its container's application.
func BenchmarkBuilderCollectiveEnds(b *testing.B) {
	tr := trace.New()
	def := func(ty trace.Type) int32 { tr.DefineType(ty); return int32(len(tr.Types) - 1) }
	create := func(c trace.Container) int32 { tr.CreateContainer(c); return int32(len(tr.Containers) - 1) }
	app := def(trace.Type{Name: "Application", Kind: trace.KindContainer, Parent: trace.None, Start: trace.None, End: trace.None, Role: trace.RoleApplication})
	node := def(trace.Type{Name: "Node", Kind: trace.KindContainer, Parent: app, Start: trace.None, End: trace.None})
	rank := def(trace.Type{Name: "Task", Kind: trace.KindContainer, Parent: node, Start: trace.None, End: trace.None})
	thread := def(trace.Type{Name: "Thread", Kind: trace.KindContainer, Parent: rank, Start: trace.None, End: trace.None, Role: trace.RoleThread})
	state := def(trace.Type{Name: "MPI", Kind: trace.KindState, Parent: thread, Start: trace.None, End: trace.None})
	end := def(trace.Type{Name: "Collective end", Kind: trace.KindEvent, Parent: thread, Start: trace.None, End: trace.None, Role: trace.RoleCollectiveEnd})
	tr.DefineValue(trace.Value{Type: state, Name: "MPI_Barrier"})
	tr.DefineValue(trace.Value{Type: end, Name: "end", Category: "1"})
	const barriers = 500
	for a := range 4 {
		ac := create(trace.Container{Name: "APPL", Type: app, Parent: 0, End: trace.Unset})
		for range 16 {
			nc := create(trace.Container{Name: "node", Type: node, Parent: ac, End: trace.Unset})
			for range 4 {
				rc := create(trace.Container{Name: "rank", Type: rank, Parent: nc, End: trace.Unset})
				for range 2 {
					tc := create(trace.Container{Name: "thread", Type: thread, Parent: rc, End: trace.Unset})
					for k := range barriers {
						t := trace.Time(100*k + a)
						tr.State(trace.State{Container: tc, Type: state, Value: 0, Start: t, End: t + 50})
						tr.Event(trace.Event{Container: tc, Type: end, Value: 1, Time: t + 40})
					}
				}
			}
		}
	}
	tr.Finish(0, 100*barriers)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FromTrace(tr); err != nil {
			b.Fatal(err)
		}
	}
}
