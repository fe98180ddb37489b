package cli

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"

	"github.com/macroscope-hpc/macroscope/core/views/kaleido"
)

// TestKaleidoCommand: the table holds the layout core/views/kaleido computes for
// the call tree of the trace read into memory, node for node; the figure
// is the window plus the title band and the legend column.
func TestKaleidoCommand(t *testing.T) {
	tr, err := formats.ReadFile(bundledTrace, "paje")
	if err != nil {
		t.Fatal(err)
	}
	tree, err := kaleido.FromTrace(tr, kaleido.TraceOptions{PerContainer: true})
	if err != nil {
		t.Fatal(err)
	}
	// Node 1 is the first container's node: its subtree is its call tree.
	sub := int32(1)
	for _, c := range []struct {
		args []string
		opt  kaleido.Options
	}{
		{[]string{"--width", "600"}, kaleido.Options{Width: 600}},
		{[]string{"--width", "400", "--spacing", "150", "--view", "time"}, kaleido.Options{Width: 400, LevelSpacing: 150}},
		{[]string{"--subtree", "1", "--view", "procedure", "--min-sector", "3"}, kaleido.Options{Width: 850, Subtree: sub, MinSector: 3}},
	} {
		dir := t.TempDir()
		args := append([]string{"kaleido", "--per-container", "--out", dir, "-o", "k.png", "--table", "k.csv"}, c.args...)
		out := mustRun(t, append(args, bundledTrace)...)
		l, err := tree.Layout(c.opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range []string{
			fmt.Sprintf("tree       %d nodes, height %d, %d procedures, %d PEs", tree.Len(), tree.Height, len(tree.Procedures), len(tree.PEs)),
			fmt.Sprintf("layout     %d nodes, %d levels shown", l.Len(), l.Levels),
			fmt.Sprintf("%g px between levels; %d drawn, %d drawn without descendants", l.Spacing, l.NumDrawn, l.NumCollapsed),
			fmt.Sprintf("wrote      %s (%d nodes)", filepath.Join(dir, "k.csv"), l.Len()),
		} {
			if !strings.Contains(out, line) {
				t.Errorf("%v: output does not say %q:\n%s", c.args, line, out)
			}
		}
		table := readCSV(t, filepath.Join(dir, "k.csv"))
		if len(table.rows) != l.Len() {
			t.Fatalf("%v: %d rows, the layout has %d nodes", c.args, len(table.rows), l.Len())
		}
		drawn := 0
		for i := range table.rows {
			if table.float(t, i, "id") != float64(int(l.Root)+i) ||
				!same(table.float(t, i, "x"), l.X[i]) || !same(table.float(t, i, "y"), l.Y[i]) ||
				!same(table.float(t, i, "sector_extent"), l.Extent[i]) {
				t.Fatalf("%v: row %d: %v; want x %v y %v extent %v", c.args, i, table.rows[i], l.X[i], l.Y[i], l.Extent[i])
			}
			if b, _ := strconv.ParseBool(table.rows[i][table.col(t, "drawn")]); b {
				drawn++
			}
		}
		if drawn != l.NumDrawn {
			t.Errorf("%v: %d nodes drawn in the table, %d in the layout", c.args, drawn, l.NumDrawn)
		}
		w := int(c.opt.Width)
		checkSize(t, readPNG(t, filepath.Join(dir, "k.png")), w+230, w+44)
	}
}

// same tells whether a and b are the same number, NaN included.
func same(a, b float64) bool {
	return a == b || (math.IsNaN(a) && math.IsNaN(b))
}

// The default table is Parquet, read back whole: the root's parent is its
// one null.
func TestKaleidoCommandParquet(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, "kaleido", "--out", dir, bundledTrace)
	tbl := readParquet(t, filepath.Join(dir, "kaleido.parquet"))
	parent := tbl.Column(tbl.Schema().FieldIndices("parent")[0])
	if tbl.NumRows() != 10273 || parent.NullN() != 1 {
		t.Errorf("%d rows, %d null parents; want 10273 nodes (the states and the root), 1", tbl.NumRows(), parent.NullN())
	}
	readPNG(t, filepath.Join(dir, "kaleido.png"))
}

func TestKaleidoCommandErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.trace")
	mustWrite(t, bad, "%EventDef PajeSetState 1\n% Time date\n% Container string\n% Type string\n% Value string\n%EndEventDef\n1 0.5 nowhere S run\n")
	checkRefusals(t, []refusal{
		{[]string{"kaleido"}, 2, "usage: macroscope kaleido [flags] trace"},
		{[]string{"kaleido", "--view", "colour", bundledTrace}, 2, `invalid --view: "colour"`},
		{[]string{"kaleido", "--subtree", "99999", "--out", dir, bundledTrace}, 2, "invalid --subtree: no node 99999"},
		{[]string{"kaleido", "--min-sector", "0", bundledTrace}, 2, "invalid --spacing"},
		{[]string{"kaleido", "-o", "k.jpg", bundledTrace}, 2, `invalid --figure: "k.jpg"`},
		{[]string{"kaleido", "--height", "100", bundledTrace}, 2, "unknown flag --height"},
		{[]string{"kaleido", "--state-types", "Nothing", "--out", dir, bundledTrace}, 2, "Nothing"},
		{[]string{"kaleido", "--out", dir, bad}, 1, "macroscope kaleido: " + bad + ":7: Unknown container 'nowhere'"},
		{[]string{"kaleido", filepath.Join(dir, "missing.trace")}, 1, "missing.trace"},
	})
}
