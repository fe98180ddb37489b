package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/gen/synthmodel"
)

func TestTreemapOfTheBundledTrace(t *testing.T) {
	dir := t.TempDir()
	out := mustRun(t, "treemap", "--slices", "20", "--p", "0", "--out", dir, "-o", "t.png", "--table", "t.csv", bundledTrace)
	// At p = 0 every host (with its only rank) is an aggregate: ties go to
	// the aggregate. 32 hosts, 2 zones and the root.
	if !strings.Contains(out, "32 aggregates") || !strings.Contains(out, "(35 rectangles)") {
		t.Errorf("output: %s", out)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "t.png")); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("no PNG figure: %v", err)
	}
	table := readCSV(t, filepath.Join(dir, "t.csv"))
	if len(table.rows) != 35 || !slices.Equal(table.header[:4], []string{"node", "name", "depth", "parent"}) {
		t.Errorf("table: %d rows, header %v", len(table.rows), table.header)
	}
}

// The scenario of Lamarche-Perrin et al., drawn without a trace: at the paper's
// p = 0.1 (the spatial kind measures as the paper by default), the table
// lists exactly the aggregates of the cut that details the heterogeneity,
// for the paper's layout and for a variant drawn with -seed.
func TestTreemapOfTheScenario(t *testing.T) {
	for _, seed := range []uint64{0, 42} {
		dir := t.TempDir()
		mustRun(t, "treemap", "--scenario", "small", "--seed", strconv.FormatUint(seed, 10), "--p", "0.1",
			"-o", filepath.Join(dir, "t.svg"), "--table", filepath.Join(dir, "t.csv"), "--proportions")
		table := readCSV(t, filepath.Join(dir, "t.csv"))
		col := table.col(t, "aggregated")
		var got []string
		for _, r := range table.rows {
			if r[col] == "true" {
				got = append(got, r[0])
			}
		}
		sort.Strings(got)
		sc := scenarios["small"]
		sc.Seed = seed
		want := sc.Detailed()
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("seed %d: aggregates %v, want %v", seed, got, want)
		}
	}
	if scenarios["million"] != synthmodel.Million() {
		t.Errorf("the million scenario is not Lamarche-Perrin et al.'s")
	}
}

func TestTreemapUsage(t *testing.T) {
	checkRefusals(t, []refusal{
		{[]string{"treemap"}, 2, "usage"},
		{[]string{"treemap", "--scenario", "small", "x.trace"}, 2, "usage"},
		{[]string{"treemap", "--scenario", "huge"}, 2, "invalid --scenario"},
		{[]string{"treemap", "--kind", "temporal", "--scenario", "small"}, 2, "invalid --kind"},
		{[]string{"treemap", "--value", "area", "--scenario", "small"}, 2, "invalid --value"},
		{[]string{"treemap", "--p", "x", "--scenario", "small"}, 2, "invalid --p"},
		{[]string{"treemap", "--root", "site-9/x", "--p", "0.1", "--scenario", "small", "-o", filepath.Join(t.TempDir(), "t.png"), "--table", ""}, 2, "invalid --root"},
	})
}
