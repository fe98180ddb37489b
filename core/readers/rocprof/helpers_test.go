package rocprof

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// corpus returns the path of a file of the shared trace corpus, skipping
// the test when it is absent.
func corpus(t testing.TB, parts ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{"..", "..", "..", "..", "shared", "traces", "rocprof"}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("corpus file %s absent: %v", p, err)
	}
	return p
}

// load reads with read into memory, with notes.
func load(t testing.TB, read func(trace.Sink, trace.ReadOptions) error) (*trace.Trace, *trace.Notes) {
	t.Helper()
	tr := trace.New()
	notes := &trace.Notes{}
	if err := read(tr, trace.ReadOptions{Notes: notes}); err != nil {
		t.Fatal(err)
	}
	return tr, notes
}

// statesByType counts the states per type name.
func statesByType(tr *trace.Trace) map[string]int {
	out := map[string]int{}
	for _, s := range tr.States.All() {
		out[tr.Types[s.Type].Name]++
	}
	return out
}

// eventsByType counts the events per type name.
func eventsByType(tr *trace.Trace) map[string]int {
	out := map[string]int{}
	for _, e := range tr.Events.All() {
		out[tr.Types[e.Type].Name]++
	}
	return out
}

// fullName is a container's path from the root.
func fullName(tr *trace.Trace, c int32) string {
	if c <= 0 {
		return ""
	}
	p := fullName(tr, tr.Containers[c].Parent)
	if p == "" {
		return tr.Containers[c].Name
	}
	return p + "/" + tr.Containers[c].Name
}
