package speedscope_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/readers/speedscope"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// FuzzRead reads arbitrary bytes as a speedscope file: the read ends
// with a trace whose states lie inside their thread and nest by depth,
// or with a FormatError naming the file, never a panic.
func FuzzRead(f *testing.F) {
	readertest.BoundMinimization(f)
	for _, s := range []string{twoSampled, simple, `{` + schema + `,"profiles":[{"type":"evented","unit":"seconds","events":[{"type":"O","at":0,"frame":0}]}],"shared":{"frames":[{"name":"a"}]}}`} {
		f.Add([]byte(s))
	}
	for _, name := range []string{"pyspy.speedscope.json", "pyinstrument.speedscope.json"} {
		if b, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(b)
		}
	}
	dir := readertest.FuzzDir(f)
	path := filepath.Join(dir, "fuzz.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		v, err := speedscope.Format.Check(ingest.Values{"count_unit": "us"})
		if err != nil {
			t.Fatal(err)
		}
		src, err := speedscope.Format.Open(path, v)
		if err != nil {
			t.Fatal(err)
		}
		tr := trace.New()
		contract := readertest.NewContract(tr)
		if err := src.Read(contract, trace.ReadOptions{}); err != nil {
			var fe *errs.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("%T %v, want a FormatError", err, err)
			}
			return
		}
		if err := contract.Err(); err != nil {
			t.Fatal(err)
		}
		for i, s := range tr.States.All() {
			if s.End < s.Start || s.Depth < 0 {
				t.Fatalf("state %d: %+v", i, s)
			}
		}
	})
}
