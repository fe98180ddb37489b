package gotrace

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// corpus is the directory of the Go runtime's sample traces, beside the
// repository.
var corpus = filepath.Join("..", "..", "..", "..", "shared", "traces", "go-runtime")

func corpusFiles(t *testing.T, pattern string) []string {
	t.Helper()
	if _, err := os.Stat(corpus); err != nil {
		t.Skipf("no trace corpus at %s", corpus)
	}
	files, err := filepath.Glob(filepath.Join(corpus, pattern))
	if err != nil || len(files) == 0 {
		t.Skipf("no %s in the corpus", pattern)
	}
	return files
}

// TestCorpusAgainstGoTool compares every state, link, log, range and
// metric read from the runtime's sample traces, in both formats (Go 1.26
// traces and the old format of Go 1.11 to 1.21), with what the Go
// toolchain's own parser prints.
func TestCorpusAgainstGoTool(t *testing.T) {
	files := append(corpusFiles(t, "generated-go1.26/*.trace"), corpusFiles(t, "v1-binary/*_good")...)
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			if testing.Short() {
				if st, err := os.Stat(path); err == nil && st.Size() > 100<<10 {
					t.Skip("large trace in -short mode")
				}
			}
			tr := trace.New(path)
			var notes trace.Notes
			if err := read(path, tr, trace.ReadOptions{Notes: &notes}); err != nil {
				t.Fatal(err)
			}
			checkNesting(t, tr)
			got, want := modelFacts(tr), oracle(t, path)
			got.samples = notes.Skipped()["CPU profile samples"]
			got.unended = unendedNote(notes.Messages())
			if filepath.Base(filepath.Dir(path)) == "v1-binary" {
				got, want = got.withoutTimes(), want.withoutTimes()
			}
			compareFacts(t, got, want)
		})
	}
}

// unendedNote returns "N on M" from the warning of the user regions open at
// the end of the trace, "" without one.
func unendedNote(msgs []string) string {
	for _, m := range msgs {
		var n, on int
		if _, err := fmt.Sscanf(m, "%d user regions (trace.StartRegion without End) were still open at the end of the trace, on %d goroutines", &n, &on); err == nil {
			return fmt.Sprintf("%d on %d", n, on)
		}
	}
	return ""
}
