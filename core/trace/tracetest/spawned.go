package tracetest

import (
	"math"
	"strconv"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Spawned returns a trace of threads threads under one process, thread k
// (k >= 1) created by thread (k-1)/2 at k ns through a link of type
// "spawn" and value "worker" (thread 0 has no creator): a binary spawn
// tree of threads nodes, as large as a test of a long computation on
// links needs.
func Spawned(threads int) *trace.Trace {
	t := trace.New()
	process := int32(len(t.Types))
	t.DefineType(trace.Type{Name: "Process", Kind: trace.KindContainer, Parent: trace.None})
	thread := int32(len(t.Types))
	t.DefineType(trace.Type{Name: "Thread", Kind: trace.KindContainer, Parent: process})
	spawn := int32(len(t.Types))
	t.DefineType(trace.Type{Name: "spawn", Kind: trace.KindLink, Parent: process, Start: thread, End: thread})
	worker := int32(len(t.Values))
	t.DefineValue(trace.Value{Type: spawn, Name: "worker"})
	end := trace.Time(threads + 1)
	t.CreateContainer(trace.Container{Name: "process", Type: process, Parent: 0, Start: 0, End: end})
	first := int32(len(t.Containers))
	for k := range threads {
		t.CreateContainer(trace.Container{Name: "thread " + strconv.Itoa(k), Type: thread, Parent: 1,
			Start: trace.Time(k), End: end})
	}
	for k := 1; k < threads; k++ {
		t.Link(trace.Link{Container: 1, Type: spawn, Value: worker, Start: trace.Time(k), End: trace.Time(k),
			From: first + int32((k-1)/2), To: first + int32(k), Size: math.NaN()})
	}
	t.Finish(0, end)
	return t
}
