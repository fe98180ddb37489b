package kaleido

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"
)

// TestCallTreesOfCorpus builds the call tree of every Chrome, OTF2 and
// Pajé trace of the corpus that has nested states, and lays it out: the
// readers' nesting must always make a tree.
func TestCallTreesOfCorpus(t *testing.T) {
	var files []string
	for _, pattern := range []string{
		"/hta/tests/data/*/*.json.gz", "/hta/tests/data/*/*/*.json.gz", "/hta/tests/data/*/*/*/*/*.json.gz",
		"/hta/tests/data/call_stack/*.json", "/hatchet/perfflow_hist/*.pfw", "/hatchet/perfflow_hist/*/*.pfw",
		"/pipit/tests/data/*/traces.otf2", "/fastotf2/sample-traces/*/traces.otf2",
		"/pajeng/traces/*.trace",
	} {
		m, _ := filepath.Glob(corpus + pattern)
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Skipf("no traces under %s", corpus)
	}
	for _, f := range files {
		if st, err := os.Stat(f); err == nil && testing.Short() && st.Size() > 1<<20 {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			tr, err := formats.ReadFile(f, "")
			if err != nil {
				t.Skipf("not readable: %v", err)
			}
			nested := false
			for _, s := range tr.States.All() {
				nested = nested || s.Depth > 0
			}
			if !nested {
				t.Skip("no nested states")
			}
			tree, err := FromTrace(tr, TraceOptions{})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d nodes, height %d", tree.Len(), tree.Height)
			checkInvariants(t, mustLayout(t, tree, Options{Width: 850}))
		})
	}
}
