package readertest

import (
	"path/filepath"
	"testing"
)

// pajeDirs are the folders of the shared trace corpus that hold Pajé
// traces (*.trace).
var pajeDirs = []string{"pajeng/traces", "pajeng/traces/multiple_files", "simgrid/extracted", "simgrid/historical", "smpi-nas"}

// PajeCorpus lists the Pajé traces of the shared corpus at root, or skips
// the test where the corpus is absent.
func PajeCorpus(t testing.TB, root string) []string {
	t.Helper()
	var out []string
	for _, dir := range pajeDirs {
		files, _ := filepath.Glob(filepath.Join(root, dir, "*.trace"))
		out = append(out, files...)
	}
	if len(out) == 0 {
		t.Skip("the shared trace corpus (" + root + ") is absent")
	}
	return out
}
