package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/synthmodel"
)

func TestTreemapOfTheBundledTrace(t *testing.T) {
	dir := t.TempDir()
	png, table := filepath.Join(dir, "t.png"), filepath.Join(dir, "t.csv")
	var out, errOut bytes.Buffer
	args := []string{"treemap", "-slices", "20", "-p", "0", "-o", png, "-table", table, "../../testdata/jacobi32.trace"}
	if code := run(args, &out, &errOut); code != 0 {
		t.Fatalf("status %d: %s", code, errOut.String())
	}
	// At p = 0 every host (with its only rank) is an aggregate: ties go to
	// the aggregate. 32 hosts, 2 zones and the root.
	if !strings.Contains(out.String(), "32 aggregates") || !strings.Contains(out.String(), "(35 rectangles)") {
		t.Errorf("output: %s", out.String())
	}
	if b, err := os.ReadFile(png); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("no PNG figure: %v", err)
	}
	f, err := os.Open(table)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 36 || !slices.Equal(rows[0][:4], []string{"node", "name", "depth", "parent"}) {
		t.Errorf("table: %d rows, header %v", len(rows), rows[0])
	}
}

// The scenario of Lamarche-Perrin et al., drawn without a trace: at p = 0.01 (in the
// range where the cut details exactly the heterogeneity), the table lists
// exactly the aggregates of that cut.
func TestTreemapOfTheScenario(t *testing.T) {
	dir := t.TempDir()
	table := filepath.Join(dir, "t.csv")
	var out, errOut bytes.Buffer
	args := []string{"treemap", "-scenario", "small", "-p", "0.01", "-o", filepath.Join(dir, "t.svg"), "-table", table, "-proportions"}
	if code := run(args, &out, &errOut); code != 0 {
		t.Fatalf("status %d: %s", code, errOut.String())
	}
	f, err := os.Open(table)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := slices.Index(rows[0], "aggregated")
	var got []string
	for _, r := range rows[1:] {
		if r[col] == "true" {
			got = append(got, r[0])
		}
	}
	sort.Strings(got)
	want := scenarios["small"].Detailed()
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("aggregates %v, want %v", got, want)
	}
	if scenarios["million"] != synthmodel.Million() {
		t.Errorf("the million scenario is not Lamarche-Perrin et al.'s")
	}
}

func TestTreemapUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"treemap"}, 2, "usage"},
		{[]string{"treemap", "-scenario", "small", "x.trace"}, 2, "usage"},
		{[]string{"treemap", "-scenario", "huge"}, 1, "invalid scenario"},
		{[]string{"treemap", "-kind", "temporal", "-scenario", "small"}, 1, "invalid kind"},
		{[]string{"treemap", "-value", "area", "-scenario", "small"}, 1, "invalid value"},
		{[]string{"treemap", "-p", "x", "-scenario", "small", "-o", os.DevNull + ".png", "-table", ""}, 1, "invalid p"},
		{[]string{"treemap", "-root", "site-9/x", "-p", "0.1", "-scenario", "small", "-table", ""}, 1, "invalid root"},
	} {
		var out, errOut bytes.Buffer
		code := run(c.args, &out, &errOut)
		if code != c.code || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("%v: status %d, %q; want %d and %q", c.args, code, errOut.String(), c.code, c.want)
		}
	}
}
