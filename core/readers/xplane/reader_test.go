package xplane

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/chrome"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// summary is what the tests compare of a trace: its number of states,
// the states of each line ("plane/line", overlap lanes counted with
// their line), and the count and total duration (ns) of each name.
type summary struct {
	States int                 `json:"states"`
	Lines  map[string]int      `json:"lines"`
	Names  map[string][2]int64 `json:"names"`
}

// summarize summarizes tr. A line's path is its parent's name and its
// own (the trace viewer's process and thread), a lane's that of its
// line, the container of its parent whose alias starts its own.
func summarize(tr *trace.Trace) summary {
	s := summary{Lines: map[string]int{}, Names: map[string][2]int64{}}
	line := func(id int32) string {
		c := tr.Containers[id]
		name := c.Name
		if key, _, lane := strings.Cut(c.Alias, "#"); lane {
			for _, k := range tr.Containers[c.Parent].Children {
				if tr.Containers[k].Alias == key {
					name = tr.Containers[k].Name
				}
			}
		}
		return tr.Containers[c.Parent].Name + "/" + name
	}
	for _, st := range tr.States.All() {
		s.States++
		s.Lines[line(st.Container)]++
		n := s.Names[tr.Values[st.Value].Name]
		s.Names[tr.Values[st.Value].Name] = [2]int64{n[0] + 1, n[1] + int64(st.End-st.Start)}
	}
	return s
}

// TestExpected reads real XSpace files and compares them with what an
// independent decoder (testdata/expect.py: the protobuf package and a
// descriptor of xplane.proto, xprof's rules) expects of them:
//   - jax_cpu: jax 0.10.2 on CPU, 3 steps of a jitted function under
//     StepTraceAnnotation and TraceAnnotation (our own run);
//   - tracelens_mi300_tw003: JAX on 8 MI300 GPUs, from AMD-AGI/TraceLens
//     at 171dd74 (MIT), tests/traces/mi300/jax_conv_minimal_08.
func TestExpected(t *testing.T) {
	for _, name := range []string{"jax_cpu.xplane.pb", "tracelens_mi300_tw003.xplane.pb.gz"} {
		t.Run(name, func(t *testing.T) {
			tr, err := readertest.ReadFormat(t, Format, filepath.Join("testdata", name), nil)
			if err != nil {
				t.Fatal(err)
			}
			var want summary
			stem := strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), ".xplane.pb")
			b, err := os.ReadFile(filepath.Join("testdata", stem+".expected.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatal(err)
			}
			got := summarize(tr)
			if got.States != want.States || !maps.Equal(got.Lines, want.Lines) || !maps.Equal(got.Names, want.Names) {
				t.Errorf("got %d states, want %d", got.States, want.States)
				for _, k := range slices.Sorted(maps.Keys(want.Lines)) {
					if got.Lines[k] != want.Lines[k] {
						t.Errorf("line %s: %d states, want %d", k, got.Lines[k], want.Lines[k])
					}
				}
				for _, k := range slices.Sorted(maps.Keys(want.Names)) {
					if got.Names[k] != want.Names[k] {
						t.Errorf("name %q: %v, want %v", k, got.Names[k], want.Names[k])
					}
				}
				if len(got.Lines) != len(want.Lines) || len(got.Names) != len(want.Names) {
					t.Errorf("%d lines, %d names; want %d, %d", len(got.Lines), len(got.Names), len(want.Lines), len(want.Names))
				}
			}
		})
	}
}

// TestAgreesWithTraceViewerJSON reads a JAX run's XSpace and the
// trace-event JSON jax wrote of the same run (create_perfetto_trace=True:
// xprof's conversion): the two readers must give the same states, each
// on the same thread with the same name, times and depth.
func TestAgreesWithTraceViewerJSON(t *testing.T) {
	x, err := readertest.ReadFormat(t, Format, "testdata/jax_cpu.xplane.pb", nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := readertest.ReadFormat(t, chrome.Format, "testdata/jax_cpu.perfetto_trace.json.gz", nil)
	if err != nil {
		t.Fatal(err)
	}
	got, want := statesOf(x), statesOf(c)
	if len(got) == 0 || !slices.Equal(got, want) {
		t.Errorf("%d states from the XSpace, %d from its JSON; first difference: %s",
			len(got), len(want), readertest.FirstDiff(strings.Join(got, "\n"), strings.Join(want, "\n")))
	}
}

// statesOf lists the states of tr as "thread|start|end|depth|name",
// sorted: the thread is its container's name (lanes included), which both
// readers take from the file.
func statesOf(tr *trace.Trace) []string {
	var out []string
	for _, s := range tr.States.All() {
		out = append(out, strings.Join([]string{tr.Containers[s.Container].Name, s.Start.String(), s.End.String(),
			trace.Time(s.Depth).String(), tr.Values[s.Value].Name}, "|"))
	}
	slices.Sort(out)
	return out
}
