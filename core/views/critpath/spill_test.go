package critpath

import (
	"os"
	"reflect"
	"testing"
)

// The path, its attribution, the wait states and the delay costs are the
// same whether the states, links and collectives' events kept while the
// trace streams went to a temporary file and back or stayed in memory,
// and the file is not left behind.
func TestSpilledEqualsInMemory(t *testing.T) {
	for _, c := range []struct{ name, path, format string }{
		{"cp_mixed", "../../../testdata/critpath/cp_mixed.trace", "paje"},
		{"stencil4d-32", "../../../../shared/traces/tracer-stencil4d/stencil4d-otf/traces-32/traces.otf2", "otf2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := read(t, c.path, c.format)
			want, err := Compute(tr, Options{SpillMemory: -1})
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			a := New(Options{SpillDir: dir, SpillMemory: 1})
			tr.Replay(a)
			spilled := a.spill.Spilled()
			got, err := a.Result()
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d bytes spilled", spilled)
			if spilled == 0 && c.name != "cp_mixed" {
				t.Error("nothing spilled")
			}
			// What each resource did, kept for the delay costs, is
			// spilled to a file of its own, open until the Result goes.
			if got.spill.Spilled() == 0 && c.name != "cp_mixed" {
				t.Error("the activities were not spilled")
			}
			if left, _ := os.ReadDir(dir); len(left) > 0 {
				t.Errorf("%d files left in the spill directory", len(left))
			}
			if !reflect.DeepEqual(got.Segments, want.Segments) || !reflect.DeepEqual(got.Waits, want.Waits) ||
				!reflect.DeepEqual(got.Attribution, want.Attribution) {
				t.Errorf("spilled: %d segments, %d waits; in memory: %d, %d", len(got.Segments), len(got.Waits),
					len(want.Segments), len(want.Waits))
			}
			for _, wait := range got.Waits { // read back from the file
				if g, w := got.CallOf(wait.Call), want.CallOf(wait.Call); *g != *w {
					t.Fatalf("call %v: %+v, held %+v", wait.Call, *g, *w)
				}
			}
			n := 0
			for w, c := range got.WaitCalls() { // the same, in one go
				if *w != got.Waits[n] || *c != *want.CallOf(w.Call) {
					t.Fatalf("WaitCalls %d: %+v on %+v, want %+v on %+v", n, *w, *c, got.Waits[n], *want.CallOf(w.Call))
				}
				n++
			}
			if n != len(got.Waits) {
				t.Errorf("WaitCalls yielded %d wait states, want %d", n, len(got.Waits))
			}
			if d, w := got.DelayCosts(), want.DelayCosts(); !reflect.DeepEqual(d, w) {
				t.Errorf("delay costs differ: %d vs %d", len(d.Costs), len(w.Costs))
			}
			if err := got.Close(); err != nil || got.Err() != nil {
				t.Errorf("Close: %v, Err: %v", err, got.Err())
			}
			if left, _ := os.ReadDir(dir); len(left) > 0 {
				t.Errorf("%d files left in the spill directory after Close", len(left))
			}
		})
	}
}
