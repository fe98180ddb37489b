package micro

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/paje"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// FuzzStreamPaje reads arbitrary Pajé input both ways: into memory then
// Build, and streaming (ReadFile, with the window guessed from the file's
// ends). Both must give the same model, cell by cell, or the same error,
// and never panic.
func FuzzStreamPaje(f *testing.F) {
	root := filepath.Join("..", "..", "..", "shared", "traces")
	for _, rel := range []string{
		"pajeng/traces/states.trace", "pajeng/traces/variables.trace", "pajeng/traces/events.trace",
		"pajeng/traces/gattaca.trace", "simgrid/extracted/replay.1.trace", "simgrid/historical/examples_msg_procmig.trace",
	} {
		if b, err := os.ReadFile(filepath.Join(root, rel)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n" +
		"%EventDef PajeCreateContainer 1\n% Time date\n% Alias string\n% Type string\n% Container string\n% Name string\n%EndEventDef\n" +
		"%EventDef PajeDefineStateType 3\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n" +
		"%EventDef PajePushState 4\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n" +
		"%EventDef PajePopState 5\n% Time date\n% Type string\n% Container string\n%EndEventDef\n" +
		"0 H 0 Host\n3 S H State\n1 0 h H 0 h\n4 1 S h a\n4 2 S h b\n5 3 S h\n4 3 S h c\n5 5 S h\n5 6 S h\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		bothWays(t, filepath.Join(t.TempDir(), "fuzz.trace"), data)
	})
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
	tr, readErr := paje.ReadFile(path)
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
