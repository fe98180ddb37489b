package micro

import (
	"compress/gzip"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// kinetoEvent is a complete event of a Kineto trace, as the JSON has it.
type kinetoEvent struct {
	Ph, Cat, Name string
	Pid, Tid      json.RawMessage
	Ts, Dur       float64
}

// kinetoEvents parses the complete events of a gzipped Kineto trace with
// encoding/json, apart from the reader: the test's oracle.
func kinetoEvents(t *testing.T, path string) []kinetoEvent {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("the corpus trace %s is absent: %v", path, err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []kinetoEvent `json:"traceEvents"`
	}
	if err := json.NewDecoder(z).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	var out []kinetoEvent
	for _, e := range doc.TraceEvents {
		if e.Ph == "X" {
			out = append(out, e)
		}
	}
	return out
}

// unionSeconds is the length of the union of the events' intervals on
// each of their threads, added (µs to s).
func unionSeconds(evs []kinetoEvent) float64 {
	byThread := map[string][][2]float64{}
	for _, e := range evs {
		k := string(e.Pid) + "/" + string(e.Tid)
		byThread[k] = append(byThread[k], [2]float64{e.Ts, e.Ts + e.Dur})
	}
	total := 0.0
	for _, iv := range byThread {
		sort.Slice(iv, func(i, j int) bool { return iv[i][0] < iv[j][0] })
		end := math.Inf(-1)
		for _, x := range iv {
			if x[0] > end {
				total += x[1] - x[0]
				end = x[1]
			} else if x[1] > end {
				total += x[1] - end
				end = x[1]
			}
		}
	}
	return total * 1e-6
}

// stepOwnSeconds is the steps' own time on the host: each ProfilerStep#N
// event's length less the union, within it, of the other events of its
// thread (the operators it encloses), added (µs to s).
func stepOwnSeconds(evs []kinetoEvent) float64 {
	byThread := map[string][]kinetoEvent{}
	for _, e := range evs {
		k := string(e.Pid) + "/" + string(e.Tid)
		byThread[k] = append(byThread[k], e)
	}
	total := 0.0
	for _, es := range byThread {
		for i, s := range es {
			if s.Cat == "gpu_user_annotation" || !strings.HasPrefix(s.Name, "ProfilerStep#") {
				continue
			}
			var inside []kinetoEvent
			for j, e := range es {
				if j != i && e.Ts < s.Ts+s.Dur && e.Ts+e.Dur > s.Ts {
					e.Ts, e.Dur = max(e.Ts, s.Ts), min(e.Ts+e.Dur, s.Ts+s.Dur)-max(e.Ts, s.Ts)
					inside = append(inside, e)
				}
			}
			total += s.Dur*1e-6 - unionSeconds(inside)
		}
	}
	return total
}

// TestProfilerSpansOfKinetoCorpus: on real PyTorch profiler traces, the
// default model holds the program's work, not the profiler's spans, and
// loses no time:
//   - no state of the model is a step, the profiler's recording or a copy
//     of an annotation on a GPU stream, and no row holds only them;
//   - what it leaves out is what the JSON, parsed apart from the reader,
//     says: the recording spans' time (the union of the category Trace
//     events), the copies' (the union, per stream, of the
//     gpu_user_annotation events) and the steps' own (stepOwnSeconds), to
//     the rounding of the µs to ns;
//   - the GPU streams' rows hold the union of the stream's operations,
//     every event on them but the copies of annotations;
//   - its cells are those of the model that keeps every span, and the
//     time left out makes up the difference, slice by slice;
//   - grouped names lose no time: each resource's time in each slice is
//     the same under key="group" as under key="name".
func TestProfilerSpansOfKinetoCorpus(t *testing.T) {
	for _, c := range []struct {
		file string
		top  string // the largest state by time
	}{
		{"hta/tests/data/nccl_parser_config/nccl_data.json.gz", "## backward ##"},
		{"hta/tests/data/trace_diff/control/control.json.gz", "## backward ##"},
		{"hta/tests/data/df_index_resolver/df_index_resolver.json.gz", "CompiledFunctionBackward"},
		{"hta/tests/data/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz", "hipLaunchKernel"},
	} {
		path := filepath.Join("..", "..", "..", "shared", "traces", c.file)
		evs := kinetoEvents(t, path)
		tr := corpusTrace(t, c.file)
		opt := Options{Slices: 50, Depth: Innermost}
		m, err := Build(tr, opt)
		if err != nil {
			t.Fatal(err)
		}
		full := opt
		full.ProfilerSpans = true
		all, err := Build(tr, full)
		if err != nil {
			t.Fatal(err)
		}
		byName := opt
		byName.Key = KeyName
		raw, err := Build(tr, byName)
		if err != nil {
			t.Fatal(err)
		}
		// What the JSON says of the spans and of the streams' work.
		var recording, copies, streams []kinetoEvent
		streamOf := map[string]bool{}
		for _, e := range evs {
			switch e.Cat {
			case "Trace":
				recording = append(recording, e)
			case "gpu_user_annotation":
				copies = append(copies, e)
			case "kernel", "gpu_memcpy", "gpu_memset":
				streamOf[string(e.Pid)+"/"+string(e.Tid)] = true
			}
		}
		for _, e := range evs {
			if e.Cat != "gpu_user_annotation" && streamOf[string(e.Pid)+"/"+string(e.Tid)] {
				streams = append(streams, e)
			}
		}
		left := map[trace.Role]float64{}
		for _, l := range m.LeftOut {
			left[l.Role] = l.Total()
		}
		tol := func(n int) float64 { return float64(n+1) * 1e-9 } // a ns per event's rounding
		if want := unionSeconds(recording); math.Abs(left[trace.RoleRecording]-want) > tol(len(recording)) {
			t.Errorf("%s: recording left out %.9f s, the JSON's %.9f s", c.file, left[trace.RoleRecording], want)
		}
		if want := unionSeconds(copies); math.Abs(left[trace.RoleDeviceAnnotation]-want) > tol(len(copies)) {
			t.Errorf("%s: copies of annotations left out %.9f s, the JSON's %.9f s", c.file, left[trace.RoleDeviceAnnotation], want)
		}
		if want := stepOwnSeconds(evs); math.Abs(left[trace.RoleStep]-want) > 1e-9 {
			t.Errorf("%s: steps left out %.9f s, their own time in the JSON %.9f s", c.file, left[trace.RoleStep], want)
		}
		// The model's states and rows.
		for x, s := range m.States {
			if strings.HasPrefix(s, "ProfilerStep") || strings.HasPrefix(s, "PyTorch Profiler") {
				t.Errorf("%s: state %d is %q", c.file, x, s)
			}
		}
		stream := 0.0
		w := m.SliceDuration()
		for i, node := range m.Tree.Leaves {
			name := tr.Containers[m.Container[node]].Name
			if strings.Contains(name, "(annotations)") || name == "Spans" {
				t.Errorf("%s: row %q", c.file, name)
			}
			if strings.HasPrefix(name, "stream ") {
				for k := range m.Slices {
					for x := range m.States {
						stream += m.Value(i, k, x) * w
					}
				}
			}
		}
		if want := unionSeconds(streams); math.Abs(stream-want) > tol(len(streams)) {
			t.Errorf("%s: %.9f s on the streams' rows, the JSON's operations %.9f s", c.file, stream, want)
		}
		// The largest state is work.
		time := make([]float64, len(m.States))
		m.EachNonZero(func(_, _, x int, v float64) { time[x] += v })
		top := 0
		for x := range time {
			if time[x] > time[top] {
				top = x
			}
		}
		if m.States[top] != c.top {
			t.Errorf("%s: the largest state is %q, want %q", c.file, m.States[top], c.top)
		}
		checkAddsUp(t, c.file, tr, m, all)
		// Grouped names lose no time.
		if raw.NumLeaves() != m.NumLeaves() {
			t.Fatalf("%s: %d resources by name, %d grouped", c.file, raw.NumLeaves(), m.NumLeaves())
		}
		for i := range m.NumLeaves() {
			for k := range m.Slices {
				g, r := 0.0, 0.0
				for x := range m.States {
					g += m.Value(i, k, x)
				}
				for x := range raw.States {
					r += raw.Value(i, k, x)
				}
				if math.Abs(g-r) > 1e-12 {
					t.Errorf("%s: resource %d slice %d: %.15g grouped, %.15g by name", c.file, i, k, g, r)
				}
			}
		}
		if !slices.Equal(m.LeftOut[0].Names, []string{"PyTorch Profiler (0)"}) {
			t.Errorf("%s: recording spans %q", c.file, m.LeftOut[0].Names)
		}
	}
}
