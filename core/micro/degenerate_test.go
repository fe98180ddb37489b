package micro

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
)

// instantTrace is a trace whose entities all sit at one instant: a host
// with a zero-length state, an event and a variable set at at.
func instantTrace(at trace.Time) *trace.Trace {
	tr := trace.New()
	tr.DefineType(trace.Type{Name: "Host", Kind: trace.KindContainer, Parent: trace.None, Start: trace.None, End: trace.None})
	tr.DefineType(trace.Type{Name: "S", Kind: trace.KindState, Parent: 0, Start: trace.None, End: trace.None})
	tr.DefineType(trace.Type{Name: "E", Kind: trace.KindEvent, Parent: 0, Start: trace.None, End: trace.None})
	tr.DefineType(trace.Type{Name: "V", Kind: trace.KindVariable, Parent: 0, Start: trace.None, End: trace.None})
	tr.DefineValue(trace.Value{Type: 1, Name: "run"})
	tr.DefineValue(trace.Value{Type: 2, Name: "tick"})
	tr.CreateContainer(trace.Container{Name: "h", Type: 0, Parent: 0, Start: at, End: trace.Unset})
	tr.State(trace.State{Container: 1, Type: 1, Value: 0, Start: at, End: at})
	tr.Event(trace.Event{Container: 1, Type: 2, Value: 1, Time: at})
	tr.Variable(trace.Variable{Container: 1, Type: 3, Start: at, End: at, Value: 7})
	tr.Finish(at, at)
	return tr
}

// noDuration checks that err is the error of a trace without duration.
func noDuration(t *testing.T, what string, err error, at string) {
	t.Helper()
	var ae *errs.ArgumentError
	want := "window: the trace has no duration (all its events are at t = " + at + " s); give a window (start=, end=) to model it"
	if !errors.As(err, &ae) || err.Error() != want {
		t.Errorf("%s: got %v, want %q", what, err, want)
	}
}

// TestNoDuration checks that Build and Stream refuse a trace whose
// entities all sit at one instant with an error saying so, unless given
// a window, and that the model of a window then aggregates.
func TestNoDuration(t *testing.T) {
	for _, c := range []struct {
		at   trace.Time
		text string
	}{{0, "0"}, {5e9, "5"}, {1500, "1.5e-06"}} {
		tr := instantTrace(c.at)
		for _, m := range []Metric{StateDuration, StateAverageDuration, EventCount, VariableAverage} {
			opt := Options{Slices: 10, Metric: m}
			_, err := Build(tr, opt)
			noDuration(t, "Build "+string(m), err, c.text)
			_, _, err = Stream(replay(tr), opt, trace.ReadOptions{}, nil)
			noDuration(t, "Stream "+string(m), err, c.text)
			_, _, err = Stream(replay(tr), opt, trace.ReadOptions{}, exactProbe(tr))
			noDuration(t, "Stream with a probe "+string(m), err, c.text)

			// A window models it: the instant counts for nothing but an
			// event, which falls in the first slice.
			start, end := c.at, c.at+10
			opt.Start, opt.End = &start, &end
			model, err := Build(tr, opt)
			if err != nil {
				t.Fatalf("Build %s with a window: %v", m, err)
			}
			streamed, _, err := Stream(replay(tr), opt, trace.ReadOptions{}, nil)
			if err != nil {
				t.Fatalf("Stream %s with a window: %v", m, err)
			}
			want := make([]float64, 10)
			if m == EventCount {
				want[0] = 1
			}
			if !equalFloats(model.Dense(), want) || !equalFloats(streamed.Dense(), want) {
				t.Errorf("%s with a window: Build %v, Stream %v, want %v", m, model.Dense(), streamed.Dense(), want)
			}
		}
	}
	// A window given but empty keeps its own message.
	tr := instantTrace(0)
	zero := trace.Time(0)
	_, err := Build(tr, Options{Slices: 1, Start: &zero, End: &zero})
	if err == nil || err.Error() != "window: empty time window [0.000000000, 0.000000000] s" {
		t.Errorf("empty window given: %v", err)
	}
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestPlatformOnlyTrace reads a SimGrid trace of the platform alone, every
// line of which is at t = 0: it reads, its model needs a window, and the
// model of a window (all zeros: the variables' values hold until the
// trace's end, t = 0) aggregates into a single level.
func TestPlatformOnlyTrace(t *testing.T) {
	path := filepath.Join("..", "..", "..", "shared", "traces", "simgrid", "extracted", "s4u-trace-platform.1.trace")
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("trace corpus not available: %v", err)
	}
	// The oracle, from the file: every event line (ids 6 to 17; 0 to 5
	// define types and values and have no date) is at 0; the containers
	// created (id 6: time, alias, type, parent, name) of the host and link
	// types (2 and 5) are the model's leaves; the variables set (id 8:
	// time, type, container, value) are one piece per type and container.
	leaves, dated := 0, 0
	variables := map[[2]string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 || strings.HasPrefix(fields[0], "%") {
			continue
		}
		if id, _ := strconv.Atoi(fields[0]); id < 6 {
			continue
		}
		if fields[1] != "0.000000" {
			t.Fatalf("line %q is not at 0", sc.Text())
		}
		dated++
		if fields[0] == "6" && (fields[3] == "2" || fields[3] == "5") {
			leaves++
		}
		if fields[0] == "8" {
			variables[[2]string{fields[2], fields[3]}] = true
		}
	}
	f.Close()
	if dated != 218 || leaves != 31 || len(variables) != 16 {
		t.Fatalf("%d dated lines, %d hosts and links, %d variables, want 218, 31 and 16", dated, leaves, len(variables))
	}

	_, _, err = ReadFile(path, "paje", Options{Slices: 10, Metric: VariableAverage}, trace.ReadOptions{})
	noDuration(t, "ReadFile", err, "0")
	start, end := trace.Time(0), trace.Time(1e9)
	model, sum, err := ReadFile(path, "paje", Options{Slices: 10, Metric: VariableAverage, Start: &start, End: &end}, trace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Start != 0 || sum.End != 0 || sum.Variables != int64(len(variables)) {
		t.Errorf("summary %+v, want the trace [0, 0] with 16 variables", sum)
	}
	if len(model.Tree.Leaves) != leaves || strings.Join(model.States, ",") != "speed,core_count,bandwidth,latency" {
		t.Errorf("%d leaves, variables %v", len(model.Tree.Leaves), model.States)
	}
	for i, v := range model.Dense() {
		if v != 0 {
			t.Fatalf("value %d is %v, want 0", i, v)
		}
	}
	eng, err := aggregate.New(aggregate.KindSpatiotemporal, aggregate.Input{Tree: model.Tree, Slices: 10, States: len(model.States), Values: model.Values, Cells: model.Cells}, aggregate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	levels, err := aggregate.SignificantExact(eng, 0)
	if g, l := eng.Scale(); err != nil || len(levels) != 1 || g != 0 || l != 0 {
		t.Errorf("aggregation: %d levels (%v), gain %v loss %v", len(levels), err, g, l)
	}
}
