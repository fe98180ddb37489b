package chrome

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// corpus is the collection of real traces the tests read; see its
// MANIFEST.md.
const corpus = "../../../../shared/traces"

// corpusFiles lists the real Chrome traces: PyTorch profiler (Kineto)
// traces from HTA's test data, PerfFlowAspect traces from hatchet's and
// rocprof's JSON export of an RPD trace.
func corpusFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pattern := range []string{
		"/hta/tests/data/*/*.json.gz",
		"/hta/tests/data/*/*/*.json.gz",
		"/hta/tests/data/*/*/*/*/*.json.gz",
		"/hta/tests/data/call_stack/*.json",
		"/hatchet/perfflow_hist/*.pfw",
		"/hatchet/perfflow_hist/*/*.pfw",
		"/rocprof/rpd/*.json",
	} {
		m, _ := filepath.Glob(corpus + pattern)
		files = append(files, m...)
	}
	var keep []string
	for _, f := range files {
		if strings.HasSuffix(f, "_et.json.gz") { // an execution graph, not a trace (see TestNotATrace)
			continue
		}
		if testing.Short() {
			if st, err := os.Stat(f); err == nil && st.Size() > 1<<20 {
				continue
			}
		}
		keep = append(keep, f)
	}
	if len(keep) == 0 {
		t.Skipf("no Chrome traces under %s", corpus)
	}
	return keep
}

// oracle is what testdata/count_events.py computes for one file.
type oracle struct {
	Phases              map[string]int
	Processes, Threads  int
	Start, End          trace.Time
	Instants            int
	CounterSamples      int
	Links               int
	UnmatchedFlowPoints int
	Slices              []struct {
		Pid, Tid, Name string
		Start, End     trace.Time
	}
	SomeLinks []struct{ From, To flowEnd }
	// The links of Kineto's correlation ids: launches where no flow
	// gives them, waits for CUDA events; a few of them.
	CorrelationLinks, EventWaits int
	SomeGPULinks                 []struct{ From, To flowEnd }
}

type flowEnd struct {
	Pid, Tid string
	Ts       trace.Time
}

func runOracle(t *testing.T, files []string) map[string]oracle {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: it computes the expected values")
	}
	out, err := exec.Command(python, append([]string{"testdata/count_events.py"}, files...)...).Output()
	if err != nil {
		t.Fatalf("count_events.py: %v", err)
	}
	var res map[string]oracle
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	return res
}

// owner returns the pid and tid of a thread container, or of the thread
// an overlap lane belongs to.
func owner(tr *trace.Trace, c int32) (pid, tid string) {
	ct := tr.Containers[c]
	tid, _, _ = strings.Cut(ct.Alias, "#")
	return tr.Containers[ct.Parent].Alias, tid
}

// TestCorpusAgainstPython reads every real trace and compares counts per
// kind, the time range, three slices (first and last in the file, longest)
// and the first flow links with an independent Python reading.
func TestCorpusAgainstPython(t *testing.T) {
	files := corpusFiles(t)
	want := runOracle(t, files)
	for _, f := range files {
		t.Run(strings.TrimPrefix(f, corpus+"/"), func(t *testing.T) {
			w, ok := want[f]
			if !ok {
				t.Fatal("no oracle output")
			}
			tr, err := readFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var procs, threads int
			for _, c := range tr.Containers[1:] {
				switch tr.TypeName(c.Type) {
				case "Process":
					procs++
				case "Thread":
					if !strings.Contains(c.Alias, "#") {
						threads++
					}
				}
			}
			check := func(what string, got, want int) {
				if got != want {
					t.Errorf("%s: got %d, want %d", what, got, want)
				}
			}
			check("states (X events)", tr.States.Len(), w.Phases["X"])
			check("events (instants + unmatched flow points)", tr.Events.Len(), w.Instants+w.UnmatchedFlowPoints)
			links := map[string]int{}
			for _, l := range tr.Links.All() {
				links[tr.TypeName(l.Type)]++
			}
			check("links (flows)", links["Flow"], w.Links)
			check("links (correlation ids)", links["Correlation"], w.CorrelationLinks)
			check("links (CUDA event waits)", links["CUDA event wait"], w.EventWaits)
			check("links", tr.Links.Len(), w.Links+w.CorrelationLinks+w.EventWaits)
			check("variable pieces (counter samples)", tr.Variables.Len(), w.CounterSamples)
			check("processes", procs, w.Processes)
			check("threads", threads, w.Threads)
			if tr.Start != w.Start || tr.End != w.End {
				t.Errorf("time range: got [%d, %d], want [%d, %d]", tr.Start, tr.End, w.Start, w.End)
			}
			for _, s := range w.Slices {
				if !hasState(tr, s.Pid, s.Tid, s.Name, s.Start, s.End) {
					t.Errorf("no state %q [%d, %d] on pid %s tid %s", s.Name, s.Start, s.End, s.Pid, s.Tid)
				}
			}
			for _, l := range append(w.SomeLinks, w.SomeGPULinks...) {
				if !hasLink(tr, l.From, l.To) {
					t.Errorf("no link %+v -> %+v", l.From, l.To)
				}
			}
		})
	}
}

func hasState(tr *trace.Trace, pid, tid, name string, start, end trace.Time) bool {
	for _, s := range tr.States.All() {
		if s.Start == start && s.End == end && tr.ValueName(s.Value) == name {
			if p, th := owner(tr, s.Container); p == pid && th == tid {
				return true
			}
		}
	}
	return false
}

func hasLink(tr *trace.Trace, from, to flowEnd) bool {
	for _, l := range tr.Links.All() {
		if l.Start != from.Ts || l.End != to.Ts {
			continue
		}
		fp, ft := owner(tr, l.From)
		tp, tt := owner(tr, l.To)
		if fp == from.Pid && ft == from.Tid && tp == to.Pid && tt == to.Tid {
			return true
		}
	}
	return false
}
