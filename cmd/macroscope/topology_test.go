package main

import (
	"encoding/csv"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/paje"
)

// The bundled trace's communication graph: one node per rank, edges that
// count every message between two ranks, a figure that decodes.
func TestTopologyCommand(t *testing.T) {
	dir := t.TempDir()
	nodes, edges, figure := filepath.Join(dir, "n.csv"), filepath.Join(dir, "e.csv"), filepath.Join(dir, "g.png")
	code, out, errOut := runCLI("topology", "-nodes", nodes, "-edges-table", edges, "-o", figure, "-width", "500", "-height", "400", bundledTrace)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	tr, err := paje.ReadFile(bundledTrace)
	if err != nil {
		t.Fatal(err)
	}
	ranks, messages := 0, 0
	for _, c := range tr.Containers {
		if c.Type >= 0 && tr.Types[c.Type].Name == "MPI" {
			ranks++
		}
	}
	for _, l := range tr.Links {
		if l.From != l.To {
			messages++
		}
	}
	if !strings.Contains(out, strconv.Itoa(ranks)+" nodes") {
		t.Errorf("output does not report %d nodes:\n%s", ranks, out)
	}
	readCSV := func(path string) [][]string {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		rows, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	if n := len(readCSV(nodes)) - 1; n != ranks {
		t.Errorf("%d node rows, %d ranks", n, ranks)
	}
	total := 0
	for _, r := range readCSV(edges)[1:] {
		c, err := strconv.Atoi(r[3])
		if err != nil {
			t.Fatal(err)
		}
		total += c
	}
	if total != messages {
		t.Errorf("edges count %d messages, the trace has %d", total, messages)
	}
	f, err := os.Open(figure)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 500 || b.Dy() != 400 {
		t.Errorf("figure %v, want 500 x 400", b)
	}
	if code, _, errOut := runCLI("topology", "-collapse", "nowhere", bundledTrace); code != 1 || !strings.Contains(errOut, `no container "nowhere"`) {
		t.Errorf("exit %d, %q", code, errOut)
	}
}
