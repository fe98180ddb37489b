package chrome

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// smallSeeds are real traces small enough to seed the fuzzer.
var smallSeeds = []string{
	"/hta/tests/data/call_stack/backward_thread.json",
	"/hta/tests/data/critical_path/cuda_event_sync/event_sync_trace.json.gz",
	"/hta/tests/data/trace_file_list/inference_rank_1.json.gz",
	"/hta/tests/data/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz",
	"/hatchet/perfflow_hist/perfflow.quartz1532.3570764.pfw",
}

// maxFuzzInput bounds the inputs FuzzDecode reads: the fuzzer minimizes
// every new input, at up to n²/2 runs for n bytes, so long inputs would
// stall it.
const maxFuzzInput = 4 << 10

// FuzzDecode checks that no input makes the reader panic, that every
// failure is a FormatError naming the input, that the calls to the sink
// keep its contract, and that what it accepts is consistent. The corpus
// seeds are those of a few kilobytes at most.
func FuzzDecode(f *testing.F) {
	readertest.BoundMinimization(f)
	for _, name := range smallSeeds {
		if b, err := os.ReadFile(corpus + name); err == nil && len(b) <= maxFuzzInput {
			f.Add(b)
		}
	}
	f.Add([]byte(`[{"ph":"B","name":"a","pid":1,"tid":1,"ts":1},{"ph":"E","pid":1,"tid":1,"ts":2},` +
		`{"ph":"C","name":"c","pid":1,"ts":1,"args":{"v":1}},{"ph":"i","s":"g","ts":3},` +
		`{"ph":"s","cat":"c","id":1,"pid":1,"tid":1,"ts":1},{"ph":"f","cat":"c","id":1,"pid":2,"tid":1,"ts":4}]`))
	f.Add(readertest.Compress(f, []byte(`{"traceEvents":[{"ph":"X","name":"x","pid":1,"tid":1,"ts":1.5,"dur":2}]}`), "gzip"))
	f.Add([]byte(everyPhase))
	f.Add([]byte(cpuProfileTrace))
	for _, name := range []string{"hermes_multi_thread_with_samples.json", "simple.cpuprofile"} {
		if b, err := os.ReadFile("testdata/producers/speedscope/" + name); err == nil {
			f.Add(b) // a sampling profile in stackFrames and samples; a CPU profile file
		}
	}
	f.Add([]byte(`[{"ph":"b","cat":"c","name":"a","id":1,"pid":1,"ts":1},{"ph":"b","cat":"c","name":"b","id":1,"pid":1,"ts":2},` +
		`{"ph":"e","cat":"c","name":"a","id":1,"pid":1,"ts":3},{"ph":"X","name":"x","pid":1,"tid":1,"ts":1,"bind_id":1,"flow_out":true},` +
		`{"ph":"X","name":"y","pid":1,"tid":2,"ts":2,"dur":1,"bind_id":1,"flow_in":true,"args":{"k":[1]}}`))
	// Async ids of one name packed into lanes, an instant outside any slice.
	f.Add([]byte(`[{"ph":"b","cat":"c","name":"r","id":1,"pid":1,"ts":1},{"ph":"b","cat":"c","name":"r","id":2,"pid":1,"ts":2},` +
		`{"ph":"e","cat":"c","name":"r","id":1,"pid":1,"ts":3,"args":{"s":1}},{"ph":"n","cat":"c","name":"m","id":2,"pid":1,"ts":9},` +
		`{"ph":"S","name":"r","id":3,"pid":1,"ts":3,"args":{"a":[1]}},{"ph":"F","name":"r","id":3,"pid":1,"ts":4}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzInput {
			return
		}
		tr := trace.New()
		tr.KeepArgs = true
		sink := &contractArgs{readertest.NewContract(tr), tr}
		err := Decode(bytes.NewReader(data), "fuzz", int64(len(data)), sink, trace.ReadOptions{Notes: &trace.Notes{}})
		readertest.CheckRead(t, "fuzz", err, sink.Contract)
		if err != nil {
			return
		}
		checkConsistent(t, tr)
	})
}

// contractArgs checks the Sink contract of the calls to a trace that
// keeps the arguments of the events.
type contractArgs struct {
	*readertest.Contract
	tr *trace.Trace
}

func (c *contractArgs) KeepsArgs() bool                            { return c.tr.KeepsArgs() }
func (c *contractArgs) Args(kind trace.Kind, index int, js string) { c.tr.Args(kind, index, js) }

// checkConsistent checks the invariants of any trace the reader produces.
func checkConsistent(t *testing.T, tr *trace.Trace) {
	t.Helper()
	nc, nt, nv := int32(len(tr.Containers)), int32(len(tr.Types)), int32(len(tr.Values))
	inRange := func(a, b trace.Time) bool { return tr.Start <= a && a <= b && b <= tr.End }
	for _, s := range tr.States.All() {
		if s.Container <= 0 || s.Container >= nc || s.Type < 0 || s.Type >= nt || s.Value < 0 || s.Value >= nv ||
			s.Depth < 0 || !inRange(s.Start, s.End) {
			t.Fatalf("bad state %+v", s)
		}
	}
	for _, l := range tr.Links.All() {
		if l.From <= 0 || l.From >= nc || l.To <= 0 || l.To >= nc || !inRange(l.Start, l.End) {
			t.Fatalf("bad link %+v", l)
		}
	}
	for _, v := range tr.Variables.All() {
		if v.Container <= 0 || v.Container >= nc || !inRange(v.Start, v.End) {
			t.Fatalf("bad variable %+v", v)
		}
	}
	for _, e := range tr.Events.All() {
		if e.Container < 0 || e.Container >= nc || e.Time < tr.Start || e.Time > tr.End {
			t.Fatalf("bad event %+v", e)
		}
	}
	for i, c := range tr.Containers[1:] {
		if c.Parent < 0 || c.Parent > int32(i) {
			t.Fatalf("container %d has parent %d", i+1, c.Parent)
		}
	}
	if len(tr.StateArgs) > tr.States.Len() || len(tr.EventArgs) > tr.Events.Len() {
		t.Fatalf("%d state args for %d states, %d event args for %d events", len(tr.StateArgs), tr.States.Len(), len(tr.EventArgs), tr.Events.Len())
	}
	for _, a := range append(slices.Clone(tr.StateArgs), tr.EventArgs...) {
		if a != "" && !json.Valid([]byte(a)) {
			t.Fatalf("args %q are not JSON", a)
		}
	}
	checkNesting(t, tr)
}

// checkNesting checks that the states of each container and type form
// call stacks: a state of depth d > 0 lies within the latest state of
// depth d-1 still open, and states of one depth do not overlap.
func checkNesting(t *testing.T, tr *trace.Trace) {
	t.Helper()
	groups := map[[2]int32][]trace.State{}
	for _, s := range tr.States.All() {
		k := [2]int32{s.Container, s.Type}
		groups[k] = append(groups[k], s)
	}
	for k, states := range groups {
		slices.SortStableFunc(states, func(a, b trace.State) int {
			if c := cmp.Compare(a.Start, b.Start); c != 0 {
				return c
			}
			return cmp.Compare(a.Depth, b.Depth)
		})
		var stack []trace.State
		for _, s := range states {
			for len(stack) > 0 && (stack[len(stack)-1].Depth >= s.Depth || stack[len(stack)-1].End < s.Start) {
				stack = stack[:len(stack)-1]
			}
			if int(s.Depth) != len(stack) {
				t.Fatalf("container %d type %d: state %+v at depth %d has %d open around it", k[0], k[1], s, s.Depth, len(stack))
			}
			if len(stack) > 0 && s.End > stack[len(stack)-1].End {
				t.Fatalf("container %d type %d: state %+v ends after its parent %+v", k[0], k[1], s, stack[len(stack)-1])
			}
			stack = append(stack, s)
		}
	}
}

// TestSmallReads decodes inputs delivered a byte at a time, so that every
// token straddles a refill of the scanner's window, and compares with a
// whole read.
func TestSmallReads(t *testing.T) {
	inputs := map[string][]byte{
		"long name": []byte(`[{"ph":"X","name":"` + strings.Repeat("é", 300<<10) + `","pid":1,"tid":1,"ts":1,"dur":1}, {"ph":"M","name":"x","args":` +
			strings.Repeat(`{"a":`, 100) + "1" + strings.Repeat("}", 100) + `}`),
	}
	for _, name := range smallSeeds {
		if b, err := os.ReadFile(corpus + name); err == nil {
			inputs[name] = b
		}
	}
	for name, in := range inputs {
		whole, err := decodeBytes(in)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkConsistent(t, whole)
		bytewise := trace.New()
		if err := Decode(iotest.OneByteReader(bytes.NewReader(in)), "mem", 0, bytewise, trace.ReadOptions{}); err != nil {
			t.Fatalf("%s read a byte at a time: %v", name, err)
		}
		if !reflect.DeepEqual(withoutNaN(whole), withoutNaN(bytewise)) {
			t.Errorf("%s: reading a byte at a time changes the result", name)
		}
	}
}

// withoutNaN replaces NaN link sizes, which reflect.DeepEqual never finds
// equal, by zero.
func withoutNaN(tr *trace.Trace) *trace.Trace {
	for i, l := range tr.Links.All() {
		if math.IsNaN(l.Size) {
			l.Size = 0
			tr.Links.Set(i, l)
		}
	}
	return tr
}

// TestReadError checks that an I/O error is reported, not taken for the end
// of an array-form trace, whether it comes first or after a complete event.
func TestReadError(t *testing.T) {
	boom := errors.New("disk on fire")
	in := []byte(`[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1},`)
	for _, r := range []io.Reader{
		iotest.ErrReader(boom),
		io.MultiReader(bytes.NewReader(in), iotest.ErrReader(boom)),
		io.MultiReader(bytes.NewReader(readertest.Compress(t, in, "gzip")[:30]), iotest.ErrReader(boom)),
	} {
		err := Decode(r, "slow.json", 0, trace.New(), trace.ReadOptions{})
		var fe *errs.FormatError
		if !errors.As(err, &fe) || !errors.Is(err, boom) {
			t.Errorf("got %v", err)
		}
	}
}
