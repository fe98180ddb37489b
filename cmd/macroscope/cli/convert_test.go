package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"
)

// TestConvertCommand: the bundled trace as a dataset partitioned by its
// zones (the top-level containers: it has no rank type), every state and
// link of the trace in one partition, the marker saying so.
func TestConvertCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "jacobi.parquet")
	out := mustRun(t, "convert", bundledTrace, "--out", dir)
	if want := "wrote      " + dir + ": 10272 states, 3920 links, 0 variables, 0 events in 2 partitions\n"; !strings.Contains(out, want) {
		t.Errorf("output:\n%s\nwant %q", out, want)
	}
	for _, table := range []string{"states", "links"} {
		entries, err := os.ReadDir(filepath.Join(dir, table))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if !slices.Equal(names, []string{"rank=alpha", "rank=beta"}) {
			t.Errorf("%s: partitions %v", table, names)
		}
	}
	tr, err := formats.ReadFile(bundledTrace, "paje")
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, zone := range []string{"alpha", "beta"} {
		tbl := readParquet(t, filepath.Join(dir, "states", "rank="+zone, "part-0.parquet"))
		rows += int(tbl.NumRows())
	}
	if rows != tr.States.Len() {
		t.Errorf("%d state rows, the trace has %d states", rows, tr.States.Len())
	}
	var marker map[string]any
	b, err := os.ReadFile(filepath.Join(dir, "_macroscope_dataset.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &marker); err != nil {
		t.Fatal(err)
	}
	if marker["format"] != "paje" || marker["partition_by"] != "rank" || marker["end_ns"] != float64(tr.End) {
		t.Errorf("marker %v", marker)
	}
	checkRefusals(t, []refusal{
		{[]string{"convert", "--out", dir, bundledTrace}, 2, "invalid --out: " + dir + " exists and is not empty"},
		{[]string{"convert", "--to", "csv", bundledTrace}, 2, `invalid --to: "csv"`},
		{[]string{"convert", "--partition-by", "Galaxy", "--out", filepath.Join(t.TempDir(), "x"), bundledTrace}, 2,
			`invalid --partition-by: the trace has no container type "Galaxy" (it has HOST, MPI, ZONE)`},
	})
	// Without --out: the trace's name with .parquet, in the current directory.
	cwd, _ := os.Getwd()
	t.Chdir(t.TempDir())
	mustRun(t, "convert", "--partition-by", "none", filepath.Join(cwd, bundledTrace))
	if entries, err := os.ReadDir(filepath.Join("jacobi32.parquet", "states")); err != nil || len(entries) != 1 || entries[0].Name() != "rank=%2F" {
		t.Errorf("one partition, rank=/: %v, %v", entries, err)
	}
}
