package main

import (
	"bytes"
	"encoding/csv"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/moments"
	"github.com/macroscope-hpc/macroscope/core/paje"
)

const bundledTrace = "../../testdata/jacobi32.trace"

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// The CSV table and the printed table hold what core/moments computes from
// the trace read into memory, for every hierarchy node.
func TestMomentsCommand(t *testing.T) {
	dir := t.TempDir()
	table, figure := filepath.Join(dir, "nodes.csv"), filepath.Join(dir, "nodes.png")
	code, out, errOut := runCLI("moments", "-busy", "Compute", "-by", "node", "-table", table, "-o", figure, "-width", "640", bundledTrace)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
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

	f, err := os.Open(table)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	records, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(records[0], ","); got != "node,resources,m0,m1,m2,m3,busy_ns,P0,P1,P2,P3,origin,origin_ns" {
		t.Errorf("header %s", got)
	}
	if len(records)-1 != len(want) || len(want) != 67 {
		t.Fatalf("%d rows, want %d (the root, 2 zones, 32 hosts, 32 ranks)", len(records)-1, len(want))
	}
	for i, w := range want {
		rec := records[i+1]
		busy, _ := strconv.ParseInt(rec[6], 10, 64)
		m1, _ := strconv.ParseFloat(rec[3], 64)
		if rec[0] != w.Path || busy != int64(w.Sums.Busy()) || m1 != w.Sums.Moments().M1 {
			t.Errorf("row %d: %v, want %s busy %d m1 %v", i, rec[:7], w.Path, w.Sums.Busy(), w.Sums.Moments().M1)
		}
	}

	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.HasPrefix(lines[0], "trace   "+bundledTrace+": 32 resources") {
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

	img, err := os.ReadFile(figure)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(img))
	if err != nil || cfg.Width != 640 {
		t.Errorf("figure: %+v, %v", cfg, err)
	}
}

// Per-state rows of a window: each rank's states add up to its busy time
// over the same window.
func TestMomentsCommandByState(t *testing.T) {
	args := []string{"moments", "-q", "-start", "2", "-end", "3.5", "-idle", "Compute"}
	dir := t.TempDir()
	byState, byResource := filepath.Join(dir, "s.csv"), filepath.Join(dir, "r.csv")
	for _, c := range [][]string{{"-by", "state", "-table", byState}, {"-table", byResource}} {
		if code, _, errOut := runCLI(append(append(append([]string{}, args...), c...), bundledTrace)...); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
	}
	busy := func(path string, key, value int) map[string]int64 {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		records, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if records[0][value] != "busy_ns" {
			t.Fatalf("column %d of %s is %s", value, path, records[0][value])
		}
		sums := map[string]int64{}
		for _, r := range records[1:] {
			v, _ := strconv.ParseInt(r[value], 10, 64)
			sums[r[key]] += v
		}
		return sums
	}
	states, resources := busy(byState, 0, 7), busy(byResource, 0, 5)
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
	for _, tc := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"moments"}, 2, "usage: macroscope moments"},
		{[]string{"moments", "-by", "rank", bundledTrace}, 1, `invalid by: "rank"`},
		{[]string{"moments", "-busy", "Compute", "-idle", "PMPI_Recv", bundledTrace}, 1, "invalid busy"},
		{[]string{"moments", "-busy", "Comput", bundledTrace}, 1, `invalid values: no selected state type has a value named "Comput"`},
		{[]string{"moments", "-busy=", bundledTrace}, 1, "invalid values"},
		{[]string{"moments", "-nesting", "outer", bundledTrace}, 1, "invalid nesting"},
		{[]string{"moments", "-start", "x", bundledTrace}, 1, "invalid start"},
		{[]string{"moments", "-start", "5", "-end", "4", bundledTrace}, 1, "invalid window"},
		{[]string{"moments", "-o", "fig.gif", bundledTrace}, 1, "invalid format"},
		{[]string{"moments", "-format", "nope", bundledTrace}, 1, "invalid format"},
		{[]string{"moments", "missing.trace"}, 1, "missing.trace"},
	} {
		code, _, errOut := runCLI(tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.says) {
			t.Errorf("%v: exit %d, %q; want exit %d saying %q", tc.args, code, errOut, tc.code, tc.says)
		}
	}
}
