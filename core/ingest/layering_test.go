package ingest_test

import (
	"go/build"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/macroscope-hpc/macroscope/"

// TestLayering checks the direction of the data flow in the imports of the
// core's packages (tests excluded): the core knows no Arrow, no drawing and
// no Python; format knowledge lives in the readers and the registry, so the
// model builders and the door itself import no reader.
func TestLayering(t *testing.T) {
	entries, err := os.ReadDir("..")
	if err != nil {
		t.Fatal(err)
	}
	readers := map[string]bool{}
	for _, r := range []string{"paje", "otf2", "chrome", "paraver", "pjcsv", "nsys", "rocprof", "hpctoolkit", "perfetto", "gotrace"} {
		readers[module+"core/"+r] = true
	}
	formatFree := map[string]bool{"micro": true, "moments": true, "aggregate": true, "ingest": true, "trace": true,
		"kaleido": true, "topology": true, "treemap": true}
	checked := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		pkg, err := build.ImportDir(filepath.Join("..", e.Name()), 0)
		if err != nil {
			continue // no Go files
		}
		checked++
		for _, imp := range pkg.Imports {
			switch {
			case strings.HasPrefix(imp, "github.com/apache/arrow-go"), strings.HasPrefix(imp, "gonum.org/v1/plot"),
				strings.HasPrefix(imp, module+"arrowio"), strings.HasPrefix(imp, module+"plots"),
				strings.HasPrefix(imp, module+"pybind"):
				t.Errorf("core/%s imports %s: the core knows no Arrow, drawing or Python", e.Name(), imp)
			case formatFree[e.Name()] && (readers[imp] || imp == module+"core/formats"):
				t.Errorf("core/%s imports %s: format knowledge stays in the readers and the registry", e.Name(), imp)
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d core packages found", checked)
	}
}
