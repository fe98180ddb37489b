package critpath

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// gpuTrace builds small traces of CPU threads and GPU streams: states
// (name, container, start, end, depth) and links between them.
type gpuTrace struct {
	t      *trace.Trace
	values map[string]int32
	conts  map[string]int32
}

const (
	tyThread = iota
	tyState
	tyLaunch
	tyFlow
	tyWait
)

func newGPUTrace(containers ...string) *gpuTrace {
	g := &gpuTrace{t: trace.New("test"), values: map[string]int32{}, conts: map[string]int32{}}
	g.t.DefineType(trace.Type{Name: "Thread", Kind: trace.KindContainer, Parent: trace.None})
	g.t.DefineType(trace.Type{Name: "State", Kind: trace.KindState, Parent: tyThread})
	// The types are named as no reader names them: the view reads their
	// roles only.
	g.t.DefineType(trace.Type{Name: "Enqueue", Kind: trace.KindLink, Parent: trace.None, Start: tyThread, End: tyThread, Role: trace.RoleLaunch})
	g.t.DefineType(trace.Type{Name: "Flow", Kind: trace.KindLink, Parent: trace.None, Start: tyThread, End: tyThread})
	g.t.DefineType(trace.Type{Name: "Awaits", Kind: trace.KindLink, Parent: trace.None, Start: tyThread, End: tyThread, Role: trace.RoleEventWait})
	for _, c := range containers {
		g.conts[c] = int32(len(g.t.Containers))
		g.t.CreateContainer(trace.Container{Name: c, Type: tyThread, Parent: 0})
	}
	return g
}

// value is the value named name, of the role the readers give a GPU
// runtime's call of that name (trace.GPUCallRole): the tests name the
// calls as CUDA does, for the reader, and the view reads the roles.
func (g *gpuTrace) value(name string) int32 {
	v, ok := g.values[name]
	if !ok {
		v = int32(len(g.t.Values))
		g.values[name] = v
		g.t.DefineValue(trace.Value{Type: tyState, Name: name, Role: trace.GPUCallRole(name)})
	}
	return v
}

func (g *gpuTrace) state(cont, name string, start, end trace.Time, depth int32) {
	g.t.State(trace.State{Container: g.conts[cont], Type: tyState, Value: g.value(name), Start: start, End: end, Depth: depth})
}

// roled is state, of a value of role role: the names the tests give such
// values are no reader's, as the view reads their roles only.
func (g *gpuTrace) roled(cont, name string, role trace.Role, start, end trace.Time, depth int32) {
	v, ok := g.values[name]
	if !ok {
		v = int32(len(g.t.Values))
		g.values[name] = v
		g.t.DefineValue(trace.Value{Type: tyState, Name: name, Role: role})
	}
	g.t.State(trace.State{Container: g.conts[cont], Type: tyState, Value: v, Start: start, End: end, Depth: depth})
}

// launch links the call at (from, start) to the operation at (to, at).
func (g *gpuTrace) launch(from string, start trace.Time, to string, at trace.Time) {
	g.t.Link(trace.Link{Type: tyLaunch, From: g.conts[from], To: g.conts[to], Start: start, End: at, Size: math.NaN()})
}

func (g *gpuTrace) flow(from string, start trace.Time, to string, at trace.Time) {
	g.t.Link(trace.Link{Type: tyFlow, From: g.conts[from], To: g.conts[to], Start: start, End: at, Size: math.NaN()})
}

// wait links the stream a CUDA event was recorded on, at the record, to
// the synchronisation at (to, at) that waits for it.
func (g *gpuTrace) wait(stream string, recorded trace.Time, to string, at trace.Time) {
	g.t.Link(trace.Link{Type: tyWait, From: g.conts[stream], To: g.conts[to], Start: recorded, End: at, Size: math.NaN()})
}

func (g *gpuTrace) path(t *testing.T) *Result {
	t.Helper()
	g.t.Finish(0, 1000)
	r, err := Compute(g.t, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// seg is a segment as the tests write it.
type seg struct {
	res        string
	start, end trace.Time
	kind, name string
}

func checkPath(t *testing.T, r *Result, semantics string, length trace.Time, want []seg) {
	t.Helper()
	if r.Semantics != semantics {
		t.Errorf("semantics %q, want %q", r.Semantics, semantics)
	}
	if r.Length() != length {
		t.Errorf("length %d, want %d", r.Length(), length)
	}
	var got []seg
	for _, s := range r.Segments {
		got = append(got, seg{r.Resources[s.Resource], s.Start, s.End, s.Via, s.Name})
	}
	if len(got) != len(want) {
		t.Fatalf("segments:\n%v\nwant\n%v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("segment %d: %v, want %v\nall: %v", i, got[i], want[i], got)
		}
	}
}

// A chain of launches: each call launches a kernel on an idle stream,
// so the path goes from the call through its launch delay to the kernel;
// the longest reaches the second kernel, which ends last.
//
//	cpu     |step--------------------------------------------------|0-105
//	           |L1|10-20                 |L2|90-100
//	stream 7          |k1 30-80|                  |k2 110-200---------|
func TestGraphLaunchChain(t *testing.T) {
	g := newGPUTrace("cpu", "stream 7")
	g.state("cpu", "step", 0, 105, 0)
	g.state("cpu", "cudaLaunchKernel", 10, 20, 1)
	g.state("cpu", "cudaLaunchKernel", 90, 100, 1)
	g.state("stream 7", "k1", 30, 80, 0)
	g.state("stream 7", "k2", 110, 200, 0)
	g.launch("cpu", 10, "stream 7", 30)
	g.launch("cpu", 90, "stream 7", 110)
	// step.s -10-> L1.s -10-> L1.e -70-> L2.s -20-> k2.s -90-> k2.e: 200,
	// the CPU alone 105, through k1 80.
	checkPath(t, g.path(t), HTA, 200, []seg{
		{"cpu", 0, 10, EdgeCompute, "step"},
		{"cpu", 10, 20, EdgeCompute, "cudaLaunchKernel"},
		{"cpu", 20, 90, EdgeCompute, "step"}, // between two calls: their parent's
		{"stream 7", 90, 110, EdgeLaunch, ""},
		{"stream 7", 110, 200, EdgeKernel, "k2"},
	})
}

// A kernel launched while the stream is busy follows the previous one
// (kernel-kernel), not its launch.
func TestGraphQueuedKernel(t *testing.T) {
	g := newGPUTrace("cpu", "stream 7")
	g.state("cpu", "cudaLaunchKernel", 0, 10, 0)
	g.state("cpu", "cudaLaunchKernel", 20, 30, 0)
	g.state("stream 7", "k1", 15, 100, 0)
	g.state("stream 7", "k2", 105, 150, 0)
	g.launch("cpu", 0, "stream 7", 15)
	g.launch("cpu", 20, "stream 7", 105)
	// 0 -15-> k1 (85) -5-> k2 (45): 150.
	checkPath(t, g.path(t), HTA, 150, []seg{
		{"stream 7", 0, 15, EdgeLaunch, ""},
		{"stream 7", 15, 100, EdgeKernel, "k1"},
		{"stream 7", 100, 105, EdgeKernelGap, "k1"},
		{"stream 7", 105, 150, EdgeKernel, "k2"},
	})
}

// A synchronisation: the CPU waits in cudaStreamSynchronize for the
// kernel; the wait is not the CPU's (the call's end weighs nothing), the
// path goes through the kernel and back to the CPU at the call's end.
// The stream records the synchronisation (trace.RoleStreamSync: Kineto's
// "Stream Sync") on an overlap lane, as the readers place a state
// overlapping another.
//
//	cpu       |step-----------------------------------------------|0-300
//	            |L1|10-20  |cudaStreamSynchronize 40-210| |add|220-250
//	stream 7          |k1 30-200------------------|
//	  lane 1               |Stream Sync 40-210---------|
func TestGraphSyncWait(t *testing.T) {
	for _, recorded := range []bool{true, false} {
		name := "recorded"
		if !recorded {
			name = "host side" // Nsight Systems: no synchronisation on the GPU side
		}
		t.Run(name, func(t *testing.T) {
			g := newGPUTrace("cpu", "stream 7", "stream 7 (overlap lane 1)")
			g.state("cpu", "step", 0, 300, 0)
			g.state("cpu", "cudaLaunchKernel", 10, 20, 1)
			g.state("cpu", "cudaStreamSynchronize", 40, 210, 1)
			g.state("cpu", "aten::add", 220, 250, 1)
			g.state("stream 7", "k1", 30, 200, 0)
			g.launch("cpu", 10, "stream 7", 30)
			if recorded {
				g.roled("stream 7 (overlap lane 1)", "waits for the stream", trace.RoleStreamSync, 40, 210, 0)
				g.launch("cpu", 40, "stream 7", 40) // the flow lands on the stream, its state on the lane
			}
			// 10 + launch 20 + k1 170 + sync 0 + 10 + 30 + 50 = 290; the CPU alone 130.
			checkPath(t, g.path(t), HTA, 290, []seg{
				{"cpu", 0, 10, EdgeCompute, "step"},
				{"stream 7", 10, 30, EdgeLaunch, ""},
				{"stream 7", 30, 200, EdgeKernel, "k1"},
				{"cpu", 210, 210, EdgeSyncWait, ""},
				{"cpu", 210, 220, EdgeCompute, "step"},
				{"cpu", 220, 250, EdgeCompute, "aten::add"},
				{"cpu", 250, 300, EdgeCompute, "step"},
			})
		})
	}
}

// Two streams and a device-wide synchronisation (trace.RoleContextSync:
// Kineto's "Context Sync"): the
// path takes the stream that finishes last.
//
//	cpu       |step-------------------------------------------------|0-500
//	            |L1|10-20 |L2|40-50 |cudaDeviceSynchronize 60-410|
//	stream 7          |kA 30-100|
//	stream 8                    |kB 60-400-----------------|
func TestGraphTwoStreams(t *testing.T) {
	g := newGPUTrace("cpu", "stream 7", "stream 8")
	g.state("cpu", "step", 0, 500, 0)
	g.state("cpu", "cudaLaunchKernel", 10, 20, 1)
	g.state("cpu", "cudaLaunchKernel", 40, 50, 1)
	g.state("cpu", "cudaDeviceSynchronize", 60, 410, 1)
	g.state("stream 7", "kA", 30, 100, 0)
	g.state("stream 8", "kB", 60, 400, 0)
	g.roled("stream 8", "waits for the device", trace.RoleContextSync, 405, 410, 0)
	g.launch("cpu", 10, "stream 7", 30)
	g.launch("cpu", 40, "stream 8", 60)
	g.launch("cpu", 60, "stream 8", 405)
	// Through kB: 40 + launch 20 + 340 = 400 at kB's end, then the
	// call's end (410) and step's: 490. Through kA: 100; the CPU: 150.
	checkPath(t, g.path(t), HTA, 490, []seg{
		{"cpu", 0, 10, EdgeCompute, "step"},
		{"cpu", 10, 20, EdgeCompute, "cudaLaunchKernel"},
		{"cpu", 20, 40, EdgeCompute, "step"},
		{"stream 8", 40, 60, EdgeLaunch, ""},
		{"stream 8", 60, 400, EdgeKernel, "kB"},
		{"cpu", 410, 410, EdgeSyncWait, ""},
		{"cpu", 410, 500, EdgeCompute, "step"},
	})
	r := g.path(t)
	on := map[string]trace.Time{}
	for _, s := range r.Attribution.ByState {
		on[s.State] = s.OnPath
	}
	if on["kB"] != 340 || on["step"] != 120 || on["(launch delay)"] != 20 || on["cudaLaunchKernel"] != 10 {
		t.Errorf("time on the path by name: %v", on)
	}
}

// Tasks joined by flows (no launches): the longest path through the
// dependencies, each weighing the time from its source's end to its
// destination's start.
func TestGraphDependencies(t *testing.T) {
	g := newGPUTrace("worker 0", "worker 1")
	g.state("worker 0", "A", 0, 100, 0)
	g.state("worker 0", "C", 110, 130, 0)
	g.state("worker 1", "B", 150, 250, 0)
	g.flow("worker 0", 100, "worker 1", 150)
	// A 100 + 50 + B 100 = 250; worker 0 alone: 100 + 0 + 20.
	checkPath(t, g.path(t), Dependencies, 250, []seg{
		{"worker 0", 0, 100, EdgeCompute, "A"},
		{"worker 1", 100, 150, EdgeDependency, ""},
		{"worker 1", 150, 250, EdgeCompute, "B"},
	})
}

// The Chrome reader's async lanes (trace.RoleAsyncLane) hold the operations of
// many async ids one after the other: each is a call stack of its own,
// never a dependency of the one before it, so that the lane below, whose
// two operations would chain to 290, does not outweigh the flow's 250.
func TestGraphAsyncLanes(t *testing.T) {
	g := newGPUTrace("worker 0", "worker 1")
	g.t.DefineType(trace.Type{Name: "Requests", Kind: trace.KindContainer, Parent: trace.None, Role: trace.RoleAsyncLane})
	g.conts["req"] = int32(len(g.t.Containers))
	g.t.CreateContainer(trace.Container{Name: "req", Type: tyWait + 1, Parent: 0})
	g.state("worker 0", "A", 0, 100, 0)
	g.state("worker 1", "B", 150, 250, 0)
	g.flow("worker 0", 100, "worker 1", 150)
	g.state("req", "req", 0, 200, 0)
	g.state("req", "req", 210, 300, 0)
	checkPath(t, g.path(t), Dependencies, 250, []seg{
		{"worker 0", 0, 100, EdgeCompute, "A"},
		{"worker 1", 100, 150, EdgeDependency, ""},
		{"worker 1", 150, 250, EdgeCompute, "B"},
	})
}

// A browser binds a flow to the slice enclosing each of its ends, and a
// handler may receive a reply in its middle: here flows join io's C (at
// its end, 40) to main's B (50-300, begun after) and main's A (100-110,
// inside B) at 105 to B at 250, B having begun before A. The first joins
// C's end to B's start; the second leaves A at its own time and arrives
// at B at its own (points inside the states the call stack walks
// through), never back in time, and the path's segments stay one per
// state's stretch.
func TestGraphFlowsInsideStates(t *testing.T) {
	g := newGPUTrace("main", "io")
	g.state("main", "B", 50, 300, 0)
	g.state("main", "A", 100, 110, 1)
	g.state("io", "C", 0, 40, 0)
	g.flow("io", 40, "main", 60)
	g.flow("main", 105, "main", 250)
	checkPath(t, g.path(t), Dependencies, 300, []seg{
		{"io", 0, 40, EdgeCompute, "C"},
		{"main", 40, 50, EdgeDependency, ""},
		{"main", 50, 100, EdgeCompute, "B"},
		{"main", 100, 110, EdgeCompute, "A"},
		{"main", 110, 300, EdgeCompute, "B"},
	})
}

// A flow leaving a state in its middle for a state that begins later
// leaves at its own time: the path goes from A's start through the point
// at 30 to B, not through A's end, and weighs the flow's 70.
func TestGraphFlowLeavesInside(t *testing.T) {
	g := newGPUTrace("worker 0", "worker 1")
	g.state("worker 0", "A", 0, 200, 0)
	g.state("worker 1", "B", 100, 400, 0)
	g.flow("worker 0", 30, "worker 1", 100)
	checkPath(t, g.path(t), Dependencies, 400, []seg{
		{"worker 0", 0, 30, EdgeCompute, "A"},
		{"worker 1", 30, 100, EdgeDependency, ""},
		{"worker 1", 100, 400, EdgeCompute, "B"},
	})
}

// Flows joining two resources both ways at one instant make the graph
// loop: the refusal names a link of the loop and the instant, from the
// trace's start.
func TestGraphCycleNamed(t *testing.T) {
	g := newGPUTrace("worker 0", "worker 1")
	g.state("worker 0", "X", 0, 10, 0)
	g.state("worker 0", "Y", 10, 20, 0)
	g.state("worker 1", "P", 0, 10, 0)
	g.state("worker 1", "Q", 10, 20, 0)
	g.flow("worker 0", 10, "worker 1", 10)
	g.flow("worker 1", 10, "worker 0", 10)
	g.t.Finish(0, 300)
	_, err := Compute(g.t, Options{})
	var fe *errs.FormatError
	want := `links join states both ways at one instant (one from "Y" on worker 0, begun at 0.000000010 s, to "Q" on worker 1, begun at 0.000000010 s, from the trace's start, at 0.000000010 s)`
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want a format error (the data's fault) saying %q", err, want)
	}
	// The caller that opened the trace names its file, once.
	if got := errs.NameFile(err, "w.json").Error(); !strings.HasPrefix(got, "w.json: the graph of the critical path has a cycle") {
		t.Errorf("named: %q", got)
	}
}

// Neither MPI calls nor links: a clear refusal naming what is missing.
func TestGraphRefused(t *testing.T) {
	g := newGPUTrace("cpu")
	g.state("cpu", "work", 0, 10, 0)
	g.t.Finish(0, 10)
	_, err := Compute(g.t, Options{})
	var ee *errs.EmptyError
	if !errors.As(err, &ee) || !strings.Contains(err.Error(), "no MPI calls") || !strings.Contains(err.Error(), "no links") {
		t.Fatalf("error %v, want an empty-data error saying the trace has no MPI calls and no links", err)
	}
}

// A stream waits for an event recorded on another (cudaStreamWaitEvent):
// k2, launched at 50 onto idle stream 2, starts at 205 because it waits
// for k1, the last operation launched onto stream 1 before the event was
// recorded (at 25). The path goes through k1 and the wait (no weight) to
// k2, not through k2's launch, which k1's end follows.
//
//	cpu      |step 0-100--------------------------------|
//	            |L1 10-20| |rec 25-30| |W 40-45| |L2 50-60|
//	stream 1            |k1 30-200-------------------------------------|
//	stream 2                               |SWE 46-47|                    |k2 205-250|
func TestGraphStreamWaitEvent(t *testing.T) {
	g := newGPUTrace("cpu", "stream 1", "stream 2")
	g.state("cpu", "step", 0, 100, 0)
	g.state("cpu", "cudaLaunchKernel", 10, 20, 1)
	g.state("cpu", "cudaEventRecord", 25, 30, 1)
	g.state("cpu", "cudaStreamWaitEvent", 40, 45, 1)
	g.state("cpu", "cudaLaunchKernel", 50, 60, 1)
	g.state("stream 1", "k1", 30, 200, 0)
	g.roled("stream 2", "SWE", trace.RoleStreamWaitEvent, 46, 47, 0)
	g.state("stream 2", "k2", 205, 250, 0)
	g.launch("cpu", 10, "stream 1", 30)
	g.launch("cpu", 40, "stream 2", 46)
	g.launch("cpu", 50, "stream 2", 205)
	g.wait("stream 1", 25, "stream 2", 46)
	checkPath(t, g.path(t), HTA, 10+20+170+45, []seg{
		{"cpu", 0, 10, EdgeCompute, "step"},
		{"stream 1", 10, 30, EdgeLaunch, ""},
		{"stream 1", 30, 200, EdgeKernel, "k1"},
		{"stream 2", 205, 205, EdgeSyncWait, ""},
		{"stream 2", 205, 250, EdgeKernel, "k2"},
	})
}

// The host waits for an event (cudaEventSynchronize): the call's end
// follows k1, the last operation launched onto the event's stream before
// it was recorded, and the path goes on on the CPU after it.
//
//	cpu      |step 0-250------------------------------------------------------|
//	            |L1 10-20| |rec 25-30| |ES 40-210 (blocking)------------------|
//	stream 1            |k1 30-200-------------------------------------|
//	sync                                  |Event Sync 41-209----------------|
func TestGraphEventSync(t *testing.T) {
	g := newGPUTrace("cpu", "stream 1", "sync")
	g.state("cpu", "step", 0, 250, 0)
	g.state("cpu", "cudaLaunchKernel", 10, 20, 1)
	g.state("cpu", "cudaEventRecord", 25, 30, 1)
	g.state("cpu", "cudaEventSynchronize", 40, 210, 1)
	g.state("stream 1", "k1", 30, 200, 0)
	g.roled("sync", "ES", trace.RoleEventSync, 41, 209, 0)
	g.launch("cpu", 10, "stream 1", 30)
	g.launch("cpu", 40, "sync", 41)
	g.wait("stream 1", 25, "sync", 41)
	checkPath(t, g.path(t), HTA, 10+20+170+40, []seg{
		{"cpu", 0, 10, EdgeCompute, "step"},
		{"stream 1", 10, 30, EdgeLaunch, ""},
		{"stream 1", 30, 200, EdgeKernel, "k1"},
		{"cpu", 210, 210, EdgeSyncWait, ""},
		{"cpu", 210, 250, EdgeCompute, "step"},
	})
}

// Chromium's flows, read from a Chrome trace: a task's flow leaves its
// start ('s' at the task's begin) for a point later inside it (bp "e":
// the slice enclosing the 'f'), where a nested slice began at the same
// instant; a message's handler receives a reply in its middle, the reply
// leaving its own slice before that ends. Both once made the graph loop
// or go back in time; the path now follows the flows at their own times:
// Prepare, the flow to Reply's start, Reply up to where it answers, the
// flow to the handler, the handler to its end.
func TestChromeFlowsBoundToEnclosingSlices(t *testing.T) {
	events := `[
{"ph":"X","name":"RunTask","pid":1,"tid":1,"ts":100,"dur":15},
{"ph":"X","name":"Execute","pid":1,"tid":1,"ts":100,"dur":13},
{"ph":"s","name":"RunTask","id":38,"cat":"flow","pid":1,"tid":1,"ts":100},
{"ph":"f","bp":"e","name":"RunTask","id":38,"cat":"flow","pid":1,"tid":1,"ts":114},
{"ph":"X","name":"Receive message","pid":1,"tid":1,"ts":200,"dur":300},
{"ph":"X","name":"SetReadyState","pid":1,"tid":1,"ts":250,"dur":10},
{"ph":"X","name":"Prepare","pid":1,"tid":3,"ts":0,"dur":150},
{"ph":"s","name":"Prepare","id":7,"cat":"flow","pid":1,"tid":3,"ts":150},
{"ph":"f","bp":"e","name":"Prepare","id":7,"cat":"flow","pid":1,"tid":2,"ts":290},
{"ph":"X","name":"Reply","pid":1,"tid":2,"ts":290,"dur":100},
{"ph":"s","name":"Reply","id":8,"cat":"flow","pid":1,"tid":2,"ts":380},
{"ph":"f","bp":"e","name":"Reply","id":8,"cat":"flow","pid":1,"tid":1,"ts":450}
]`
	path := filepath.Join(t.TempDir(), "chromium.json")
	if err := os.WriteFile(path, []byte(events), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Compute(read(t, path, "chrome"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	const us = 1000
	checkPath(t, r, Dependencies, 500*us, []seg{
		{"1/3", 0, 150 * us, EdgeCompute, "Prepare"},
		{"1/2", 150 * us, 290 * us, EdgeDependency, ""},
		{"1/2", 290 * us, 380 * us, EdgeCompute, "Reply"},
		{"1/1", 380 * us, 450 * us, EdgeDependency, ""},
		{"1/1", 450 * us, 500 * us, EdgeCompute, "Receive message"},
	})
}

// A state that outlives its parent is on no call stack (callStack), but
// a flow may still arrive inside it, at a point its thread's walk passes
// between two top-level states: the thread's chain goes on through the
// point, from P's end to Q's start, where it once stopped at P's end.
//
//	main  |P 0-100---------|       |Q 150-300---------------|
//	           |S 50-200 (outlives P)--------|
//	io                 |X 90-95|-> S at 110
func TestGraphFlowIntoAStateOutlivingItsParent(t *testing.T) {
	g := newGPUTrace("main", "io")
	g.state("main", "P", 0, 100, 0)
	g.state("main", "S", 50, 200, 1)
	g.state("main", "Q", 150, 300, 0)
	g.state("io", "X", 90, 95, 0)
	g.flow("io", 95, "main", 110)
	checkPath(t, g.path(t), Dependencies, 250, []seg{
		{"main", 0, 100, EdgeCompute, "P"},
		{"main", 150, 150, EdgeDependency, ""},
		{"main", 150, 300, EdgeCompute, "Q"},
	})
}

// A type named as a reader names its launches, but of no role, is a
// dependency like any link: the view knows no reader's names. With its
// role, the same link is a launch.
func TestGraphRolesNotNames(t *testing.T) {
	for _, role := range []trace.Role{trace.RoleNone, trace.RoleLaunch} {
		g := newGPUTrace("cpu", "stream 7")
		ty := int32(len(g.t.Types))
		g.t.DefineType(trace.Type{Name: "CUDA launch", Kind: trace.KindLink, Parent: trace.None, Start: tyThread, End: tyThread, Role: role})
		g.state("cpu", "cudaLaunchKernel", 0, 10, 0)
		g.state("stream 7", "kernel", 20, 50, 0)
		g.t.Link(trace.Link{Type: ty, Value: g.value("cudaLaunchKernel"), Start: 0, End: 20,
			From: g.conts["cpu"], To: g.conts["stream 7"], Key: "1", Size: math.NaN()})
		r := g.path(t)
		kinds := map[string]bool{}
		for _, s := range r.Segments {
			kinds[s.Via] = true
		}
		if kinds[EdgeLaunch] != (role == trace.RoleLaunch) {
			t.Errorf("role %d: segments %+v, want a launch edge %v", role, r.Segments, role == trace.RoleLaunch)
		}
	}
}

// The synchronisations and NCCL's kernels are known by their values'
// roles, not their names: a state named as Kineto names a stream's
// synchronisation is a kernel like any other without the role, and a
// kernel of role trace.RoleCommunicationKernel bounds the path by
// communication whatever its name.
//
//	cpu       |step---------------------------------------|0-300
//	            |L1|10-20  |cudaStreamSynchronize 40-210|
//	stream 7          |k 30-200------------------|
//	  lane 1               |sync 40-210---------------|
func TestGraphSyncAndNCCLRoles(t *testing.T) {
	for _, c := range []struct {
		name       string
		kernel     trace.Role
		sync       trace.Role
		length     trace.Time
		bound      string
		syncKernel bool // the synchronisation is on the path as a kernel
	}{
		{"roles", trace.RoleCommunicationKernel, trace.RoleStreamSync, 10 + 20 + 170 + 90, "gpu_communication_bound", false},
		// The synchronisation is then a kernel of 170 after k (a gap
		// of no weight: it began before k's end).
		{"names only", trace.RoleNone, trace.RoleNone, 10 + 20 + 170 + 170 + 90, "gpu_compute_bound", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := newGPUTrace("cpu", "stream 7", "stream 7 (overlap lane 1)")
			g.state("cpu", "step", 0, 300, 0)
			g.state("cpu", "cudaLaunchKernel", 10, 20, 1)
			g.state("cpu", "cudaStreamSynchronize", 40, 210, 1)
			kernel, sync := "allreduce", "waits"
			if c.kernel == trace.RoleNone {
				kernel, sync = "ncclKernel_AllReduce_RING_LL_Sum_float", "Stream Sync"
			}
			g.roled("stream 7", kernel, c.kernel, 30, 200, 0)
			g.roled("stream 7 (overlap lane 1)", sync, c.sync, 40, 210, 0)
			g.launch("cpu", 10, "stream 7", 30)
			g.launch("cpu", 40, "stream 7", 40)
			r := g.path(t)
			if r.Length() != c.length {
				t.Errorf("length %d, want %d: %+v", r.Length(), c.length, r.Segments)
			}
			bound, onSync := "", false
			for _, s := range r.Segments {
				if s.Name == kernel && s.Via == EdgeKernel {
					bound = BoundBy(s)
				}
				onSync = onSync || s.Name == sync && s.Via == EdgeKernel
			}
			if bound != c.bound || onSync != c.syncKernel {
				t.Errorf("kernel bound by %q, synchronisation a kernel on the path %v; want %q, %v: %+v",
					bound, onSync, c.bound, c.syncKernel, r.Segments)
			}
		})
	}
}

// BenchmarkGraphLinksInsideStates: flows leave and reach their workers
// inside states and in the gaps between them, where the search for the
// states that hold a link's end walked back through every earlier state
// of the container (quadratic in the states).
func BenchmarkGraphLinksInsideStates(b *testing.B) {
	const n = 20000
	g := newGPUTrace("worker 0", "worker 1")
	for i := range trace.Time(n) {
		g.state("worker 0", "A", 10*i, 10*i+5, 0)
		g.state("worker 1", "B", 10*i+1, 10*i+6, 0)
	}
	for i := range trace.Time(n) {
		g.flow("worker 0", 10*i+3, "worker 1", 10*i+8)  // from inside A to a gap of worker 1
		g.flow("worker 1", 10*i+7, "worker 0", 10*i+12) // from a gap to inside the next A
	}
	g.t.Finish(0, 10*n)
	b.ResetTimer()
	for range b.N {
		r, err := Compute(g.t, Options{})
		if err != nil {
			b.Fatal(err)
		}
		r.Close()
	}
}

// The launching and blocking calls are known by their values' roles, not
// their names: calls named as no API names them, of roles
// trace.RoleLaunchCall and RoleBlockingCall, make TestGraphSyncWait's
// host-side path, and CUDA's names without the roles make calls like any
// other (the launch then weighs nothing as a launch: the stream was not
// idle for a launch call, and the blocking call's wait is the CPU's).
func TestGraphCallRolesNotNames(t *testing.T) {
	for _, c := range []struct {
		name          string
		launch, block string
		lrole, brole  trace.Role
		length        trace.Time
		launchOnPath  bool
	}{
		{"roles", "enqueue", "drain", trace.RoleLaunchCall, trace.RoleBlockingCall, 290, true},
		{"names only", "cudaLaunchKernel", "cudaStreamSynchronize", trace.RoleNone, trace.RoleNone, 300, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := newGPUTrace("cpu", "stream 7")
			g.state("cpu", "step", 0, 300, 0)
			g.roled("cpu", c.launch, c.lrole, 10, 20, 1)
			g.roled("cpu", c.block, c.brole, 40, 210, 1)
			g.state("cpu", "aten::add", 220, 250, 1)
			g.state("stream 7", "k1", 30, 200, 0)
			g.launch("cpu", 10, "stream 7", 30)
			r := g.path(t)
			onPath := false
			for _, s := range r.Segments {
				onPath = onPath || s.Via == EdgeLaunch
			}
			if r.Length() != c.length || onPath != c.launchOnPath {
				t.Errorf("length %d, launch on the path %v; want %d, %v: %+v", r.Length(), onPath, c.length, c.launchOnPath, r.Segments)
			}
		})
	}
}

// With categories (Kineto's), only the host calls (trace.RoleHostCall
// and the launching and blocking calls) are nodes: an annotation of no
// role, named as Kineto names an operator, is not on the path.
func TestGraphHostCallRole(t *testing.T) {
	for _, role := range []trace.Role{trace.RoleNone, trace.RoleHostCall} {
		g := newGPUTrace("cpu", "stream 7")
		op := int32(len(g.t.Values))
		g.t.DefineValue(trace.Value{Type: tyState, Name: "aten::mm", Category: "c", Role: role})
		launch := int32(len(g.t.Values))
		g.t.DefineValue(trace.Value{Type: tyState, Name: "go", Category: "c", Role: trace.RoleLaunchCall})
		g.t.State(trace.State{Container: g.conts["cpu"], Type: tyState, Value: op, Start: 0, End: 100, Depth: 0})
		g.t.State(trace.State{Container: g.conts["cpu"], Type: tyState, Value: launch, Start: 10, End: 20, Depth: 1})
		g.state("stream 7", "k1", 30, 50, 0)
		g.launch("cpu", 10, "stream 7", 30)
		r := g.path(t)
		on := false
		for _, s := range r.Segments {
			on = on || s.Name == "aten::mm"
		}
		if on != (role == trace.RoleHostCall) {
			t.Errorf("role %v: aten::mm on the path %v: %+v", role, on, r.Segments)
		}
	}
}
