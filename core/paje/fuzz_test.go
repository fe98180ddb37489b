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
