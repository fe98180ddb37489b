package paraver

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// corpus is the collection of real traces the tests read; see its
// MANIFEST.md, section 3.
const corpus = "../../../../shared/traces"

var (
	qsort = corpus + "/paraver/test/cutter/qsort_beo3.prv"
	namd  = corpus + "/paraver-folding/namd/444.namd.prv"
	btB   = corpus + "/paraver-folding/bt.B/bt.B.models.prv"
)

func needFiles(t testing.TB, files ...string) {
	t.Helper()
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			t.Skipf("trace not available: %v", err)
		}
	}
}

type recordOracle struct {
	Records       map[string]int
	EventPairs    int
	EventsPerType map[string]int
	End           trace.Time
	States        []struct {
		Thread, State string
		Cpu           int
		Start, End    trace.Time
	}
	Comms []struct {
		From, To, Tag string
		Start, End    trace.Time
		Size          float64
	}
}

func runOracle(t *testing.T, files ...string) map[string]recordOracle {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: it computes the expected values")
	}
	out, err := exec.Command(python, append([]string{"testdata/count_records.py"}, files...)...).Output()
	if err != nil {
		t.Fatalf("count_records.py: %v", err)
	}
	var res map[string]recordOracle
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	return res
}

// TestQsortManifest checks the counts MANIFEST.md gives for the qsort
// trace. Its "45 communication records" are the 45 lines of type 4, the
// collective operations; the 33 lines of type 3 are the point-to-point
// communications.
func TestQsortManifest(t *testing.T) {
	needFiles(t, qsort)
	tr, err := readFile(qsort)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, e := range tr.Events.All() {
		if tr.TypeName(e.Type) == "Global operation" {
			count["4"]++
		} else {
			count["2"]++
		}
	}
	for what, c := range map[string][2]int{
		"states (type 1)":                 {tr.States.Len(), 292},
		"event records (type 2)":          {count["2"], 422},
		"collective records (type 4)":     {count["4"], 45},
		"communications (type 3)":         {tr.Links.Len(), 33},
		"applications, tasks and threads": {len(tr.Containers) - 1, 1 + 4 + 4},
	} {
		if c[0] != c[1] {
			t.Errorf("%s: got %d, want %d", what, c[0], c[1])
		}
	}
	// No unit in the header: microseconds.
	if tr.Start != 0 || tr.End != 260199*1000 {
		t.Errorf("range [%d, %d], want [0, 260199000]", tr.Start, tr.End)
	}
}

// TestCorpusAgainstPython compares every Paraver trace of the corpus with
// an independent Python reading, by thread and by CPU.
func TestCorpusAgainstPython(t *testing.T) {
	files := []string{qsort, qsort + ".gz", namd, btB}
	needFiles(t, files...)
	want := runOracle(t, files...)
	for _, f := range files {
		w := want[f]
		for _, view := range []viewKind{threadView, cpuView} {
			tr := trace.New(f)
			if err := readView(f, view, tr, trace.ReadOptions{}); err != nil {
				t.Fatal(err)
			}
			name := strings.TrimPrefix(f, corpus+"/")
			perType := map[string]int{}
			globalOps := 0
			for _, e := range tr.Events.All() {
				if tr.TypeName(e.Type) == "Global operation" {
					globalOps++
				} else {
					perType[tr.TypeName(e.Type)]++
				}
			}
			if tr.States.Len() != w.Records["1"] || globalOps != w.Records["4"] || tr.Links.Len() != w.Records["3"] {
				t.Errorf("%s view %d: %d states, %d global ops, %d links; want %v", name, view, tr.States.Len(), globalOps, tr.Links.Len(), w.Records)
			}
			if !reflect.DeepEqual(perType, w.EventsPerType) {
				t.Errorf("%s view %d: events per type\n got %v\nwant %v", name, view, perType, w.EventsPerType)
			}
			if tr.Start != 0 || tr.End != w.End {
				t.Errorf("%s: range [%d, %d], want [0, %d]", name, tr.Start, tr.End, w.End)
			}
			for _, s := range w.States {
				where := s.Thread
				if view == cpuView {
					where = itoa(s.Cpu)
				}
				if !hasState(tr, where, s.State, s.Start, s.End) {
					t.Errorf("%s view %d: no state %q [%d, %d] on %s", name, view, s.State, s.Start, s.End, where)
				}
			}
			for _, c := range w.Comms {
				if view == threadView && !hasLink(tr, c.From, c.To, c.Tag, c.Start, c.End, c.Size) {
					t.Errorf("%s: no communication %+v", name, c)
				}
			}
		}
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func hasState(tr *trace.Trace, alias, value string, start, end trace.Time) bool {
	for _, s := range tr.States.All() {
		if s.Start == start && s.End == end && tr.ValueName(s.Value) == value && tr.Containers[s.Container].Alias == alias {
			return true
		}
	}
	return false
}

func hasLink(tr *trace.Trace, from, to, tag string, start, end trace.Time, size float64) bool {
	for _, l := range tr.Links.All() {
		if l.Start == start && l.End == end && l.Size == size && tr.ValueName(l.Value) == tag &&
			tr.Containers[l.From].Alias == from && tr.Containers[l.To].Alias == to {
			return true
		}
	}
	return false
}

// TestGzipSameAsPlain reads qsort_beo3.prv.gz, which must give what the
// plain file gives, names from qsort_beo3.pcf included.
func TestGzipSameAsPlain(t *testing.T) {
	needFiles(t, qsort, qsort+".gz")
	plain, err := readFile(qsort)
	if err != nil {
		t.Fatal(err)
	}
	gz, err := readFile(qsort + ".gz")
	if err != nil {
		t.Fatal(err)
	}
	gz.Files = plain.Files
	for _, l := range plain.Links.All() { // NaN never equals itself; sizes are set here anyway
		if math.IsNaN(l.Size) {
			t.Fatal("link without size")
		}
	}
	if !reflect.DeepEqual(plain, gz) {
		t.Error("the .prv.gz reads differently from the .prv")
	}
}

// TestNamesFromConfig checks names taken from the .pcf and .row files.
func TestNamesFromConfig(t *testing.T) {
	needFiles(t, qsort, namd)
	tr, err := readFile(qsort)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for i := 1; i < len(tr.Containers); i++ {
		paths = append(paths, tr.ContainerPath(int32(i), "/"))
	}
	want := []string{"APPL 1", "APPL 1/TASK 1.1", "APPL 1/TASK 1.1/THREAD 1.1.1", "APPL 1/TASK 1.2", "APPL 1/TASK 1.2/THREAD 1.2.1",
		"APPL 1/TASK 1.3", "APPL 1/TASK 1.3/THREAD 1.3.1", "APPL 1/TASK 1.4", "APPL 1/TASK 1.4/THREAD 1.4.1"}
	if !reflect.DeepEqual(paths, want) {
		t.Errorf("containers\n got %q\nwant %q", paths, want)
	}
	colors := map[string]string{}
	for _, v := range tr.Values {
		if tr.TypeName(v.Type) == "State" {
			colors[v.Name] = v.Color
		}
	}
	// STATES 1 Running, STATES_COLOR 1 {0,0,255}; state 15 is not in the
	// .pcf, so it keeps its number.
	if colors["Running"] != "0 0 1" || colors["Not created"] != "1 1 1" || colors["15"] != "" {
		t.Errorf("state colors %v", colors)
	}
	byCPU := trace.New()
	if err := readView(namd, cpuView, byCPU, trace.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := byCPU.ContainerPath(2, "/"); got != "node157/1.node157" {
		t.Errorf("namd by CPU: %q", got)
	}
	byThread, err := readFile(namd)
	if err != nil {
		t.Fatal(err)
	}
	if got := byThread.ContainerPath(3, "/"); got != "APPL 1/TASK 1.1/THREAD 1.1.1" {
		t.Errorf("namd by thread: %q", got)
	}
}
