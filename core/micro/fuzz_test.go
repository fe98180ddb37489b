package micro

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/paje"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// fuzzDefs are the Pajé definitions of the fuzz seeds: containers
// created, states pushed, popped and set, a variable, events.
var fuzzDefs = map[string]string{
	"container": "%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n" +
		"%EventDef PajeCreateContainer 1\n% Time date\n% Alias string\n% Type string\n% Container string\n% Name string\n%EndEventDef\n",
	"push":     "%EventDef PajeDefineStateType 3\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n%EventDef PajePushState 4\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n",
	"pop":      "%EventDef PajePopState 5\n% Time date\n% Type string\n% Container string\n%EndEventDef\n",
	"variable": "%EventDef PajeDefineVariableType 7\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n%EventDef PajeSetVariable 8\n% Time date\n% Type string\n% Container string\n% Value double\n%EndEventDef\n",
	"event":    "%EventDef PajeDefineEventType 9\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n%EventDef PajeNewEvent 10\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n",
}

// maxFuzzInput bounds the inputs the fuzz target reads: the fuzzer
// minimizes every new input at one execution per byte removed, so long
// inputs would stall it.
const maxFuzzInput = 1536

// fuzzModelOptions are the model options FuzzStreamPaje builds with,
// chosen by an input byte.
var fuzzModelOptions = []Options{
	{Slices: 7, Depth: Innermost},
	{Slices: 3, Depth: Innermost, Metric: StateAverageDuration},
	{Slices: 5, Depth: 1},
	{Slices: 4, Metric: VariableAverage},
	{Slices: 4, Metric: EventCount},
}

// FuzzStreamPaje reads arbitrary Pajé input both ways: into memory then
// Build, and streaming (Stream). Both must give the same model, cell by
// cell, or the same error, and never panic; the model's values are
// proportions, durations and counts that add up (see checkModel).
func FuzzStreamPaje(f *testing.F) {
	readertest.BoundMinimization(f)
	d := fuzzDefs
	f.Add([]byte(d["container"]+d["push"]+d["pop"]+"0 T 0 T\n3 S T S\n1 0 t1 T 0 t1\n1 0 t2 T 0 t2\n"+
		"4 1 S t1 a\n4 2 S t1 b\n5 3 S t1\n4 3 S t2 c\n5 5 S t1\n5 6 S t2\n"), uint8(0))
	f.Add([]byte(d["container"]+d["variable"]+d["event"]+"0 T 0 T\n7 V T V\n9 E T E\n1 0 t T 0 t\n"+
		"8 1 V t 3\n10 1.5 E t x\n8 2 V t 1.5\n10 2 E t y\n"), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		if len(data) > maxFuzzInput {
			return
		}
		src := func(sink trace.Sink, ro trace.ReadOptions) error {
			return paje.Decode(bytes.NewReader(data), "fuzz.trace", int64(len(data)), sink, paje.Options{ReadOptions: ro})
		}
		opt := fuzzModelOptions[int(which)%len(fuzzModelOptions)]
		tr := trace.New()
		readErr := src(tr, trace.ReadOptions{})
		got, _, err := Stream(src, opt, trace.ReadOptions{}, nil)
		if readErr != nil {
			if err == nil || err.Error() != readErr.Error() {
				t.Fatalf("%s: the reader fails with %v, the stream with %v", describe(opt), readErr, err)
			}
			return
		}
		want, wantErr := Build(tr, opt)
		sameResult(t, describe(opt), want, wantErr, got, err)
		if err == nil {
			checkModel(t, got)
		}
	})
}

// checkModel checks that a model's values make sense: finite and not
// negative; state proportions of innermost states summing to at most 1
// per cell (a resource is in one innermost state at a time); event
// counts whole numbers.
func checkModel(t *testing.T, m *Model) {
	t.Helper()
	n := len(m.States)
	values := m.Dense()
	if len(values) != m.NumLeaves()*m.Slices*n {
		t.Fatalf("%d values for %d leaves, %d slices, %d categories", len(values), m.NumLeaves(), m.Slices, n)
	}
	if m.Cells != nil {
		if err := m.Cells.Check(m.NumLeaves()*m.Slices, n); err != nil {
			t.Fatal(err)
		}
	}
	for cell := 0; cell*max(n, 1) < len(values); cell++ {
		var sum float64
		for x := range n {
			v := values[cell*n+x]
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				t.Fatalf("cell %d, %s: value %v", cell, m.States[x], v)
			}
			if m.Metric == EventCount && v != math.Trunc(v) {
				t.Fatalf("cell %d, %s: %v events", cell, m.States[x], v)
			}
			sum += v
		}
		if (m.Metric == StateDuration || m.Metric == "") && sum > 1+1e-9 {
			t.Fatalf("cell %d: the state proportions sum to %v", cell, sum)
		}
	}
}

// TestStreamOnDamagedPaje is FuzzStreamPaje's check on a thousand
// corpus traces damaged at random: bytes changed, cut out, copied.
func TestStreamOnDamagedPaje(t *testing.T) {
	root := filepath.Join("..", "..", "..", "shared", "traces")
	var seeds [][]byte
	for _, rel := range []string{"pajeng/traces/states.trace", "pajeng/traces/variables.trace",
		"pajeng/traces/events.trace", "pajeng/traces/gattaca.trace", "simgrid/extracted/replay.1.trace"} {
		if b, err := os.ReadFile(filepath.Join(root, rel)); err == nil {
			seeds = append(seeds, b)
		}
	}
	if len(seeds) == 0 {
		t.Skip("the shared trace corpus is absent")
	}
	rng := rand.New(rand.NewPCG(1, 9))
	path := filepath.Join(t.TempDir(), "damaged.trace")
	for i := 0; i < 1000; i++ {
		data := append([]byte(nil), seeds[rng.IntN(len(seeds))]...)
		for m := 0; m < 1+rng.IntN(4); m++ {
			p := rng.IntN(len(data))
			switch rng.IntN(3) {
			case 0:
				data[p] = byte(rng.IntN(256))
			case 1:
				data = append(data[:p], data[min(len(data), p+1+rng.IntN(20)):]...)
			default:
				q := rng.IntN(len(data))
				data = append(data[:p], append(append([]byte(nil), data[q:min(len(data), q+30)]...), data[p:]...)...)
			}
			if len(data) == 0 {
				data = []byte("x")
			}
		}
		bothWays(t, path, data)
	}
}

// bothWays writes data to path and compares the in-memory and streaming
// models of it.
func bothWays(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	tr, readErr := readTrace(path, "paje")
	for _, opt := range []Options{
		{Slices: 7, Depth: Innermost},
		{Slices: 3, Depth: Innermost, Metric: StateAverageDuration},
		{Slices: 5, Depth: 1},
		{Slices: 4, Metric: VariableAverage},
		{Slices: 4, Metric: EventCount},
	} {
		got, _, err := ReadFile(path, "paje", opt, trace.ReadOptions{})
		if readErr != nil {
			if err == nil || err.Error() != readErr.Error() {
				t.Fatalf("%s: the reader fails with %v, the stream with %v", describe(opt), readErr, err)
			}
			continue
		}
		want, wantErr := Build(tr, opt)
		sameResult(t, describe(opt), want, wantErr, got, err)
	}
}
