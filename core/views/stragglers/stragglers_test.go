package stragglers

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

func read(t *testing.T, path, format string) *trace.Trace {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Skipf("trace not available: %v", err)
	}
	tr, err := formats.ReadFile(path, format)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// cp_coll (testdata/gen/critpath): rank k%4 computes 3 s before the k-th
// MPI_Allreduce, the others 1 s: rank k is last in instance k, 2 s later
// than the next (2.000000, 1.999996, 1.999996 s: the network's
// microseconds), and makes the three others wait 6 s in all.
func TestSMPICollectives(t *testing.T) {
	tr := read(t, "../../../testdata/critpath/cp_coll.trace", "paje")
	r, err := Compute(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Mode != "collectives" || len(r.Instances) != 3 {
		t.Fatalf("%s, %d instances", r.Mode, len(r.Instances))
	}
	lateness := []trace.Time{2000000000, 1999996000, 1999996000}
	for k, in := range r.Instances {
		if r.Resources[in.Last] != "rank-"+string(rune('0'+k)) || in.Lateness != lateness[k] || in.WaitCaused != 6*trace.Second ||
			in.Name != "PMPI_Allreduce" || len(in.Members) != 4 {
			t.Errorf("instance %d: %s last by %v, caused %v (%s, %d members)", k, r.Resources[in.Last], in.Lateness, in.WaitCaused, in.Name, len(in.Members))
		}
	}
	by := r.ByResource()
	for i, b := range by[:3] {
		if b.TimesLast != 1 || b.WaitCaused != 6*trace.Second || b.Instances != 3 {
			t.Errorf("resource %d: %+v", i, b)
		}
	}
	if by[3].Resource != "rank-3" || by[3].TimesLast != 0 {
		t.Errorf("last row %+v, want rank-3 never last", by[3])
	}
}

// The same run by iterations: the k-th "computing" state of each rank.
// Each rank computes before every MPI call, so the instances are the
// computations; in the second, third and fourth (before each
// MPI_Allreduce), rank k%4 finishes 2 s after the others.
func TestIterations(t *testing.T) {
	tr := read(t, "../../../testdata/critpath/cp_coll.trace", "paje")
	r, err := Compute(tr, Options{Iteration: "comput*"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Mode != "iterations" || len(r.Resources) != 4 {
		t.Fatalf("%s over %v", r.Mode, r.Resources)
	}
	late := 0
	for _, in := range r.Instances {
		if in.Lateness >= 1999990000 {
			late++
		}
	}
	if late != 3 {
		t.Errorf("%d instances with a 2 s straggler, want 3: %+v", late, r.Instances)
	}
	if _, err := Compute(tr, Options{Iteration: "[bad"}); err == nil {
		t.Error("a bad pattern is accepted")
	}
}

// Score-P's stencil on 32 ranks: three MPI_Barrier, entered last by MPI
// Rank 26, 0 and 31, 21249, 2635 and 22 ns after the next, making the 31
// others wait 6028643, 1664939 and 94772 ns in all (computed from the
// archive read by python3-otf2, in float seconds: the waits, sums of 31
// differences, are within a nanosecond a member).
func TestStencilBarriers(t *testing.T) {
	tr := read(t, "../../../../shared/traces/tracer-stencil4d/stencil4d-otf/traces-32/traces.otf2", "otf2")
	r, err := Compute(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		rank           string
		lateness, wait trace.Time
	}{{"MPI Rank 26", 21249, 6028643}, {"MPI Rank 0", 2635, 1664939}, {"MPI Rank 31", 22, 94772}}
	if len(r.Instances) != len(want) {
		t.Fatalf("%d instances, want 3", len(r.Instances))
	}
	for k, w := range want {
		in := r.Instances[k]
		if !strings.HasSuffix(r.Resources[in.Last], "/"+w.rank+"/Master thread") || in.Lateness != w.lateness || abs(in.WaitCaused-w.wait) > 31 ||
			in.Name != "MPI_Barrier" || in.Group != "MPI_COMM_WORLD" || len(in.Members) != 32 {
			t.Errorf("barrier %d: %s last by %v, caused %v (%s on %s); want %+v", k, r.Resources[in.Last], in.Lateness, in.WaitCaused,
				in.Name, in.Group, w)
		}
	}
}

func abs(t trace.Time) trace.Time {
	if t < 0 {
		return -t
	}
	return t
}

// gpuRun is a GPU profile without MPI: two streams whose NCCL kernels
// end at ends[stream][k], and a training step per stream (ProfilerStep#k
// on the stream's own thread when steps is set).
func gpuRun(ends [2][]trace.Time, steps bool, ncclOn int) *trace.Trace {
	tr := trace.New()
	tr.DefineType(trace.Type{Name: "Stream", Kind: trace.KindContainer, Parent: trace.None, Start: trace.None, End: trace.None})
	tr.DefineType(trace.Type{Name: "Kernel", Kind: trace.KindState, Parent: 0, Start: trace.None, End: trace.None})
	tr.DefineValue(trace.Value{Type: 1, Name: "ncclDevKernel_AllReduce_Sum_f32_RING_LL", Role: trace.RoleCommunicationKernel})
	tr.DefineValue(trace.Value{Type: 1, Name: "gemm"})
	tr.DefineValue(trace.Value{Type: 1, Name: "ProfilerStep#7", Role: trace.RoleStep})
	tr.CreateContainer(trace.Container{Name: "GPU 0", Type: 0, Parent: 0, Start: 0, End: trace.Unset})
	tr.CreateContainer(trace.Container{Name: "GPU 1", Type: 0, Parent: 0, Start: 0, End: trace.Unset})
	for s := range 2 {
		for k, end := range ends[s] {
			start := trace.Time(k) * 100
			tr.State(trace.State{Container: int32(s + 1), Type: 1, Value: 1, Start: start, End: start + 10})
			if s < ncclOn {
				tr.State(trace.State{Container: int32(s + 1), Type: 1, Value: 0, Start: start + 20, End: end})
			}
			if steps {
				tr.State(trace.State{Container: int32(s + 1), Type: 1, Value: 2, Start: start, End: end + 1})
			}
		}
	}
	tr.Finish(0, 1000)
	return tr
}

// Without collectives, the default takes the GPUs' NCCL kernels: GPU 1
// ends the first two 5 and 7 ns after GPU 0, GPU 0 the third 3 ns after.
func TestNCCLKernelsByDefault(t *testing.T) {
	tr := gpuRun([2][]trace.Time{{50, 150, 263}, {55, 157, 260}}, false, 2)
	r, err := Compute(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Mode != "iterations" || r.Iteration != "nccl*Kernel*" || len(r.Instances) != 3 {
		t.Fatalf("%s %q, %d instances", r.Mode, r.Iteration, len(r.Instances))
	}
	want := []struct {
		last     string
		lateness trace.Time
	}{{"GPU 1", 5}, {"GPU 1", 7}, {"GPU 0", 3}}
	for k, w := range want {
		in := r.Instances[k]
		if r.Resources[in.Last] != w.last || in.Lateness != w.lateness || in.WaitCaused != w.lateness ||
			in.Name != "ncclDevKernel_AllReduce_Sum_f32_RING_LL" {
			t.Errorf("instance %d: %s by %v (caused %v, %s), want %+v", k, r.Resources[in.Last], in.Lateness, in.WaitCaused, in.Name, w)
		}
	}
	// NCCL kernels on one GPU only: the training steps, on both.
	r, err = Compute(gpuRun([2][]trace.Time{{50, 150}, {55, 140}}, true, 1), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Iteration != "ProfilerStep*" || len(r.Instances) != 2 || r.Resources[r.Instances[1].Last] != "GPU 0" || r.Instances[1].Lateness != 10 {
		t.Errorf("%q: %+v", r.Iteration, r.Instances)
	}
	// Neither: the refusal names the way out.
	_, err = Compute(gpuRun([2][]trace.Time{{50}, {55}}, false, 0), Options{})
	if err == nil || !strings.Contains(err.Error(), "iteration=") {
		t.Errorf("no instances at all: %v", err)
	}
}

// Two ranks' GPUs, each with a stream per NCCL communicator ("stream 84"
// and "stream 203" on both): the k-th kernels meet within a communicator's
// streams, not across them, and the instances come in time order.
func TestNCCLKernelsByCommunicatorStream(t *testing.T) {
	tr := trace.New()
	tr.DefineType(trace.Type{Name: "GPU", Kind: trace.KindContainer, Parent: trace.None, Start: trace.None, End: trace.None})
	tr.DefineType(trace.Type{Name: "Stream", Kind: trace.KindContainer, Parent: 0, Start: trace.None, End: trace.None})
	tr.DefineType(trace.Type{Name: "Kernel", Kind: trace.KindState, Parent: 1, Start: trace.None, End: trace.None})
	tr.DefineValue(trace.Value{Type: 2, Name: "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t", Role: trace.RoleCommunicationKernel})
	for g := range 2 {
		tr.CreateContainer(trace.Container{Name: "GPU " + string(rune('0'+g)), Type: 0, Parent: 0, Start: 0, End: trace.Unset})
	}
	// Containers 3, 4: GPU 0's streams 84 and 203; 5, 6: GPU 1's.
	for g := range 2 {
		for _, s := range []string{"stream 84", "stream 203"} {
			tr.CreateContainer(trace.Container{Name: s, Type: 1, Parent: int32(g + 1), Start: 0, End: trace.Unset})
		}
	}
	kernel := func(c int32, start, end trace.Time) {
		tr.State(trace.State{Container: c, Type: 2, Value: 0, Start: start, End: end})
	}
	kernel(3, 0, 10)  // stream 84, first: GPU 1 ends 4 later
	kernel(5, 0, 14)  //
	kernel(3, 20, 33) // stream 84, second: GPU 0 ends 2 later
	kernel(5, 20, 31) //
	kernel(4, 50, 60) // stream 203, first (one only): GPU 0 ends 1 later
	kernel(6, 50, 59) //
	tr.Finish(0, 100)
	r, err := Compute(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		last     string
		lateness trace.Time
	}{{"GPU 1/stream 84", 4}, {"GPU 0/stream 84", 2}, {"GPU 0/stream 203", 1}}
	if len(r.Instances) != len(want) {
		t.Fatalf("%d instances, want 3: %+v", len(r.Instances), r.Instances)
	}
	for k, w := range want {
		in := r.Instances[k]
		if r.Resources[in.Last] != w.last || in.Lateness != w.lateness || len(in.Members) != 2 {
			t.Errorf("instance %d: %s by %v (%d members), want %+v", k, r.Resources[in.Last], in.Lateness, len(in.Members), w)
		}
	}
}

// kinetoRanks is a Kineto profile of ranks, each a CPU thread whose
// training step (user_annotation) ends at cpuEnds[r] and a GPU stream
// where Kineto draws the same step (gpu_user_annotation) over the kernels
// it launched, ending at gpuEnds[r]: the reader gives the step its role
// on the thread only.
func kinetoRanks(cpuEnds, gpuEnds []trace.Time) *trace.Trace {
	tr := trace.New()
	tr.DefineType(trace.Type{Name: "Thread", Kind: trace.KindContainer, Parent: trace.None, Start: trace.None, End: trace.None})
	tr.DefineType(trace.Type{Name: "Slice", Kind: trace.KindState, Parent: 0, Start: trace.None, End: trace.None})
	tr.DefineValue(trace.Value{Type: 1, Name: "ProfilerStep#7", Category: "user_annotation", Role: trace.RoleStep})
	tr.DefineValue(trace.Value{Type: 1, Name: "ProfilerStep#7", Category: "gpu_user_annotation"})
	for r := range cpuEnds {
		thread, stream := int32(len(tr.Containers)), int32(len(tr.Containers)+1)
		tr.CreateContainer(trace.Container{Name: fmt.Sprintf("rank %d/thread", r), Type: 0, Parent: 0, Start: 0, End: trace.Unset})
		tr.CreateContainer(trace.Container{Name: fmt.Sprintf("rank %d/stream 7", r), Type: 0, Parent: 0, Start: 0, End: trace.Unset})
		tr.State(trace.State{Container: thread, Type: 1, Value: 0, Start: 0, End: cpuEnds[r]})
		tr.State(trace.State{Container: stream, Type: 1, Value: 1, Start: 10, End: gpuEnds[r]})
	}
	tr.Finish(0, 1000)
	return tr
}

// The default iterations take Kineto's training steps on the ranks' CPU
// threads, not their copies on the GPU streams, which trail their own
// thread: with them, the GPU of one rank was its straggler at every step
// (by 50 ns here), and of two ranks the one whose GPU ends last.
func TestKinetoStepsOnTheThreads(t *testing.T) {
	_, err := Compute(kinetoRanks([]trace.Time{100}, []trace.Time{150}), Options{})
	if err == nil || !strings.Contains(err.Error(), "iteration=") {
		t.Errorf("one rank: %v, want the refusal naming iteration=", err)
	}
	// Asked for, the GPU's copy is a member.
	r, err := Compute(kinetoRanks([]trace.Time{100}, []trace.Time{150}), Options{Iteration: "ProfilerStep*"})
	if err != nil || len(r.Instances) != 1 || r.Resources[r.Instances[0].Last] != "rank 0/stream 7" || r.Instances[0].Lateness != 50 {
		t.Errorf("one rank, asked: %v, %+v", err, r)
	}
	// Two ranks: rank 1's thread ends the step 5 ns after rank 0's.
	r, err = Compute(kinetoRanks([]trace.Time{100, 105}, []trace.Time{150, 140}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Iteration != "ProfilerStep*" || len(r.Instances) != 1 || len(r.Resources) != 2 {
		t.Fatalf("%q, %d instances over %v", r.Iteration, len(r.Instances), r.Resources)
	}
	if in := r.Instances[0]; r.Resources[in.Last] != "rank 1/thread" || in.Lateness != 5 || in.WaitCaused != 5 {
		t.Errorf("last %s by %v (caused %v), want rank 1/thread by 5", r.Resources[in.Last], in.Lateness, in.WaitCaused)
	}
}

// The default iterations are known by their values' roles, not their
// names: states named as NCCL and PyTorch name them but of no role are
// no iterations, and states of the roles are whatever their names.
func TestDefaultIterationsByRole(t *testing.T) {
	for _, c := range []struct {
		role trace.Role
		want string // Result.Iteration, "" for a refusal
	}{
		{trace.RoleNone, ""},
		{trace.RoleCommunicationKernel, "nccl*Kernel*"},
		{trace.RoleStep, "ProfilerStep*"},
		{trace.RoleStepCall, "ProfilerStep*"},
	} {
		for _, name := range []string{"ncclKernel_AllReduce", "ProfilerStep#3", "iteration"} {
			want := c.want
			if (c.role == trace.RoleStep || c.role == trace.RoleStepCall) && name != "ProfilerStep#3" {
				want = name // steps not PyTorch's are named as they are (JAX's "train")
			}
			tr := trace.New()
			tr.DefineType(trace.Type{Name: "Thread", Kind: trace.KindContainer, Parent: trace.None, Start: trace.None, End: trace.None})
			tr.DefineType(trace.Type{Name: "Slice", Kind: trace.KindState, Parent: 0, Start: trace.None, End: trace.None})
			tr.DefineValue(trace.Value{Type: 1, Name: name, Role: c.role})
			for r := range 2 {
				tr.CreateContainer(trace.Container{Name: fmt.Sprintf("rank %d", r), Type: 0, Parent: 0, Start: 0, End: trace.Unset})
				tr.State(trace.State{Container: int32(r + 1), Type: 1, Value: 0, Start: 0, End: trace.Time(100 + 10*r)})
			}
			tr.Finish(0, 1000)
			r, err := Compute(tr, Options{})
			got := ""
			if err == nil {
				got = r.Iteration
			}
			if got != want {
				t.Errorf("%q of role %v: iterations %q (%v), want %q", name, c.role, got, err, want)
			}
		}
	}
}

// Two hosts' XSpace files of JAX runs in one run directory (as each host
// of a multi-host run writes its own): their steps
// (StepTraceAnnotation("train", step_num=N), all named "train") are the
// iterations, with no pattern given. B's fourth step, which A lacks,
// makes no instance. Host A's steps end at 654973,
// 789612 and 868754 ns, host B's at 3211342, 3375342, 3440954 and
// 3494026 ns (the files' times, read with the protobuf package): B is
// last in each of the three instances both have, by the difference.
func TestJAXSteps(t *testing.T) {
	run := filepath.Join(t.TempDir(), "plugins", "profile", "2026_01_01_00_00_00")
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	for host, name := range map[string]string{"hostA": "jax_cpu.xplane.pb", "hostB": "jax_cpu_steps1to4.xplane.pb"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "readers", "xplane", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(run, host+".xplane.pb"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tr := read(t, run, "xplane")
	r, err := Compute(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Iteration names the default taken, the steps, by their name.
	if r.Mode != "iterations" || r.Iteration != "train" || len(r.Resources) != 2 {
		t.Fatalf("%s of %q on %v", r.Mode, r.Iteration, r.Resources)
	}
	lateness := []trace.Time{3211342 - 654973, 3375342 - 789612, 3440954 - 868754}
	var got []string
	for _, in := range r.Instances {
		got = append(got, fmt.Sprintf("%s %d members, last %d at %d, %d late", in.Name, len(in.Members), in.Last, in.At, in.Lateness))
	}
	// Both runs were recorded on a host named "vm": the resources are
	// told apart by their order, host A's first (its file's name).
	want := make([]string, 0, 3)
	for k, l := range lateness {
		want = append(want, fmt.Sprintf("train 2 members, last 1 at %d, %d late", []trace.Time{3211342, 3375342, 3440954}[k], l))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("instances:\n%s\nwant first:\n%s\non %v", strings.Join(got, "\n"), strings.Join(want, "\n"), r.Resources)
	}
}
