package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/moments"
	"github.com/macroscope-hpc/macroscope/core/paje"
)

// The CSV table and the printed table hold what core/moments computes from
// the trace read into memory, for every hierarchy node.
func TestMomentsCommand(t *testing.T) {
	dir := t.TempDir()
	out := mustRun(t, "moments", "-busy", "Compute", "-by", "node", "-out", dir, "-table", "nodes.csv", "-o", "nodes.png", "-width", "640", bundledTrace)
	tr, err := paje.ReadFile(bundledTrace)
	if err != nil {
		t.Fatal(err)
	}
	r, err := moments.Compute(tr, moments.Options{Select: moments.Only, Values: []string{"Compute"}})
	if err != nil {
		t.Fatal(err)
	}
	want, err := r.Rows(moments.ByNode)
	if err != nil {
		t.Fatal(err)
	}

	table := readCSV(t, filepath.Join(dir, "nodes.csv"))
	if got := strings.Join(table.header, ","); got != "node,resources,m0,m1,m2,m3,busy_ns,P0,P1,P2,P3,origin,origin_ns" {
		t.Errorf("header %s", got)
	}
	if len(table.rows) != len(want) || len(want) != 67 {
		t.Fatalf("%d rows, want %d (the root, 2 zones, 32 hosts, 32 ranks)", len(table.rows), len(want))
	}
	for i, w := range want {
		rec := table.rows[i]
		if rec[0] != w.Path || table.float(t, i, "busy_ns") != float64(w.Sums.Busy()) || table.float(t, i, "m1") != w.Sums.Moments().M1 {
			t.Errorf("row %d: %v, want %s busy %d m1 %v", i, rec[:7], w.Path, w.Sums.Busy(), w.Sums.Moments().M1)
		}
	}

	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.HasPrefix(lines[0], "trace      "+bundledTrace+": 32 resources") {
		t.Errorf("first line %q", lines[0])
	}
	// Header, then one line per node, then the two files written.
	if len(lines) != 1+1+67+2 || !strings.HasPrefix(lines[2], "(all)") {
		t.Errorf("%d lines:\n%s", len(lines), out)
	}
	root := strings.Fields(lines[2])
	if root[1] != "32" || root[2] != strconv.FormatFloat(want[0].Sums.Moments().M0, 'g', 9, 64) {
		t.Errorf("root line %q", lines[2])
	}
	if img := readPNG(t, filepath.Join(dir, "nodes.png")); img.Bounds().Dx() != 640 {
		t.Errorf("figure %v, want 640 pixels wide", img.Bounds())
	}
}

// Per-state rows of a window: each rank's states add up to its busy time
// over the same window.
func TestMomentsCommandByState(t *testing.T) {
	args := []string{"moments", "-q", "-start", "2", "-end", "3.5", "-idle", "Compute"}
	dir := t.TempDir()
	byState, byResource := filepath.Join(dir, "s.csv"), filepath.Join(dir, "r.csv")
	for _, c := range [][]string{{"-by", "state", "-table", byState}, {"-table", byResource}} {
		mustRun(t, append(append(append([]string{}, args...), c...), bundledTrace)...)
	}
	busy := func(path string) map[string]int64 {
		table := readCSV(t, path)
		sums := map[string]int64{}
		for i, r := range table.rows {
			sums[r[0]] += int64(table.float(t, i, "busy_ns"))
		}
		return sums
	}
	states, resources := busy(byState), busy(byResource)
	if len(resources) != 32 {
		t.Fatalf("%d resources", len(resources))
	}
	for r, v := range resources {
		if states[r] != v || v <= 0 {
			t.Errorf("%s: states add up to %d ns, the rank is busy %d ns", r, states[r], v)
		}
	}
}

func TestMomentsCommandErrors(t *testing.T) {
	checkRefusals(t, []refusal{
		{[]string{"moments"}, 2, "usage: macroscope moments"},
		{[]string{"moments", "-by", "rank", bundledTrace}, 2, `invalid by: "rank"`},
		{[]string{"moments", "-busy", "Compute", "-idle", "PMPI_Recv", bundledTrace}, 2, "invalid busy"},
		{[]string{"moments", "-busy", "Comput", bundledTrace}, 2, `invalid values: no selected state type has a value named "Comput"`},
		{[]string{"moments", "-busy=", bundledTrace}, 2, "invalid values"},
		{[]string{"moments", "-nesting", "outer", bundledTrace}, 2, "invalid nesting"},
		{[]string{"moments", "-start", "x", bundledTrace}, 2, "invalid start"},
		{[]string{"moments", "-start", "5", "-end", "4", bundledTrace}, 2, "invalid window"},
		{[]string{"moments", "-o", "fig.gif", bundledTrace}, 2, `invalid o: "fig.gif"`},
		{[]string{"moments", "-table", "t.xlsx", bundledTrace}, 2, `invalid table: "t.xlsx"`},
		{[]string{"moments", "-format", "nope", bundledTrace}, 2, "invalid format"},
		{[]string{"moments", "missing.trace"}, 1, "macroscope moments: stat missing.trace"},
	})
}
