package paje

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestStarPUMilliseconds reads what starpu_fxt_tool (StarPU 1.3.10 built
// with FxT) writes for a small run (testdata/gen/starpu_tasks.c): its
// dates are milliseconds. Oracle: the run took 0.94 s of wall time, the
// file's last line is "13 684.465309000 sched gft 0.000000" and its tasks.rec
// gives the same times in ms; pj_dump prints 11 containers, 1,166 states,
// 7 links, 161 events and 442 variables (it leaves out what happens at the
// last instant, the reader keeps it). Read as seconds, the run lasted
// 11 minutes.
func TestStarPUMilliseconds(t *testing.T) {
	path := filepath.Join("testdata", "starpu-1.3.10.trace")
	read := func(v ingest.Values) *trace.Trace {
		t.Helper()
		tr, err := readertest.ReadFormat(t, Format, path, v)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	tr := read(ingest.Values{})
	if want := trace.Time(684_465_309); tr.End != want {
		t.Errorf("end %v, want %v (684.465309 ms)", tr.End, want)
	}
	if start, end, ok := src(t, path).Probe(); !ok || start != 0 || end != 684_465_309 {
		t.Errorf("probe %v-%v %v, want 0-684.465309 ms", start, end, ok)
	}
	if len(tr.Containers) != 11 || tr.Links.Len() != 7 {
		t.Errorf("%d containers, %d links; want pj_dump's 11 and 7", len(tr.Containers), tr.Links.Len())
	}
	// The longest task: its span in ms, as tasks.rec gives them.
	var longest trace.Time
	for _, s := range tr.States.All() {
		if tr.ValueName(s.Value) == "scal" || tr.ValueName(s.Value) == "add" {
			longest = max(longest, s.End-s.Start)
		}
	}
	if longest <= 0 || longest > 100*trace.Second/1000 {
		t.Errorf("longest task %v, want a few ms", longest)
	}

	if got := read(ingest.Values{"strict": true}).End; got != 684_465_309_000 {
		t.Errorf("strict: end %v, want pj_dump's 684.465309 s", got)
	}
	for unit, end := range map[string]trace.Time{"s": 684_465_309_000, "ms": 684_465_309, "us": 684_465, "ns": 684} {
		if got := read(ingest.Values{"time_unit": unit}).End; got != end {
			t.Errorf("time_unit=%s: end %v, want %v", unit, got, end)
		}
	}
}

func src(t *testing.T, path string) *ingest.Source {
	t.Helper()
	v, _ := Format.Check(ingest.Values{})
	s, err := Format.Open(path, v)
	if err != nil || s.Probe == nil {
		t.Fatalf("open: %v", err)
	}
	return s
}

// TestStarPUTypesUnquoted: the container types tell a StarPU trace
// whether the file quotes their names or not (a trace rewritten by a
// tool that quotes only names with blanks), and a name in a comment or in
// a definition line does not count.
func TestStarPUTypesUnquoted(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "starpu-1.3.10.trace"))
	if err != nil {
		t.Fatal(err)
	}
	unquoted := strings.NewReplacer(`"Program"`, "Program", `"Worker"`, "Worker").Replace(string(data))
	if unquoted == string(data) {
		t.Fatal("the trace has no quoted Program or Worker to unquote")
	}
	path := filepath.Join(t.TempDir(), "unquoted.trace")
	if err := os.WriteFile(path, []byte(unquoted), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := readertest.ReadFormat(t, Format, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := trace.Time(684_465_309); tr.End != want {
		t.Errorf("unquoted types: end %v, want %v (684.465309 ms)", tr.End, want)
	}

	for _, head := range []string{
		"# \"Program\" \"Memory Node\" \"Worker\"\n",
		"%EventDef Program 1\n% Memory \"Memory Node\" Worker\n%EndEventDef\n",
		"1 P 0 Program\n1 M P \"Memory Node\"\n1 W M Worker", // the last line may be cut
	} {
		if writesMilliseconds([]byte(head)) {
			t.Errorf("%q: taken for StarPU's", head)
		}
	}
	if !writesMilliseconds([]byte("1 P 0 Program\n1 M P \"Memory Node\"\n1 W M Worker\n")) {
		t.Error("whole lines with the three types: not taken for StarPU's")
	}
}
