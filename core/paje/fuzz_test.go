package paje

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// FuzzRead feeds the reader arbitrary input, under both its default
// options and PajeNG's: it must never panic, and every error must be an
// *errs.FormatError that says where the problem is.
func FuzzRead(f *testing.F) {
	for _, rel := range []string{
		"pajeng/traces/states.trace", "pajeng/traces/links.trace", "pajeng/traces/events.trace",
		"pajeng/traces/variables.trace", "pajeng/traces/containers.trace", "pajeng/traces/gattaca.trace",
		"pajeng/traces/simgrid-fg126.trace", "pajeng/traces/replay_output_shurakai_extract.trace",
		"pajeng/traces/multiple_files/root.trace", "simgrid/extracted/replay.1.trace",
		"simgrid/historical/examples_lua_tracing_simgrid.trace",
	} {
		if b, err := os.ReadFile(filepath.Join(corpus, rel)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(generate(genConfig{processes: 3, events: 60, seed: 7})))
	f.Add([]byte("%EventDef PajeSetState 1\n% Time date\n%EndEventDef\n1 \"x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, opt := range []Options{{}, PajeNG(), {NoImbrication: true, IgnoreIncompleteLinks: true}} {
			err := DecodeWith(bytes.NewReader(data), "fuzz.trace", int64(len(data)), trace.New(), opt)
			if err == nil {
				continue
			}
			var fe *errs.FormatError
			if !errors.As(err, &fe) || fe.File != "fuzz.trace" {
				t.Fatalf("error %v (%T) is not a *errs.FormatError for fuzz.trace", err, err)
			}
		}
	})
}

// FuzzSort feeds the sorted read arbitrary input, in runs small enough to
// go to disk: it must never panic, and every error must be an
// *errs.FormatError naming the file.
func FuzzSort(f *testing.F) {
	f.Add([]byte(generate(genConfig{processes: 3, events: 60, seed: 7})))
	f.Add([]byte(miniHeader + "3 2 p1 S a\n3 1 p1 S b\n# c\n\n3 0.5 p1 S a\n"))
	f.Add([]byte("%EventDef PajeSetState 1\n% Time date\n%EndEventDef\n1 \"x\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "fuzz.trace")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		err := ReadFiles([]string{path}, trace.New(), Options{Sort: true, SortRun: 512})
		if err == nil {
			return
		}
		var fe *errs.FormatError
		if !errors.As(err, &fe) || fe.File != path {
			t.Fatalf("error %v (%T) is not a *errs.FormatError for %s", err, err, path)
		}
	})
}
