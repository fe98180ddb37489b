package chrome

import (
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The reader tells the analyses what Kineto's conventions mean (trace.Role):
// its launch flows (ac2g, async_cpu_to_gpu, and the first releases' async
// flows named "launch"), the launches and event waits it draws from
// correlation ids, and the async lanes. A flow of another category keeps
// no role, even when named like a launch flow.
func TestRoles(t *testing.T) {
	tr := decodeString(t, `{"traceEvents": [
  {"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "python"}},
  {"ph": "M", "name": "thread_name", "pid": 0, "tid": 7, "args": {"name": "stream 7"}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 10, "args": {"correlation": 1}},
  {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 30, "dur": 10, "args": {"correlation": 1}},
  {"ph": "s", "id": 1, "pid": 1, "tid": 1, "ts": 10, "cat": "ac2g", "name": "ac2g"},
  {"ph": "f", "id": 1, "pid": 0, "tid": 7, "ts": 30, "cat": "ac2g", "name": "ac2g", "bp": "e"},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 22, "dur": 2, "args": {"correlation": 2}},
  {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 42, "dur": 10, "args": {"correlation": 2}},
  {"ph": "s", "id": 2, "pid": 1, "tid": 1, "ts": 22, "cat": "async", "name": "launch"},
  {"ph": "f", "id": 2, "pid": 0, "tid": 7, "ts": 42, "cat": "async", "name": "launch", "bp": "e"},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 25, "dur": 2, "args": {"correlation": 3}},
  {"ph": "X", "cat": "kernel", "name": "k3", "pid": 0, "tid": 7, "ts": 54, "dur": 10, "args": {"correlation": 3}},
  {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 30, "dur": 5},
  {"ph": "X", "cat": "cpu_op", "name": "b", "pid": 1, "tid": 1, "ts": 40, "dur": 5},
  {"ph": "s", "id": 9, "pid": 1, "tid": 1, "ts": 31, "cat": "fwdbwd", "name": "ac2g"},
  {"ph": "f", "id": 9, "pid": 1, "tid": 1, "ts": 41, "cat": "fwdbwd", "name": "ac2g", "bp": "e"},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaEventRecord", "pid": 1, "tid": 1, "ts": 60, "dur": 2, "args": {"correlation": 4}},
  {"ph": "X", "cat": "cuda_sync", "name": "Event Sync", "pid": 0, "tid": 7, "ts": 70, "dur": 5,
   "args": {"correlation": 5, "wait_on_stream": 7, "wait_on_cuda_event_record_corr_id": 4}},
  {"ph": "b", "cat": "req", "name": "request", "id": 5, "pid": 1, "ts": 0},
  {"ph": "e", "cat": "req", "name": "request", "id": 5, "pid": 1, "ts": 10}
]}`)
	wantType := map[string]trace.Role{"Correlation": trace.RoleLaunchSynced, "CUDA event wait": trace.RoleEventWait,
		"Async track": trace.RoleAsyncLane, "Flow": trace.RoleNone, "Thread": trace.RoleNone, "Process": trace.RoleNone}
	for name, want := range wantType {
		found := false
		for _, ty := range tr.Types {
			if ty.Name == name {
				found = true
				if ty.Role != want {
					t.Errorf("type %q: role %d, want %d", name, ty.Role, want)
				}
			}
		}
		if !found {
			t.Errorf("no type %q", name)
		}
	}
	// The flows by their key (category:id): the role of their value.
	want := map[string]trace.Role{"ac2g:1": trace.RoleLaunchFlow, "async:2": trace.RoleLaunchFlow, "fwdbwd:9": trace.RoleNone}
	got := map[string]trace.Role{}
	for _, l := range tr.Links.All() {
		if tr.TypeName(l.Type) == "Flow" {
			got[l.Key] = tr.Values[l.Value].Role
		}
	}
	if !equalMaps(got, want) {
		t.Errorf("flows' value roles %v, want %v", got, want)
	}
}

// TestValueRoles checks the roles of the values the analyses read:
// Kineto's synchronisations on the GPU side (category cuda_sync), NCCL's
// kernels among the GPU operations and the compilers' outlined OpenMP
// bodies; the same names elsewhere (a CPU annotation named as a kernel, a
// synchronisation in another category) have none.
func TestValueRoles(t *testing.T) {
	tr := decodeString(t, `{"traceEvents": [
  {"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": 7, "ts": 1, "dur": 1},
  {"ph": "X", "cat": "cuda_sync", "name": "Context Sync", "pid": 0, "tid": 7, "ts": 3, "dur": 1},
  {"ph": "X", "cat": "cuda_sync", "name": "Event Sync", "pid": 0, "tid": 7, "ts": 5, "dur": 1},
  {"ph": "X", "cat": "cuda_sync", "name": "Stream Wait Event", "pid": 0, "tid": 7, "ts": 7, "dur": 1},
  {"ph": "X", "cat": "cuda_sync", "name": "Other Sync", "pid": 0, "tid": 7, "ts": 9, "dur": 1},
  {"ph": "X", "cat": "user_annotation", "name": "Stream Sync", "pid": 1, "tid": 1, "ts": 1, "dur": 1},
  {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float", "pid": 0, "tid": 7, "ts": 11, "dur": 1},
  {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_SendRecv", "pid": 0, "tid": 7, "ts": 13, "dur": 1},
  {"ph": "X", "cat": "kernel", "name": "nccl_helper", "pid": 0, "tid": 7, "ts": 15, "dur": 1},
  {"ph": "X", "cat": "user_annotation", "name": "ncclKernel_AllReduce_RING_LL_Sum_float", "pid": 1, "tid": 1, "ts": 3, "dur": 1},
  {"ph": "X", "name": "main._omp_fn.0", "pid": 1, "tid": 2, "ts": 1, "dur": 5},
  {"ph": "X", "name": ".omp_outlined.", "pid": 1, "tid": 3, "ts": 1, "dur": 5},
  {"ph": "X", "name": "omp_fn", "pid": 1, "tid": 4, "ts": 1, "dur": 5},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 5, "ts": 1, "dur": 5},
  {"ph": "X", "cat": "Operator", "name": "aten::add", "pid": 1, "tid": 5, "ts": 7, "dur": 1},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 5, "ts": 2, "dur": 1},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 5, "ts": 4, "dur": 1},
  {"ph": "X", "cat": "Runtime", "name": "cudaStreamSynchronize", "pid": 1, "tid": 5, "ts": 9, "dur": 1},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMalloc", "pid": 1, "tid": 5, "ts": 11, "dur": 1},
  {"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernel", "pid": 1, "tid": 5, "ts": 13, "dur": 1},
  {"ph": "X", "cat": "user_annotation", "name": "aten::mm", "pid": 1, "tid": 6, "ts": 1, "dur": 1},
  {"ph": "X", "cat": "python_function", "name": "forward", "pid": 1, "tid": 6, "ts": 3, "dur": 1},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 8, "ts": 1, "dur": 1},
  {"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#1", "pid": 0, "tid": 7, "ts": 20, "dur": 1},
  {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#2", "pid": 1, "tid": 8, "ts": 3, "dur": 1},
  {"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": "PyTorch Profiler", "ts": 0, "dur": 30, "args": {"Op count": 0}},
  {"ph": "X", "cat": "Trace", "name": "__cupti_profiler__ (-1)", "pid": "Spans", "tid": "__cupti_profiler__", "ts": 0, "dur": 30, "args": {"Op count": 0}},
  {"ph": "X", "cat": "Trace", "name": "load", "pid": 2, "tid": 1, "ts": 0, "dur": 3},
  {"ph": "X", "cat": "Trace", "name": "parse (x)", "pid": 2, "tid": 1, "ts": 4, "dur": 3},
  {"ph": "X", "cat": "Trace", "name": "parse ()", "pid": 2, "tid": 1, "ts": 8, "dur": 3},
  {"ph": "X", "cat": "Trace", "name": "(3)", "pid": 2, "tid": 1, "ts": 12, "dur": 3},
  {"ph": "X", "cat": "Trace", "name": "Iteration (3)", "pid": 2, "tid": 1, "ts": 16, "dur": 3},
  {"ph": "X", "cat": "Trace", "name": "Iteration (4)", "pid": 2, "tid": "Iteration", "ts": 20, "dur": 3},
  {"ph": "X", "cat": "Trace", "name": "Epoch (5)", "pid": "Spans", "tid": "Iteration", "ts": 0, "dur": 3},
  {"ph": "X", "cat": "Trace", "name": "Warmup Epoch (1)", "pid": "Spans", "tid": "Epoch", "ts": 4, "dur": 3},
  {"ph": "X", "cat": "user_annotation", "name": "Epoch (2)", "pid": "Spans", "tid": "Epoch", "ts": 8, "dur": 3},
  {"ph": "X", "cat": "user_annotation", "name": "PyTorch Profiler (0)", "pid": 2, "tid": 2, "ts": 0, "dur": 3},
  {"ph": "X", "cat": "ProfileStep", "name": "ProfileStep#3[22.057 ms]", "pid": 3, "tid": "3(Python)", "ts": 0, "dur": 22057.297},
  {"ph": "X", "cat": "ProfileStep", "name": "ProfileStep#x[1.000 ms]", "pid": 3, "tid": "3(Python)", "ts": 30000, "dur": 1000},
  {"ph": "X", "cat": "UserDefined", "name": "ProfileStep#4[1.000 ms]", "pid": 3, "tid": "3(Python)", "ts": 40000, "dur": 1000}
]}`)
	want := map[string]trace.Role{
		"cuda_sync/Stream Sync": trace.RoleStreamSync, "cuda_sync/Context Sync": trace.RoleContextSync,
		"cuda_sync/Event Sync": trace.RoleEventSync, "cuda_sync/Stream Wait Event": trace.RoleStreamWaitEvent,
		"cuda_sync/Other Sync": trace.RoleNone, "user_annotation/Stream Sync": trace.RoleNone,
		"kernel/ncclKernel_AllReduce_RING_LL_Sum_float": trace.RoleCommunicationKernel,
		"kernel/ncclDevKernel_SendRecv":                 trace.RoleCommunicationKernel, "kernel/nccl_helper": trace.RoleNone,
		"user_annotation/ncclKernel_AllReduce_RING_LL_Sum_float": trace.RoleNone,
		"/main._omp_fn.0": trace.RoleParallelRegion, "/.omp_outlined.": trace.RoleParallelRegion, "/omp_fn": trace.RoleNone,
		// Kineto's host calls, by category, launching or blocking by name.
		"cpu_op/aten::mm": trace.RoleHostCall, "Operator/aten::add": trace.RoleHostCall,
		"cuda_runtime/cudaLaunchKernel": trace.RoleLaunchCall, "cuda_runtime/cudaMemcpyAsync": trace.RoleBlockingLaunchCall,
		"Runtime/cudaStreamSynchronize": trace.RoleBlockingCall, "cuda_runtime/cudaMalloc": trace.RoleHostCall,
		"cuda_driver/cuLaunchKernel": trace.RoleLaunchCall, "user_annotation/aten::mm": trace.RoleNone,
		"python_function/forward": trace.RoleNone,
		// PyTorch profiler's steps on the host, not their copies on the GPU.
		"user_annotation/ProfilerStep#1": trace.RoleStep, "gpu_user_annotation/ProfilerStep#1": trace.RoleDeviceAnnotation,
		"cpu_op/ProfilerStep#2": trace.RoleStepCall,
		// Kineto's spans of its recording ("<span> (<iteration>)" in
		// category Trace), not another producer's events of a category
		// Trace, nor the name in another category.
		"Trace/PyTorch Profiler (0)": trace.RoleRecording, "Trace/__cupti_profiler__ (-1)": trace.RoleRecording,
		"Trace/load": trace.RoleNone, "Trace/parse (x)": trace.RoleNone, "Trace/parse ()": trace.RoleNone,
		"Trace/(3)": trace.RoleNone, "user_annotation/PyTorch Profiler (0)": trace.RoleNone,
		// Another producer's iterations in category Trace, in another
		// process or on a thread "Spans" does not name so: operations. A
		// span's name may have a prefix (Kineto's TraceSpan.prefix).
		"Trace/Iteration (3)": trace.RoleNone, "Trace/Iteration (4)": trace.RoleNone, "Trace/Epoch (5)": trace.RoleNone,
		"Trace/Warmup Epoch (1)": trace.RoleRecording, "user_annotation/Epoch (2)": trace.RoleNone,
		// PaddlePaddle's steps (category ProfileStep, named with their
		// duration), not a name of that form in another category.
		"ProfileStep/ProfileStep#3[22.057 ms]": trace.RoleStep, "ProfileStep/ProfileStep#x[1.000 ms]": trace.RoleNone,
		"UserDefined/ProfileStep#4[1.000 ms]": trace.RoleNone,
	}
	got := map[string]trace.Role{}
	for _, v := range tr.Values {
		if tr.Types[v.Type].Kind == trace.KindState {
			got[v.Category+"/"+v.Name] = v.Role
		}
	}
	if !equalMaps(got, want) {
		t.Errorf("value roles %v, want %v", got, want)
	}
	for _, v := range tr.Values {
		if v.Name == "ProfileStep#3[22.057 ms]" && v.Step != 3 {
			t.Errorf("PaddlePaddle's step %q has step %d, want 3", v.Name, v.Step)
		}
	}
}
