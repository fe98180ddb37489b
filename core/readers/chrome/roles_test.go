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
