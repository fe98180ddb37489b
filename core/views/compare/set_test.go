package compare

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
)

// span is a state on a resource: [from, to) seconds.
type span struct {
	resource string // "host/rank"
	state    string
	from, to float64
}

// tiny builds a trace of hosts holding ranks with the given states, over
// [0, end] seconds.
func tiny(end float64, spans ...span) *trace.Trace {
	t := trace.New()
	t.DefineType(trace.Type{Name: "Host", Kind: trace.KindContainer, Parent: trace.None, Start: trace.None, End: trace.None})
	t.DefineType(trace.Type{Name: "Rank", Kind: trace.KindContainer, Parent: 0, Start: trace.None, End: trace.None})
	t.DefineType(trace.Type{Name: "State", Kind: trace.KindState, Parent: 1, Start: trace.None, End: trace.None})
	containers := map[string]int32{}
	values := map[string]int32{}
	for _, s := range spans {
		host, rank := s.resource[:indexOf(s.resource, '/')], s.resource[indexOf(s.resource, '/')+1:]
		if _, ok := containers[host]; !ok {
			t.CreateContainer(trace.Container{Name: host, Type: 0, Parent: 0})
			containers[host] = int32(len(t.Containers) - 1)
		}
		if _, ok := containers[s.resource]; !ok {
			t.CreateContainer(trace.Container{Name: rank, Type: 1, Parent: containers[host]})
			containers[s.resource] = int32(len(t.Containers) - 1)
		}
		if _, ok := values[s.state]; !ok {
			t.DefineValue(trace.Value{Type: 2, Name: s.state})
			values[s.state] = int32(len(t.Values) - 1)
		}
	}
	count := map[int32]int32{}
	for _, s := range spans {
		c := containers[s.resource]
		if s.state == "" {
			continue
		}
		t.State(trace.State{Container: c, Type: 2, Value: values[s.state], Start: sec(s.from), End: sec(s.to), Order: count[c]})
		count[c]++
	}
	t.Finish(0, sec(end))
	return t
}

func indexOf(s string, c byte) int {
	for i := range s {
		if s[i] == c {
			return i
		}
	}
	return -1
}

func sec(s float64) trace.Time { return trace.Time(math.Round(s * 1e9)) }

func cellOf(set *Set, r int, path string, t int) map[string]float64 {
	for l, n := range set.Resources.Leaves {
		if set.Resources.Path(n, "/") == path {
			out := map[string]float64{}
			for x, v := range set.Cell(r, l, t) {
				if v != 0 {
					out[set.States[x]] = v
				}
			}
			return out
		}
	}
	return nil
}

func sameCell(got, want map[string]float64) bool {
	if len(got) != len(want) {
		return false
	}
	for k, v := range want {
		if math.Abs(got[k]-v) > 1e-12 {
			return false
		}
	}
	return true
}

// TestUnionAndAbsent: resources matched by path, a resource missing from
// a run Absent in all its cells (1 bit apart from a run that has it),
// time in no state Idle.
func TestUnionAndAbsent(t *testing.T) {
	a := tiny(2, span{"h/r0", "Compute", 0, 2}, span{"h/r1", "Compute", 0, 1})
	b := tiny(2, span{"h/r0", "Compute", 0, 1}, span{"h/r2", "Wait", 0, 2})
	set, err := Build([]Input{{Name: "A", Trace: a}, {Name: "B", Trace: b}}, Options{Slices: 2}, trace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, n := range set.Resources.Leaves {
		paths = append(paths, set.Resources.Path(n, "/"))
	}
	if len(paths) != 3 || paths[0] != "h/r0" || paths[1] != "h/r1" || paths[2] != "h/r2" {
		t.Fatalf("union %v", paths)
	}
	if set.Runs[0].Missing != 1 || set.Runs[1].Missing != 1 || set.Present[1][1] || !set.Present[1][2] {
		t.Errorf("missing %d %d, present %v", set.Runs[0].Missing, set.Runs[1].Missing, set.Present)
	}
	checks := []struct {
		run   int
		path  string
		slice int
		want  map[string]float64
	}{
		{0, "h/r1", 0, map[string]float64{"Compute": 1}},
		{0, "h/r1", 1, map[string]float64{Idle: 1}},
		{1, "h/r1", 0, map[string]float64{Absent: 1}},
		{0, "h/r2", 1, map[string]float64{Absent: 1}},
		{1, "h/r0", 1, map[string]float64{Idle: 1}},
	}
	for _, c := range checks {
		if got := cellOf(set, c.run, c.path, c.slice); !sameCell(got, c.want) {
			t.Errorf("run %d %s slice %d: %v, want %v", c.run, c.path, c.slice, got, c.want)
		}
	}
	rows, _ := set.NodeRows(nil)
	tab, err := set.Differences(rows, TableOptions{Test: TestOptions{Permutations: -1}})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range tab.Rows {
		if path := set.Resources.Path(d.Node, "/"); path == "h/r1" || path == "h/r2" {
			if !near(d.Divergence, 1, 1e-12) || d.RunsPresent != 1 {
				t.Errorf("%s: divergence %v, runs present %d, want 1 bit and 1 run", path, d.Divergence, d.RunsPresent)
			}
		}
	}
}

// TestStartAlignment: runs of 4 s and 2 s from their own starts, over
// the longest: the shorter is Absent after its end.
func TestStartAlignment(t *testing.T) {
	a := tiny(14, span{"h/r0", "Compute", 10, 14})
	b := tiny(5, span{"h/r0", "Compute", 3, 4}, span{"h/r0", "Wait", 4, 5})
	// a spans 10..14 (its first instant is 0: Finish(0, 14)); make the
	// extents explicit by the states: the trace starts where Finish says.
	a.Start, b.Start = 10*trace.Second, 3*trace.Second
	set, err := Build([]Input{{Name: "A", Trace: a}, {Name: "B", Trace: b}}, Options{Slices: 4, Align: Align{Method: Start}}, trace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if set.Start != 0 || set.End != 4*trace.Second {
		t.Fatalf("axis %v..%v, want 0..4 s", set.Start, set.End)
	}
	want := []map[string]float64{{"Compute": 1}, {"Wait": 1}, {Absent: 1}, {Absent: 1}}
	for k, w := range want {
		if got := cellOf(set, 1, "h/r0", k); !sameCell(got, w) {
			t.Errorf("slice %d: %v, want %v", k, got, w)
		}
	}
	if set.Runs[1].SliceSeconds[0] != 1 || set.Runs[0].Duration() != 4 {
		t.Errorf("slice seconds %v, duration %v", set.Runs[1].SliceSeconds, set.Runs[0].Duration())
	}
	// Length "min": the longer run is cut at 2 s.
	set, err = Build([]Input{{Name: "A", Trace: a}, {Name: "B", Trace: b}}, Options{Slices: 2, Align: Align{Method: Start, Length: Length{Rule: "min"}}}, trace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if set.End != 2*trace.Second || set.AbsentState() >= 0 {
		t.Errorf("min length: axis end %v, absent %d", set.End, set.AbsentState())
	}
	// Stretch: slice k of both is the same fraction of each run.
	set, err = Build([]Input{{Name: "A", Trace: a}, {Name: "B", Trace: b}}, Options{Slices: 2}, trace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := cellOf(set, 1, "h/r0", 1); !sameCell(got, map[string]float64{"Wait": 1}) {
		t.Errorf("stretch: B's second half %v", got)
	}
	if set.Runs[0].SliceSeconds[0] != 2 || set.Runs[1].SliceSeconds[0] != 1 {
		t.Errorf("stretch: slice seconds %v %v", set.Runs[0].SliceSeconds, set.Runs[1].SliceSeconds)
	}
}

// TestAbsoluteAlignment: ranks of one clock, over the earliest start to
// the latest end.
func TestAbsoluteAlignment(t *testing.T) {
	a := tiny(4, span{"h/r0", "Compute", 0, 4})
	b := tiny(4, span{"h/r0", "Compute", 2, 4})
	b.Start = 2 * trace.Second
	set, err := Build([]Input{{Name: "A", Trace: a}, {Name: "B", Trace: b}}, Options{Slices: 4, Align: Align{Method: Absolute}}, trace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for k, w := range []map[string]float64{{Absent: 1}, {Absent: 1}, {"Compute": 1}, {"Compute": 1}} {
		if got := cellOf(set, 1, "h/r0", k); !sameCell(got, w) {
			t.Errorf("slice %d: %v, want %v", k, got, w)
		}
	}
}

// asSteps gives the values named in steps the role of steps of the
// program's main loop and their number, as a reader does.
func asSteps(tr *trace.Trace, steps map[string]int32) *trace.Trace {
	for i := range tr.Values {
		if n, ok := steps[tr.Values[i].Name]; ok {
			tr.Values[i].Role, tr.Values[i].Step = trace.RoleStep, n
		}
	}
	return tr
}

// TestMarkerAlignment: two runs of two iterations (steps #1, #2) of
// different lengths, warped segment by segment: the reference's segments
// (1 s and 2 s) get 1 and 2 of 3 slices; within a segment the warp is
// linear. The markers are the steps as the reader marks them (role and
// number, not the names: B's are named otherwise), or, named, the states
// of that name.
func TestMarkerAlignment(t *testing.T) {
	a := tiny(3,
		span{"p/main", "ProfilerStep#1", 0, 1}, span{"p/main", "ProfilerStep#2", 1, 3},
		span{"p/gpu", "kernel", 0, 0.5}, span{"p/gpu", "kernel", 1, 2})
	b := tiny(4,
		span{"p/main", "ProfilerStep#0", 0, 0.5}, span{"p/main", "ProfilerStep#1", 0.5, 2.5}, span{"p/main", "ProfilerStep#2", 2.5, 4},
		span{"p/gpu", "kernel", 0.5, 1.5}, span{"p/gpu", "kernel", 2.5, 4})
	// By name, the steps not marked.
	named := Options{Slices: 3, Align: Align{Method: Markers, Markers: MarkerSpec{Name: "ProfilerStep*"}}}
	set, err := Build([]Input{{Name: "A", Trace: a}, {Name: "B", Trace: b}}, named, trace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkMarkerAlignment(t, set)
	// By default, the steps: none marked, none found, and the message
	// says how to name them.
	if _, err := Build([]Input{{Name: "A", Trace: a}, {Name: "B", Trace: b}}, Options{Slices: 3, Align: Align{Method: Markers}}, trace.ReadOptions{}); err == nil ||
		!strings.Contains(err.Error(), `run "A" has no step`) || !strings.Contains(err.Error(), `(markers="iteration*")`) {
		t.Errorf("no steps: %v", err)
	}
	asSteps(a, map[string]int32{"ProfilerStep#1": 1, "ProfilerStep#2": 2})
	// B's steps 0, 1, 2 under other names: their numbers match them.
	asSteps(b, map[string]int32{"ProfilerStep#0": 0, "ProfilerStep#1": 1, "ProfilerStep#2": 2})
	for i, name := range []string{"warm-up", "train", "train again"} {
		b.Values[i].Name = name
	}
	set, err = Build([]Input{{Name: "A", Trace: a}, {Name: "B", Trace: b}}, Options{Slices: 3, Align: Align{Method: Markers}}, trace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkMarkerAlignment(t, set)
	// Markers matched by ordinal: B's first three.
	set, err = Build([]Input{{Name: "A", Trace: a}, {Name: "B", Trace: b}}, Options{Slices: 3, Align: Align{Method: Markers, Markers: MarkerSpec{By: "ordinal"}}}, trace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if set.Runs[1].DroppedMarkers != 1 || set.Runs[1].Markers[0] != 0 {
		t.Errorf("ordinal: dropped %d boundaries %v", set.Runs[1].DroppedMarkers, set.Runs[1].Markers)
	}
	if _, err := Build([]Input{{Name: "A", Trace: a}, {Name: "B", Trace: b}}, Options{Slices: 3, Align: Align{Method: Markers, Markers: MarkerSpec{Name: "Nope*"}}}, trace.ReadOptions{}); err == nil {
		t.Error("markers that no run has: no error")
	}
}

// checkMarkerAlignment checks TestMarkerAlignment's comparison.
func checkMarkerAlignment(t *testing.T, set *Set) {
	t.Helper()
	if set.Runs[1].DroppedMarkers != 1 || len(set.Runs[1].Markers) != 3 || set.Runs[1].MarkerResource != "p/main" {
		t.Fatalf("B: dropped %d, boundaries %v, on %q", set.Runs[1].DroppedMarkers, set.Runs[1].Markers, set.Runs[1].MarkerResource)
	}
	// B's segments: [0.5, 2.5) -> slice 0, [2.5, 4) -> slices 1-2.
	for k, w := range []map[string]float64{{"kernel": 0.5, Idle: 0.5}, {"kernel": 1}, {"kernel": 1}} {
		if got := cellOf(set, 1, "p/gpu", k); !sameCell(got, w) {
			t.Errorf("B gpu slice %d: %v, want %v", k, got, w)
		}
	}
	for k, w := range []map[string]float64{{"kernel": 0.5, Idle: 0.5}, {"kernel": 1}, {Idle: 1}} {
		if got := cellOf(set, 0, "p/gpu", k); !sameCell(got, w) {
			t.Errorf("A gpu slice %d: %v, want %v", k, got, w)
		}
	}
	if s := set.Runs[1].SliceSeconds; !near(s[0], 2, 1e-9) || !near(s[1], 0.75, 1e-9) {
		t.Errorf("B slice seconds %v, want 2, 0.75, 0.75", s)
	}
}

// randomSet builds a comparison of runs with random states on a small
// hierarchy, through traces.
func randomSet(t *testing.T, runs, slices int, placement Placement, seed uint64) *Set {
	rng := rand.New(rand.NewPCG(seed, 9))
	var inputs []Input
	for r := 0; r < runs; r++ {
		var spans []span
		for _, res := range []string{"a/x", "a/y", "b/z", "b/w"} {
			at := 0.0
			for at < 10 {
				d := 0.2 + rng.Float64()
				spans = append(spans, span{res, []string{"s1", "s2", "s3"}[rng.IntN(3)], at, math.Min(10, at+d)})
				at += d + 0.3*rng.Float64()
			}
		}
		inputs = append(inputs, Input{Trace: tiny(10, spans...), Label: []string{"g0", "g1"}[r%2]})
	}
	set, err := Build(inputs, Options{Slices: slices, Placement: placement}, trace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// TestDifferencesBruteForce recomputes every column of the table from
// the cells, by definition.
func TestDifferencesBruteForce(t *testing.T) {
	set := randomSet(t, 4, 6, UnderResource, 1)
	R, X := set.NumRuns(), len(set.States)
	var rows []Row
	for n := int32(0); n < int32(set.Resources.Len()); n++ {
		rows = append(rows, Row{Node: n, First: 1, Last: 4})
	}
	tab, err := set.Differences(rows, TableOptions{Test: TestOptions{Permutations: -1}})
	if err != nil {
		t.Fatal(err)
	}
	if !tab.Grouped || len(tab.Groups) != 2 {
		t.Fatalf("groups %v", tab.Groups)
	}
	sumOver := func(n int32, r int, first, last int32) []float64 {
		out := make([]float64, X)
		for l := set.Resources.LeafLo[n]; l < set.Resources.LeafHi[n]; l++ {
			for k := first; k <= last; k++ {
				for x, v := range set.Cell(r, int(l), int(k)) {
					out[x] += v
				}
			}
		}
		return out
	}
	for _, d := range tab.Rows {
		sums := make([][]float64, R)
		pooled := make([]float64, X)
		M := 0.0
		for r := range sums {
			sums[r] = sumOver(d.Node, r, d.First, d.Last)
			for x, v := range sums[r] {
				pooled[x] += v
				M += v
			}
		}
		js := Entropy(pooled)
		for r := range sums {
			m := 0.0
			for _, v := range sums[r] {
				m += v
			}
			js -= m / M * Entropy(sums[r])
			for x := range sums[r] {
				if !near(d.Props[r][x], sums[r][x]/m, 1e-12) {
					t.Fatalf("node %d run %d state %d: prop %v, want %v", d.Node, r, x, d.Props[r][x], sums[r][x]/m)
				}
			}
		}
		cells := float64(set.Resources.NumLeaves(d.Node) * 4)
		if !near(d.Divergence, js, 1e-12) || !near(d.Mass, M, 1e-9) || !near(M, cells*float64(R), 1e-9) || !near(d.Score, M*js, 1e-9) {
			t.Errorf("node %d: JS %v mass %v score %v, want %v %v %v", d.Node, d.Divergence, d.Mass, d.Score, js, M, M*js)
		}
		// Chain rule: JS = between + within.
		if !near(d.Divergence, d.Between+d.Within, 1e-12) {
			t.Errorf("node %d: JS %v != between %v + within %v", d.Node, d.Divergence, d.Between, d.Within)
		}
		// The cell divergence, by definition over (leaf, slice, state).
		var flat [][]float64
		for r := 0; r < R; r++ {
			var f []float64
			for l := set.Resources.LeafLo[d.Node]; l < set.Resources.LeafHi[d.Node]; l++ {
				for k := d.First; k <= d.Last; k++ {
					f = append(f, set.Cell(r, int(l), int(k))...)
				}
			}
			flat = append(flat, f)
		}
		if want := CellDivergence(flat, X); !near(d.CellDivergence, want, 1e-12) || d.CellDivergence < d.Divergence-1e-12 {
			t.Errorf("node %d: cell divergence %v, want %v (>= %v)", d.Node, d.CellDivergence, want, d.Divergence)
		}
		// Outlier: groups g0 (runs 0, 2: the reference's) and g1 (1, 3).
		if d.Node == 0 {
			if !math.IsNaN(d.Outlier) {
				t.Errorf("root outlier %v, want NaN", d.Outlier)
			}
			continue
		}
		par := set.Resources.Parent[d.Node] // the nearest ancestor with more resources
		for set.Resources.NumLeaves(par) == set.Resources.NumLeaves(d.Node) {
			par = set.Resources.Parent[par]
		}
		g := [2][]float64{make([]float64, X), make([]float64, X)}
		gp := [2][]float64{make([]float64, X), make([]float64, X)}
		for r := 0; r < R; r++ {
			for x, v := range sums[r] {
				g[r%2][x] += v
			}
			for x, v := range sumOver(par, r, d.First, d.Last) {
				gp[r%2][x] += v
			}
		}
		// Had F changed as its siblings (parent - F) did, group 1 would be
		// F_0 x S_1 / S_0 (the siblings' sums with half a cell spread over
		// the states; every state here is in F_0).
		X2 := float64(X)
		q := make([]float64, X)
		for x := range q {
			if g[0][x] <= 0 {
				t.Fatalf("node %d: state %d absent from group 0: the test needs another draw", d.Node, x)
			}
			q[x] = g[0][x] * (gp[1][x] - g[1][x] + 0.5/X2) / (gp[0][x] - g[0][x] + 0.5/X2)
		}
		dkl := KL(g[1], q)
		if !near(d.Outlier, dkl, 1e-12) || !near(d.OutlierScore, 2*cells*dkl, 1e-9) || d.OutlierRun != 1 {
			t.Errorf("node %d: outlier %v score %v (group %d), want %v %v", d.Node, d.Outlier, d.OutlierScore, d.OutlierRun, dkl, 2*cells*dkl)
		}
	}
}

// TestPartitionRows checks the rows of partitions, with the run under
// each resource and at the top, against their definition: they tile the
// model, and each row lies within one part of every run, the deepest
// node among them.
func TestPartitionRows(t *testing.T) {
	for _, placement := range []Placement{UnderResource, AtTop} {
		set := randomSet(t, 3, 8, placement, 2)
		e, err := aggregate.New(aggregate.KindSpatiotemporal, set.Input(), aggregate.Options{Normalize: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []float64{0.1, 0.3, 0.45, 0.5, 0.6} {
			part, err := e.Solve(p)
			if err != nil {
				t.Fatal(err)
			}
			rows := set.PartitionRows(part)
			R, L := set.NumRuns(), len(set.Resources.Leaves)
			covered := make([]int, L*set.Slices)
			// owner[(r, leaf, t)]: the part of run r there.
			owner := make([]int, R*L*set.Slices)
			for i, pt := range part.Parts {
				n := set.NodeResource[pt.Node]
				for l := set.Resources.LeafLo[n]; l < set.Resources.LeafHi[n]; l++ {
					for k := pt.First; k <= pt.Last; k++ {
						for r := 0; r < R; r++ {
							if run := set.NodeRun[pt.Node]; run < 0 || int(run) == r {
								owner[(r*L+int(l))*set.Slices+int(k)] = i
							}
						}
					}
				}
			}
			for _, row := range rows {
				for l := set.Resources.LeafLo[row.Node]; l < set.Resources.LeafHi[row.Node]; l++ {
					for k := row.First; k <= row.Last; k++ {
						covered[int(l)*set.Slices+int(k)]++
						for r := 0; r < R; r++ {
							a := owner[(r*L+int(set.Resources.LeafLo[row.Node]))*set.Slices+int(row.First)]
							if owner[(r*L+int(l))*set.Slices+int(k)] != a {
								t.Fatalf("%s p %v: row %+v spans two parts of run %d", placement, p, row, r)
							}
						}
					}
				}
			}
			for i, c := range covered {
				if c != 1 {
					t.Fatalf("%s p %v: cell %d covered %d times", placement, p, i, c)
				}
			}
			merged := NodesOf(rows)
			cells := 0
			for _, row := range merged {
				cells += set.Resources.NumLeaves(row.Node) * int(row.Last-row.First+1)
			}
			if cells != L*set.Slices {
				t.Errorf("%s p %v: merged rows cover %d cells of %d", placement, p, cells, L*set.Slices)
			}
		}
	}
}

// TestModelsGiven: runs given as models already built (stretch).
func TestModelsGiven(t *testing.T) {
	a := tiny(2, span{"h/r0", "Compute", 0, 2})
	b := tiny(4, span{"h/r0", "Compute", 0, 1})
	ma, _ := micro.Build(a, micro.Options{Slices: 2})
	mb, _ := micro.Build(b, micro.Options{Slices: 2})
	set, err := Build([]Input{{Model: ma}, {Model: mb}}, Options{Slices: 2}, trace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if set.Runs[1].Name != "run 1" || !sameCell(cellOf(set, 1, "h/r0", 0), map[string]float64{"Compute": 0.5, Idle: 0.5}) {
		t.Errorf("name %q cell %v", set.Runs[1].Name, cellOf(set, 1, "h/r0", 0))
	}
	if _, err := Build([]Input{{Model: ma}, {Model: mb}}, Options{Slices: 3}, trace.ReadOptions{}); err == nil {
		t.Error("models of 2 slices compared on 3: no error")
	}
	if _, err := Build([]Input{{Model: ma}}, Options{}, trace.ReadOptions{}); err == nil {
		t.Error("one run: no error")
	}
}

// TestSummarize: a run against a reference, from their models.
func TestSummarize(t *testing.T) {
	a := tiny(4, span{"h/r0", "Compute", 0, 4}, span{"h/r1", "Compute", 0, 2})
	b := tiny(8, span{"h/r0", "Compute", 0, 4}, span{"h/r1", "Compute", 0, 8})
	ma, _ := micro.Build(a, micro.Options{Slices: 4})
	mb, _ := micro.Build(b, micro.Options{Slices: 4})
	row, err := Summarize(Input{Name: "b", Model: mb, Meta: map[string]string{"nodes": "2"}}, ma, SeriesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if row.Duration != 8 || row.Resources != 2 || row.Missing != 0 || row.Meta["nodes"] != "2" {
		t.Errorf("%+v", row)
	}
	secs := map[string]float64{}
	for x, s := range row.States {
		secs[s] = row.Seconds[x]
	}
	// b: r0 computes 4 of 8 s, r1 8 of 8: 12 s of compute, 4 s idle.
	if secs["Compute"] != 12 || secs[Idle] != 4 {
		t.Errorf("seconds %v", secs)
	}
	// Whole-window state distributions: a 3/4 compute (r0 1, r1 1/2), b 3/4 too.
	if !near(row.Divergence, 0, 1e-12) || row.CellDivergence <= 0 || row.OutlierNode == "" {
		t.Errorf("divergence %v, cell divergence %v, outlier %q", row.Divergence, row.CellDivergence, row.OutlierNode)
	}
	// Slices 0-1 alike; in slices 2-3 (4 to 8 s of b) a's r0 computes and
	// r1 idles, b's the reverse: disjoint cells, 1 bit. b departs at 4 s.
	if row.PeakFrom != 4 || row.PeakTo != 6 || !near(row.PeakDivergence, 1, 1e-12) || row.DepartsFrom != 4 {
		t.Errorf("departs from %v, peak [%v, %v] of %v bits", row.DepartsFrom, row.PeakFrom, row.PeakTo, row.PeakDivergence)
	}
	same, err := Summarize(Input{Name: "a", Model: ma}, ma, SeriesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(same.DepartsFrom) || !math.IsNaN(same.PeakFrom) || same.PeakDivergence != 0 || same.OutlierNode != "" {
		t.Errorf("a against itself departs from %v, peak at %v of %v bits, outlier %q", same.DepartsFrom, same.PeakFrom,
			same.PeakDivergence, same.OutlierNode)
	}
}

// TestIdenticalRuns: a run against itself differs nowhere: every row's
// divergence, score and outlier score are 0 and nothing is reported.
func TestIdenticalRuns(t *testing.T) {
	tr := tiny(10, span{"a/x", "s1", 0, 3}, span{"a/x", "s2", 4, 9}, span{"a/y", "s1", 1, 8}, span{"b/z", "s3", 0, 10})
	set, err := Build([]Input{{Name: "a", Trace: tr}, {Name: "b", Trace: tr}}, Options{Slices: 5}, trace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := set.NodeRows(EqualPhases(5, 2))
	tab, err := set.Differences(rows, TableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range tab.Rows {
		if d.Divergence != 0 || d.Score != 0 || d.CellDivergence != 0 || (!math.IsNaN(d.OutlierScore) && d.OutlierScore != 0) || d.Test.Reported {
			t.Errorf("node %d slices %d-%d: divergence %v score %v outlier %v reported %v", d.Node, d.First, d.Last, d.Divergence, d.Score, d.OutlierScore, d.Test.Reported)
		}
	}
}

// TestOrigin: the models a comparison draws read their times from the
// start of what they show: the reference run's first instant when the
// axis is its window (Stretch, Markers), 0 when the axis already counts
// from each run's start (Start), the earliest run's first instant when
// every run keeps its clock (Absolute).
func TestOrigin(t *testing.T) {
	a := tiny(14, span{"h/r0", "Compute", 10, 14})
	b := tiny(5, span{"h/r0", "Compute", 3, 4}, span{"h/r0", "Wait", 4, 5})
	a.Start, b.Start = 10*trace.Second, 3*trace.Second
	for _, tc := range []struct {
		method    Method
		reference int
		want      trace.Time
	}{
		{Stretch, 0, 10 * trace.Second},
		{Stretch, 1, 3 * trace.Second},
		{Start, 0, 0},
		{Absolute, 0, 3 * trace.Second},
	} {
		set, err := Build([]Input{{Name: "A", Trace: a}, {Name: "B", Trace: b}}, Options{Slices: 2, Reference: tc.reference, Align: Align{Method: tc.method}}, trace.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := set.Model().Origin; got != tc.want {
			t.Errorf("%s, reference %d: the model's origin %v, want %v", tc.method, tc.reference, got, tc.want)
		}
		for r := range set.Runs {
			if got := set.RunModel(r).Origin; got != tc.want {
				t.Errorf("%s, reference %d: run %d's model's origin %v, want %v", tc.method, tc.reference, r, got, tc.want)
			}
		}
	}
}

// A run with no states to model is the data's failure, named by the run
// and by its file, as a model of that trace alone names it.
func TestRunWithoutStatesNamesItsFile(t *testing.T) {
	a := tiny(2, span{"h/r0", "Compute", 0, 2})
	b := trace.New()
	b.DefineType(trace.Type{Name: "Host", Kind: trace.KindContainer, Parent: trace.None, Start: trace.None, End: trace.None})
	b.CreateContainer(trace.Container{Name: "h", Type: 0, Parent: 0})
	b.Finish(0, sec(2))
	b.Files = []string{"/traces/b.csv"}
	_, err := Build([]Input{{Name: "A", Trace: a}, {Name: "B", Trace: b}}, Options{Slices: 2}, trace.ReadOptions{})
	var ee *errs.EmptyError
	if !errors.As(err, &ee) || ee.File != "/traces/b.csv" ||
		err.Error() != `run "B": /traces/b.csv: the trace has no states to model` {
		t.Errorf("%v", err)
	}
}
