package chrome

import (
	"fmt"
	"slices"
	"testing"
)

// Kineto's copies of the host's annotations on a GPU stream (category
// gpu_user_annotation) are read on a thread of their own beside the
// stream, ranked with it: the stream keeps its kernels, and the time
// between them is idle, not the step's; every state is kept, with its
// times and depth among the annotations.
func TestGPUAnnotationsBesideTheirStream(t *testing.T) {
	tr := decodeString(t, `{"traceEvents": [
  {"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "GPU 0"}},
  {"ph": "M", "name": "thread_name", "pid": 0, "tid": 7, "args": {"name": "stream 7 "}},
  {"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#3", "pid": 0, "tid": 7, "ts": 10, "dur": 90},
  {"ph": "X", "cat": "gpu_user_annotation", "name": "DistributedDataParallel.forward", "pid": 0, "tid": 7, "ts": 10, "dur": 40},
  {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 10, "dur": 10},
  {"ph": "X", "cat": "kernel", "name": "relu", "pid": 0, "tid": 7, "ts": 40, "dur": 10},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH", "pid": 0, "tid": 7, "ts": 90, "dur": 10},
  {"ph": "X", "cat": "kernel", "name": "other", "pid": 0, "tid": 3, "ts": 0, "dur": 5},
  {"ph": "X", "cat": "kernel", "name": "bare", "pid": 0, "tid": 9, "ts": 0, "dur": 5},
  {"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#3", "pid": 0, "tid": 9, "ts": 0, "dur": 5},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 1, "tid": 1, "ts": 0, "dur": 100}
]}`)
	var got []string
	for _, s := range tr.States.All() {
		got = append(got, fmt.Sprintf("%s: %s [%d, %d] depth %d", tr.ContainerPath(s.Container, "/"), tr.ValueName(s.Value),
			s.Start, s.End, s.Depth))
	}
	slices.Sort(got)
	want := []string{
		"1/1: ProfilerStep#3 [0, 100000] depth 0",
		"GPU 0/3: other [0, 5000] depth 0",
		"GPU 0/9 (annotations): ProfilerStep#3 [0, 5000] depth 0",
		"GPU 0/9: bare [0, 5000] depth 0",
		"GPU 0/stream 7 (annotations): DistributedDataParallel.forward [10000, 50000] depth 1",
		"GPU 0/stream 7 (annotations): ProfilerStep#3 [10000, 100000] depth 0",
		"GPU 0/stream 7: Memcpy DtoH [90000, 100000] depth 0",
		"GPU 0/stream 7: gemm [10000, 20000] depth 0",
		"GPU 0/stream 7: relu [40000, 50000] depth 0",
	}
	if !slices.Equal(got, want) {
		t.Errorf("states:\n%s\nwant:\n%s", fmt.Sprint(got), fmt.Sprint(want))
	}
	// Each annotation thread comes right after its stream.
	var names []string
	for _, c := range tr.Containers[1:] {
		names = append(names, c.Name)
	}
	wantNames := []string{"GPU 0", "3", "stream 7", "stream 7 (annotations)", "9", "9 (annotations)", "1", "1"}
	if !slices.Equal(names, wantNames) {
		t.Errorf("containers %q, want %q", names, wantNames)
	}
}
