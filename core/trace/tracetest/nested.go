// Package tracetest makes traces in memory for the tests of the packages
// that compute on them.
package tracetest

import (
	"runtime"
	"strconv"
	"time"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Nested returns a trace of resources threads under one process, each
// making calls calls "compute" (or "exchange", one in three) of 10 ns,
// 2 ns apart, each with a call "inner" nested in it from its 3rd to its
// 7th ns: a trace of 2 x resources x calls states, as large as a test of
// a long computation needs.
func Nested(resources, calls int) *trace.Trace {
	t := trace.New()
	process := int32(len(t.Types))
	t.DefineType(trace.Type{Name: "Process", Kind: trace.KindContainer, Parent: trace.None})
	thread := int32(len(t.Types))
	t.DefineType(trace.Type{Name: "Thread", Kind: trace.KindContainer, Parent: process})
	state := int32(len(t.Types))
	t.DefineType(trace.Type{Name: "Function", Kind: trace.KindState, Parent: thread})
	values := make([]int32, 3)
	for i, name := range []string{"compute", "exchange", "inner"} {
		values[i] = int32(len(t.Values))
		t.DefineValue(trace.Value{Type: state, Name: name})
	}
	end := trace.Time(12 * calls)
	t.CreateContainer(trace.Container{Name: "process", Type: process, Parent: 0, Start: 0, End: end})
	for r := range resources {
		c := int32(len(t.Containers))
		t.CreateContainer(trace.Container{Name: "thread " + strconv.Itoa(r), Type: thread, Parent: 1, Start: 0, End: end})
		for k := range calls {
			at := trace.Time(12 * k)
			outer := values[0]
			if k%3 == 2 {
				outer = values[1]
			}
			order := int32(2 * k)
			t.State(trace.State{Container: c, Type: state, Value: outer, Start: at, End: at + 10, Depth: 0, Order: order})
			t.State(trace.State{Container: c, Type: state, Value: values[2], Start: at + 3, End: at + 7, Depth: 1, Order: order + 1})
		}
	}
	t.Finish(0, end)
	return t
}

// Settled waits, up to a few seconds, until no more goroutines run than
// before, and returns how many run: a computation stopped by its Cancel
// channel must leave none behind.
func Settled(before int) int {
	n := runtime.NumGoroutine()
	for wait := time.Millisecond; n > before && wait < 4*time.Second; wait *= 2 {
		time.Sleep(wait)
		n = runtime.NumGoroutine()
	}
	return n
}

// Closed returns a Cancel channel already closed: the user's interrupt
// before a computation begins, which must then stop at its first look.
func Closed() <-chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}
