package cli

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"

	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
)

// TestOverviewOfAnOTF2Archive runs the overview on a trace that is not
// Pajé, found by its content and named with --format.
func TestOverviewOfAnOTF2Archive(t *testing.T) {
	archive := filepath.Join(corpus, "tracer-stencil4d/stencil4d-otf/traces-32")
	if _, err := os.Stat(archive); err != nil {
		t.Skip("the shared trace corpus is absent: ", err)
	}
	dir := t.TempDir()
	for _, format := range []string{"", "otf2"} {
		png := filepath.Join(dir, "o"+format+".png")
		args := []string{"overview", "--slices", "20", "-o", png, "--table", "", "--levels", ""}
		if format != "" {
			args = append(args, "--format", format)
		}
		if out := mustRun(t, append(args, archive)...); !strings.Contains(out, "67 containers, 1251 states") {
			t.Errorf("--format %q: output %s", format, out)
		}
		if st, err := os.Stat(png); err != nil || st.Size() == 0 {
			t.Errorf("--format %q: no figure: %v", format, err)
		}
	}
	checkRefusals(t, []refusal{{[]string{"overview", "--format", "xml", archive}, 2, `unknown format "xml"`}})
}

// TestOverviewKinds: for each kind of aggregation, the command finds the
// levels, the recommended p and the partition the aggregation engine finds
// on the same model, writes them exactly, and draws partitions of that
// kind: a spatial partition is constant along every row of the figure, a
// temporal one is not.
func TestOverviewKinds(t *testing.T) {
	src, _, err := formats.Open(bundledTrace, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := micro.FromSource(src, micro.Options{Slices: 20, Depth: micro.Innermost}, trace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	in := aggregate.Input{Tree: m.Tree, Slices: m.Slices, States: len(m.States), Values: m.Values, Cells: m.Cells}
	for _, kind := range []aggregate.Kind{aggregate.KindSpatiotemporal, aggregate.KindSpatial, aggregate.KindTemporal} {
		t.Run(string(kind), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "new", string(kind))
			out := mustRun(t, "overview", "--kind", string(kind), "--slices", "20", "--out", dir, "--table", "a.csv", "--levels", "l.csv", bundledTrace)
			engine, err := aggregate.New(kind, in, aggregate.Options{Normalize: true})
			if err != nil {
				t.Fatal(err)
			}
			levels, err := aggregate.SignificantCompact(engine, 1e-3)
			if err != nil {
				t.Fatal(err)
			}
			rec, p, err := aggregate.Recommend(levels, aggregate.RuleKnee, 1, 1)
			if err != nil {
				t.Fatal(err)
			}
			part, err := engine.Solve(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range []string{
				fmt.Sprintf("levels     %d distinct optimal %spartitions as p goes from 0 to 1; recommended p = %.4g (%d aggregates)",
					len(levels), map[bool]string{true: "", false: string(kind) + " "}[kind == aggregate.KindSpatiotemporal], p, levels[rec].Partition.NumParts),
				fmt.Sprintf("aggregated p = %.4g: %d aggregates, gain %.4g, loss %.4g (normalised)", p, len(part.Parts), part.Gain, part.Loss),
				"wrote      " + filepath.Join(dir, "overview.png"),
			} {
				if !strings.Contains(out, line+"\n") {
					t.Errorf("output does not say %q:\n%s", line, out)
				}
			}

			// Without -levels, the knee alone: the same p and partition.
			quick := mustRun(t, "overview", "-kind", string(kind), "-slices", "20", "-out", dir, "-o", "q.png", "-table", "", bundledTrace)
			for _, line := range []string{
				fmt.Sprintf("levels     recommended p = %.4g (%d aggregates), the knee of the %s levels, optimal for p in [%.4g, %.4g]",
					p, levels[rec].Partition.NumParts, kind, levels[rec].PLow, levels[rec].PHigh),
				fmt.Sprintf("aggregated p = %.4g: %d aggregates, gain %.4g, loss %.4g (normalised)", p, len(part.Parts), part.Gain, part.Loss),
			} {
				if !strings.Contains(quick, line+"\n") {
					t.Errorf("output without -levels does not say %q:\n%s", line, quick)
				}
			}

			lv := readCSV(t, filepath.Join(dir, "l.csv"))
			if len(lv.rows) != len(levels) {
				t.Fatalf("%d levels written, %d found", len(lv.rows), len(levels))
			}
			for i, l := range levels {
				if lv.float(t, i, "p_low") != l.PLow || lv.float(t, i, "p_high") != l.PHigh ||
					lv.rows[i][lv.col(t, "recommended")] != strconv.FormatBool(i == rec) {
					t.Errorf("level %d: %v, want [%v, %v]", i, lv.rows[i], l.PLow, l.PHigh)
				}
			}

			agg := readCSV(t, filepath.Join(dir, "a.csv"))
			if len(agg.rows) != len(part.Parts) {
				t.Fatalf("%d aggregates written, %d found", len(agg.rows), len(part.Parts))
			}
			cuts := map[string][]int{} // first slices of each resource's aggregates
			for i, pt := range part.Parts {
				first, last := int(agg.float(t, i, "first_slice")), int(agg.float(t, i, "last_slice"))
				if first != int(pt.First) || last != int(pt.Last) || agg.float(t, i, "gain") != pt.Gain ||
					int(agg.float(t, i, "leaves")) != m.Tree.NumLeaves(pt.Node) {
					t.Errorf("aggregate %d: %v, want %+v", i, agg.rows[i], pt)
				}
				switch kind {
				case aggregate.KindSpatial:
					if first != 0 || last != m.Slices-1 {
						t.Errorf("spatial aggregate %d covers slices %d-%d, not the window", i, first, last)
					}
				case aggregate.KindTemporal:
					if m.Tree.NumLeaves(pt.Node) != 1 {
						t.Errorf("temporal aggregate %d merges %d resources", i, m.Tree.NumLeaves(pt.Node))
					}
					node := agg.rows[i][0]
					cuts[node] = append(cuts[node], first)
				}
			}
			if kind == aggregate.KindTemporal {
				if len(cuts) != m.NumLeaves() {
					t.Errorf("%d resources have aggregates, the model has %d", len(cuts), m.NumLeaves())
				}
				for node, c := range cuts {
					if !slices.Equal(c, cuts[agg.rows[0][0]]) || len(c) < 2 {
						t.Errorf("%s is cut at %v, %s at %v: the cuts are not shared", node, c, agg.rows[0][0], cuts[agg.rows[0][0]])
					}
				}
			}

			img := readPNG(t, filepath.Join(dir, "overview.png"))
			checkSize(t, img, 960, 576)
			colours := 0
			for y := 100; y < 500; y += 25 {
				colours = max(colours, coloursAlong(img, y, 300, 660))
			}
			if (kind == aggregate.KindSpatial) != (colours == 1) {
				t.Errorf("%s: up to %d colours along a row of the figure", kind, colours)
			}
		})
	}
}

// coloursAlong counts the colours of the pixels of row y from x0 to x1.
func coloursAlong(img image.Image, y, x0, x1 int) int {
	seen := map[color.Color]bool{}
	for x := x0; x < x1; x++ {
		seen[img.At(x, y)] = true
	}
	return len(seen)
}

// TestOverviewAtAGivenP: with -p the sweep is skipped unless -levels asks
// for it; at p = 0 the optimal cut keeps every host (its only rank merged
// with it at no loss).
func TestOverviewAtAGivenP(t *testing.T) {
	dir := t.TempDir()
	out := mustRun(t, "overview", "--kind", "spatial", "--p", "0", "--out", dir, bundledTrace)
	if strings.Contains(out, "levels") || !strings.Contains(out, "aggregated p = 0: 32 aggregates") {
		t.Errorf("output:\n%s", out)
	}
	for name, magic := range map[string]string{"overview.png": "\x89PNG", "aggregates.parquet": "PAR1"} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || !bytes.HasPrefix(b, []byte(magic)) {
			t.Errorf("%s: %v", name, err)
		}
	}
	checkRefusals(t, []refusal{
		{[]string{"overview"}, 2, "usage: macroscope overview [flags] trace"},
		{[]string{"overview", "--kind", "radial", bundledTrace}, 2, `invalid --kind: unknown kind "radial"`},
		{[]string{"overview", "--p", "1.5", bundledTrace}, 2, "invalid --p"},
		{[]string{"overview", "--threshold", "-1", bundledTrace}, 2, "invalid --threshold"},
		{[]string{"overview", "--slices", "0", bundledTrace}, 2, "invalid --slices"},
		{[]string{"overview", "--levels", "l.txt", bundledTrace}, 2, `invalid --levels: "l.txt"`},
		{[]string{"overview", "--out", filepath.Join(dir, "overview.png"), bundledTrace}, 1, "overview.png"},
	})
}

// TestHelp: help is asked for, printed on standard output, exit 0; the
// usage of every command names its exit statuses.
func TestHelp(t *testing.T) {
	for _, c := range commands {
		if c.name == "dump" {
			continue // pj_dump's help
		}
		code, out, errOut := runCLI(c.name, "-h")
		if code != 0 || errOut != "" || !strings.HasPrefix(out, "usage: macroscope "+c.name+" ") ||
			!strings.Contains(out, "Exit status: 0 done, 1 ") {
			t.Errorf("%s -h: exit %d, %q, %q", c.name, code, out, errOut)
		}
	}
	if code, out, _ := runCLI("help"); code != 0 || !strings.Contains(out, "kaleido ") {
		t.Errorf("help: exit %d, %s", code, out)
	}
	checkRefusals(t, []refusal{{[]string{"unfold"}, 2, `unknown command "unfold"`}})
}

// TestOverviewFigureFailsTableNamed: when the figure cannot be written
// but the table, written beside it in the background, was, the command
// fails naming the figure's problem and still names the table it wrote.
func TestOverviewFigureFailsTableNamed(t *testing.T) {
	dir := t.TempDir()
	table := filepath.Join(dir, "aggregates.parquet")
	png := filepath.Join(dir, "overview.png")
	if err := os.Mkdir(png, 0o755); err != nil { // a directory where the figure should go
		t.Fatal(err)
	}
	code, out, errOut := runCLI("overview", "--slices", "10", "-o", png, "--table", table, "--levels", "", bundledTrace)
	if code == 0 || !strings.Contains(errOut, "overview.png") {
		t.Errorf("exit %d, stderr %q: want a failure naming the figure", code, errOut)
	}
	if !strings.Contains(out, "wrote") || !strings.Contains(out, "aggregates.parquet") {
		t.Errorf("the table written is not named: %q", out)
	}
	if st, err := os.Stat(table); err != nil || st.Size() == 0 {
		t.Errorf("no table: %v", err)
	}
}

// TestInBackground checks that the wait of a background job gives its
// error, and raises its panic again on the waiting goroutine.
func TestInBackground(t *testing.T) {
	want := errors.New("disk full")
	if err := inBackground(func() error { return want })(); err != want {
		t.Errorf("error %v, want %v", err, want)
	}
	wait := inBackground(func() error { panic("table") })
	defer func() {
		if p := recover(); p != "table" {
			t.Errorf("panic %v, want the job's", p)
		}
	}()
	wait()
	t.Error("the job's panic was not raised again")
}

// TestOverviewSaysWhenTheMiddleIsNotTheKnee runs the overview on a model
// whose knee's range holds a level narrower than --threshold at its
// middle: the aggregated partition there is not the knee's, and the
// overview says so, with the knee's count, instead of leaving two counts
// that disagree, whether the knee is found alone or from the significant
// levels (--levels); with --threshold 0 the search finds that level.
func TestOverviewSaysWhenTheMiddleIsNotTheKnee(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.trace")
	mustRun(t, "synth", "--sites", "1", "--clusters", "2", "--machines", "10", "--cores", "10", "--events", "20000", path)
	for _, levels := range []string{"", "levels.parquet"} {
		out := mustRun(t, "overview", "--out", dir, "--table", "", "--figure", "", "--levels", levels, path)
		knee, got := recommendedAndAggregated(t, out)
		if got == knee {
			t.Fatalf("--levels %q: the model no longer has a hidden level at the knee's middle (%d aggregates): choose another", levels, got)
		}
		want := fmt.Sprintf("; not the knee's %d: a level narrower than --threshold 0.001 lies inside its range", knee)
		if a := line(t, out, "aggregated"); !strings.HasSuffix(a, want) {
			t.Errorf("--levels %q: %q does not end with %q", levels, a, want)
		}
	}
	exact := mustRun(t, "overview", "--out", dir, "--table", "", "--figure", "", "--threshold", "0", path)
	if a := line(t, exact, "aggregated"); strings.Contains(a, "not the knee's") {
		t.Errorf("with --threshold 0: %q", a)
	}
}

// recommendedAndAggregated returns the numbers of aggregates of the
// recommended level and of the aggregated partition an overview printed.
func recommendedAndAggregated(t *testing.T, out string) (recommended, aggregated int) {
	t.Helper()
	levels, agg := line(t, out, "levels"), line(t, out, "aggregated")
	if _, err := fmt.Sscanf(levels[strings.Index(levels, "("):], "(%d aggregates)", &recommended); err != nil {
		t.Fatalf("%q: %v", levels, err)
	}
	if _, err := fmt.Sscanf(agg[strings.Index(agg, ": ")+2:], "%d aggregates", &aggregated); err != nil {
		t.Fatalf("%q: %v", agg, err)
	}
	return recommended, aggregated
}

// line returns the line of out that starts with the word word.
func line(t *testing.T, out, word string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, word+" ") {
			return l
		}
	}
	t.Fatalf("no %q line in:\n%s", word, out)
	return ""
}

// TestLevelsWrittenOnlyWhenNamed: --p auto finds the recommended level
// without the sweep, so no levels table is written unless --levels names
// one, and the help says so rather than showing a default file that is
// never written.
func TestLevelsWrittenOnlyWhenNamed(t *testing.T) {
	for _, cmd := range []string{"overview", "compare"} {
		_, help, _ := runCLI(cmd, "--help")
		i := strings.Index(help, "  --levels FILE\n")
		if i < 0 {
			t.Fatalf("%s --help has no --levels FILE:\n%s", cmd, help)
		}
		entry := help[i:]
		if j := strings.Index(entry[2:], "\n  -"); j >= 0 {
			entry = entry[:j+2]
		}
		if strings.Contains(entry, "default") || strings.Contains(entry, "levels.parquet") {
			t.Errorf("%s --help: --levels shows a default file, which is written only when named:\n%s", cmd, entry)
		}
	}
	dir := t.TempDir()
	mustRun(t, "overview", "--slices", "10", "--out", dir, bundledTrace)
	if _, err := os.Stat(filepath.Join(dir, "levels.parquet")); !os.IsNotExist(err) {
		t.Errorf("overview without --levels wrote levels.parquet (%v)", err)
	}
	mustRun(t, "overview", "--slices", "10", "--out", dir, "--levels", "l.csv", bundledTrace)
	if st, err := os.Stat(filepath.Join(dir, "l.csv")); err != nil || st.Size() == 0 {
		t.Errorf("overview --levels l.csv wrote no table (%v)", err)
	}
}
