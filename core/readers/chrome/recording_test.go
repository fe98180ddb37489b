package chrome

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// valueRoles keeps the values a trace defines, nothing else.
type valueRoles struct{ values []trace.Value }

func (s *valueRoles) DefineType(trace.Type)              {}
func (s *valueRoles) DefineValue(v trace.Value)          { s.values = append(s.values, v) }
func (s *valueRoles) CreateContainer(trace.Container)    {}
func (s *valueRoles) DestroyContainer(int32, trace.Time) {}
func (s *valueRoles) State(trace.State)                  {}
func (s *valueRoles) Variable(trace.Variable)            {}
func (s *valueRoles) Link(trace.Link)                    {}
func (s *valueRoles) Event(trace.Event)                  {}
func (s *valueRoles) Finish(trace.Time, trace.Time)      {}

// TestRecordingSpansOfCorpus: in every real Chrome trace of the corpus,
// the values of role trace.RoleRecording are the spans Kineto wrote of its
// recording, exactly (the oracle is a read of the JSON with Python's
// json module: the events of category "Trace", all with pid "Spans" and
// args {"Op count": 0}); no other value has it.
func TestRecordingSpansOfCorpus(t *testing.T) {
	spans := map[string][]string{
		"mtia_rank_0.json.gz":                              {"MTIA Activity Trace (-1)", "PyTorch Profiler (0)", "__MTIA_CCP_events__ (-1)"},
		"benchmark_result_924719_1679055439_trace.json.gz": {"PyTorch Profiler (0)", "__cupti_profiler__ (-1)"},
	}
	// The other Kineto traces whose span is "PyTorch Profiler (0)".
	for _, f := range []string{"triton_example.json.gz", "sampled_rank-1.json.gz", "sampled_rank-0.json.gz",
		"inference_rank_1.json.gz", "test.json.gz", "control.json.gz", "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
		"rank0.json.gz", "nccl_data.json.gz", "mtia_inference_rank_0.json.gz", "benchmark_simple_add_trace.json.gz",
		"df_index_resolver.json.gz", "benchmark_result_493459_1694039959_trace.json.gz",
		"overlaid_critical_path_trace.json.gz", "trace.json.gz", "event_sync_trace.json.gz",
		"benchmark_result_2869224_1695835535_trace.json.gz", "rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz",
		"mi250_minitoy_train_ROCm6_2_kineto.json.gz"} {
		spans[f] = []string{"PyTorch Profiler (0)"}
	}
	seen := 0
	for _, f := range corpusFiles(t) {
		s := &valueRoles{}
		if err := read(f, s, trace.ReadOptions{}); err != nil {
			continue // the corpus's broken files are other tests'
		}
		var got []string
		for _, v := range s.values {
			if v.Role == trace.RoleRecording {
				got = append(got, v.Name)
				if v.Category != "Trace" {
					t.Errorf("%s: %q of category %q is a recording span", f, v.Name, v.Category)
				}
			}
		}
		slices.Sort(got)
		base := filepath.Base(f)
		if strings.Contains(f, "trace_compare") { // base.json.gz, test.json.gz there: spans in none
			base = "trace_compare/" + base
		}
		if want := spans[base]; !slices.Equal(got, want) {
			t.Errorf("%s: recording spans %q, want %q", f, got, want)
		}
		if len(got) > 0 {
			seen++
		}
	}
	if !testing.Short() && seen != 23 {
		t.Errorf("%d traces with recording spans, want 23", seen)
	}
}
