package paraver

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

func TestParseHeader(t *testing.T) {
	for _, c := range []struct {
		line string
		want header
	}{
		{"#Paraver (26/01/04 at 16:35):260199:4:1:4(1:1,1:2,1:3,1:4),8",
			header{date: "26/01/04 at 16:35", end: 260199000, unit: 1000, nodes: []int{1, 1, 1, 1},
				apps: []app{{[]task{{1, 1}, {1, 2}, {1, 3}, {1, 4}}}}, comms: 8}},
		{"#Paraver (11/11/2013 at 12:32):185375938648_ns:1(1):1:1(1:1),0",
			header{date: "11/11/2013 at 12:32", end: 185375938648, unit: 1, nodes: []int{1}, apps: []app{{[]task{{1, 1}}}}}},
		{"#Paraver (01/01/20 at 00:00):5_ms:2(4,2):2:2(4:1,1:2):1(2:2)",
			header{date: "01/01/20 at 00:00", end: 5000000, unit: 1000000, nodes: []int{4, 2},
				apps: []app{{[]task{{4, 1}, {1, 2}}}, {[]task{{2, 2}}}}}},
		{"#Paraver (x):7_s:0:1:2(1:0,3:0)",
			header{date: "x", end: 7 * trace.Second, unit: 1e9, apps: []app{{[]task{{1, 0}, {3, 0}}}}}},
		// A power monitor's writer (fprintf "%0Lf_%s:1(1):1:1:(1:1)"):
		// a decimal duration, and ':' before the tasks' '(', both of
		// which Paraver reads.
		{"#Paraver (30/11/2026 at 18:40):1000.250000_ms:1(1):1:1:(1:1)",
			header{date: "30/11/2026 at 18:40", end: 1000250000, unit: 1000000, nodes: []int{1},
				apps: []app{{[]task{{1, 1}}}}, skipped: []string{":"}}},
		{"#PARAVER (30/10/2026 at 10:5):1200:2(4,4):1:2(1:1,1:2)",
			header{date: "30/10/2026 at 10:5", end: 1200000, unit: 1000, nodes: []int{4, 4}, apps: []app{{[]task{{1, 1}, {1, 2}}}}}},
		{"#Paraver (x):0.0000015_ms:0:1:1(1:0)",
			header{date: "x", end: 2, unit: 1000000, apps: []app{{[]task{{1, 0}}}}}},
		// Decimals whose product by the unit is a whole number of
		// nanoseconds that a float64 product overshoots (33923491904.000004):
		// the end is that number, not one more.
		{"#Paraver (x):33923.491904_ms:0:1:1(1:0)",
			header{date: "x", end: 33923491904, unit: 1000000, apps: []app{{[]task{{1, 0}}}}}},
		{"#Paraver (x):16581.309000:0:1:1(1:0)",
			header{date: "x", end: 16581309, unit: 1000, apps: []app{{[]task{{1, 0}}}}}},
		{"#Paraver (x):1.5e3_ns:0:1:1(1:0)",
			header{date: "x", end: 1500, unit: 1, apps: []app{{[]task{{1, 0}}}}}},
		// No resource model, yet the tasks name their nodes (EAR's
		// ear2prv): Paraver checks a task's node only against declared
		// resources.
		{"#Paraver (01/12/26 at 10:05):12000000:0:1:2(2:1,2:2)",
			header{date: "01/12/26 at 10:05", end: 12000000000, unit: 1000, apps: []app{{[]task{{2, 1}, {2, 2}}}}}},
	} {
		h, err := parseHeader(c.line)
		if err != nil {
			t.Errorf("%q: %v", c.line, err)
			continue
		}
		if !reflect.DeepEqual(*h, c.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", c.line, *h, c.want)
		}
	}
	for _, c := range []struct{ line, want string }{
		{"Paraver (x):1:0:1:1(1:0)", "does not start with"},
		{"#Paraver x:1:0:1:1(1:0)", "expected (date):"},
		{"#Paraver (x):1h:0:1:1(1:0)", `unknown time unit "h"`},
		{"#Paraver (x):-1:0:1:1(1:0)", "bad trace duration"},
		{"#Paraver (x):99999999999999999:0:1:1(1:0)", "out of range"},
		{"#Paraver (x):1:2(1):1:1(1:0)", `expected ','`},
		{"#Paraver (x):1:0:0:1(1:0)", "bad number of applications"},
		{"#Paraver (x):1:0:1:1(0:0)", "bad number of threads"},
		{"#Paraver (x):1:0:1:2(1:0)", `expected ','`},
		{"#Paraver (x):1:1:1:1(1:2)", "runs on node 2, but there are 1 nodes"},
		{"#Paraver (x):1:0:1:1(1:0),x", "bad number of communicators"},
		{"#Paraver (x):1:0:1:1(1:0)junk", "unexpected"},
		{"#Paraver (x):1:0:1:1(99999999:0)", "bad number of threads"},
		{"#Paraver (x):1:0:1:", "bad number of tasks"},
		{"#Paraver (x):NaN:0:1:1(1:0)", "bad trace duration"},
		{"#Paraver (x):1e400:0:1:1(1:0)", "bad trace duration"},
		{"#Paraver (x):0x10:0:1:1(1:0)", "bad trace duration"},
		{"#Paraver (x):1e300_ms:0:1:1(1:0)", "out of range"},
		{"#Paraver (x):1e-1000000000:0:1:1(1:0)", "bad trace duration"},
		{"#Paraver (x):1/3:0:1:1(1:0)", "bad trace duration"},
		{"#Paraver (x):1:0:1:1:1:0)", `expected '('`},
	} {
		if _, err := parseHeader(c.line); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want an error containing %q", c.line, err, c.want)
		}
	}
}

func TestParseColor(t *testing.T) {
	if got, err := parseColor("{0,51,255}"); err != nil || got != "0 0.2 1" {
		t.Errorf("got %q, %v", got, err)
	}
	for _, bad := range []string{"0,0,0", "{1,2}", "{1,2,300}", "{a,b,c}"} {
		if _, err := parseColor(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestLoadConfig(t *testing.T) {
	needFiles(t, qsort, namd)
	pcf, row := configPaths(qsort + ".gz")
	if !strings.HasSuffix(pcf, "qsort_beo3.pcf") || !strings.HasSuffix(row, "qsort_beo3.row") {
		t.Fatalf("ConfigPaths: %s %s", pcf, row)
	}
	cfg, err := loadConfig(pcf, row) // there is no qsort_beo3.row
	if err != nil {
		t.Fatal(err)
	}
	if cfg.states[9].name != "Blocked" || cfg.states[0].color != "0.458824 0.764706 1" {
		t.Errorf("states: %+v", cfg.states)
	}
	if et := cfg.eventTypes[50000001]; et == nil || et.name != "MPI Point-to-point" || et.values[eventValue{mag: 2}] != "MPI_Recv" {
		t.Errorf("event type 50000001: %+v", et)
	}
	if et := cfg.eventTypes[42000050]; et == nil || et.name != "Instructions completed (Instr completed)" {
		t.Errorf("event type 42000050: %+v", et)
	}
	cfg, err = loadConfig(configPaths(namd))
	if err != nil {
		t.Fatal(err)
	}
	// Two types sharing one VALUES block.
	a, b := cfg.eventTypes[30000000], cfg.eventTypes[30000001]
	if a == nil || b == nil || a.values[eventValue{mag: 3}] != "Molecule::readfile" || b.values[eventValue{mag: 3}] != a.values[eventValue{mag: 3}] || b.name != "Sampled functions (depth 1)" {
		t.Errorf("sampled functions: %+v %+v", a, b)
	}
	if name, _ := cfg.level("NODE", 0); name != "node157" {
		t.Errorf("row NODE: %q", name)
	}
}

// TestReadLaxHeader reads a trace whose header a power monitor's writer
// wrote as Paraver reads it: a decimal duration and ':' before the tasks'
// '(' (the trace's end is the duration; the ':' is skipped with a
// warning naming the file and line).
func TestReadLaxHeader(t *testing.T) {
	path := filepath.Join(t.TempDir(), "power.prv")
	body := "#Paraver (30/11/2026 at 18:40):1000.500000_ms:1(1):1:1:(1:1)\n1:1:1:1:1:0:100:1\n1:1:1:1:1:100:250:2\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	tr, notes, err := readertest.ReadFormatNotes(t, Format, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tr.States.Len() != 2 || tr.End != 1000500000 {
		t.Errorf("%d states, end %d", tr.States.Len(), tr.End)
	}
	if s := tr.States.At(1); s.Start != 100000000 || s.End != 250000000 {
		t.Errorf("second state %+v", s)
	}
	want := []string{path + `:1: ":" between an application's number of tasks and its '(' in the header: skipped, as Paraver skips it`}
	if got := notes.Messages(); !reflect.DeepEqual(got, want) {
		t.Errorf("notes %q, want %q", got, want)
	}
}
