package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"

	"github.com/macroscope-hpc/macroscope/core/views/moments"
)

// The CSV table and the printed table hold what core/views/moments computes from
// the trace read into memory, for every hierarchy node.
func TestMomentsCommand(t *testing.T) {
	dir := t.TempDir()
	out := mustRun(t, "moments", "--busy", "Compute", "--by", "node", "--out", dir, "--table", "nodes.csv", "-o", "nodes.png", "--width", "640", bundledTrace)
	tr, err := formats.ReadFile(bundledTrace, "paje")
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
	args := []string{"moments", "-q", "--start", "2", "--end", "3.5", "--idle", "Compute", "--figure", ""}
	dir := t.TempDir()
	byState, byResource := filepath.Join(dir, "s.csv"), filepath.Join(dir, "r.csv")
	for _, c := range [][]string{{"--by", "state", "--table", byState}, {"--table", byResource}} {
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
		{[]string{"moments", "--by", "rank", bundledTrace}, 2, `invalid --by: "rank"`},
		{[]string{"moments", "--busy", "Compute", "--idle", "PMPI_Recv", bundledTrace}, 2, "invalid --busy"},
		{[]string{"moments", "--busy", "Comput", bundledTrace}, 2, `invalid --busy: no selected state type has a value named "Comput"`},
		{[]string{"moments", "--busy=", bundledTrace}, 2, "invalid --busy"},
		{[]string{"moments", "--nesting", "outer", bundledTrace}, 2, "invalid --nesting"},
		{[]string{"moments", "--start", "x", bundledTrace}, 2, "invalid --start"},
		{[]string{"moments", "--start", "5", "--end", "4", bundledTrace}, 2, "invalid --start/--end"},
		{[]string{"moments", "-o", "fig.gif", bundledTrace}, 2, `invalid --figure: "fig.gif"`},
		{[]string{"moments", "--table", "t.xlsx", bundledTrace}, 2, `invalid --table: "t.xlsx"`},
		{[]string{"moments", "--format", "nope", bundledTrace}, 2, "invalid --format"},
		{[]string{"moments", "missing.trace"}, 1, "macroscope moments: stat missing.trace"},
	})
}

// The reader options of -read reach the reader: a Pajé trace not sorted
// by time is refused as it is and read with sort=true, with the moments of
// the same trace sorted by hand; what the reader skips is reported.
func TestMomentsCommandReaderOptions(t *testing.T) {
	const header = `%EventDef PajeDefineContainerType 0
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajeDefineStateType 1
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajeCreateContainer 2
% Time date
% Alias string
% Type string
% Container string
% Name string
%EndEventDef
%EventDef PajeSetState 3
% Time date
% Type string
% Container string
% Value string
%EndEventDef
0 P 0 P
1 S P S
2 0 p1 P 0 p1
`
	dir := t.TempDir()
	sorted, unsorted := filepath.Join(dir, "sorted.trace"), filepath.Join(dir, "unsorted.trace")
	for path, events := range map[string]string{
		sorted:   "3 1 S p1 a\n3 3 S p1 b\n3 6 S p1 a\n3 10 S p1 b\n",
		unsorted: "3 1 S p1 a\n3 6 S p1 a\n3 3 S p1 b\n3 10 S p1 b\n",
	} {
		if err := os.WriteFile(path, []byte(header+events), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	checkRefusals(t, []refusal{
		{[]string{"moments", "-q", "--out", dir, unsorted}, 1, "read it anyway with sort=True (Python) or --read sort=true"},
		{[]string{"moments", "-q", "--out", dir, "--read", "sort=yes please", unsorted}, 2, "invalid --read sort"},
	})
	want := filepath.Join(dir, "want.csv")
	mustRun(t, "moments", "-q", "--out", dir, "--table", want, sorted)
	got := filepath.Join(dir, "got.csv")
	mustRun(t, "moments", "-q", "--out", dir, "--read", "sort=true", "--table", got, unsorted)
	w, g := readCSV(t, want), readCSV(t, got)
	if len(g.rows) != 1 || !slices.Equal(g.rows[0], w.rows[0]) {
		t.Errorf("sorted on reading: %v; sorted by hand: %v", g.rows, w.rows)
	}
	if b := int64(g.float(t, 0, "busy_ns")); b != 9e9 {
		t.Errorf("busy %d ns, want 9 s (states from 1 s to 10 s)", b)
	}

	chrome := filepath.Join(dir, "t.json")
	if err := os.WriteFile(chrome, []byte(`[{"ph":"X","pid":1,"tid":1,"ts":0,"dur":5,"name":"a"},{}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := mustRun(t, "moments", "-q", "--out", dir, chrome); !strings.Contains(out, "warning    skipped 1 entries without ph") {
		t.Errorf("the reader's notes are not reported:\n%s", out)
	}
}
