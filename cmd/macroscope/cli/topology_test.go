package cli

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"
)

// The bundled trace's communication graph: one node per rank, edges that
// count every message between two ranks, a figure that decodes.
func TestTopologyCommand(t *testing.T) {
	dir := t.TempDir()
	out := mustRun(t, "topology", "--out", dir, "--nodes", "n.csv", "--edges-table", "tables/e.csv", "-o", "g.png", "--width", "500", "--height", "400", bundledTrace)
	tr, err := formats.ReadFile(bundledTrace, "paje")
	if err != nil {
		t.Fatal(err)
	}
	ranks, messages := 0, 0
	for _, c := range tr.Containers {
		if c.Type >= 0 && tr.Types[c.Type].Name == "MPI" {
			ranks++
		}
	}
	for _, l := range tr.Links.All() {
		if l.From != l.To {
			messages++
		}
	}
	if !strings.Contains(out, "graph      "+strconv.Itoa(ranks)+" nodes") {
		t.Errorf("output does not report %d nodes:\n%s", ranks, out)
	}
	if n := len(readCSV(t, filepath.Join(dir, "n.csv")).rows); n != ranks {
		t.Errorf("%d node rows, %d ranks", n, ranks)
	}
	edges := readCSV(t, filepath.Join(dir, "tables", "e.csv"))
	total := 0
	for i := range edges.rows {
		total += int(edges.float(t, i, "count"))
	}
	if total != messages {
		t.Errorf("edges count %d messages, the trace has %d", total, messages)
	}
	checkSize(t, readPNG(t, filepath.Join(dir, "g.png")), 500, 400)
	checkRefusals(t, []refusal{
		{[]string{"topology", "--collapse", "nowhere", bundledTrace}, 2, `no container "nowhere"`},
		{[]string{"topology", "--optimal", "2", bundledTrace}, 2, "invalid --optimal"},
		{[]string{"topology", "-o", "g.png", "--height", "0", bundledTrace}, 2, "invalid --width"},
		{[]string{"topology", bundledTrace, "more"}, 2, "usage: macroscope topology [flags] trace"},
	})
}
