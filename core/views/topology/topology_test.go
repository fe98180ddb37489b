package topology

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/forcelayout"
)

// dumpRow is a line of pj_dump's output, split on ", " with the quotes of
// names removed.
type dumpRow []string

func readDump(t *testing.T, rel string) []dumpRow {
	t.Helper()
	f, err := os.Open(corpusFile(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []dumpRow
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ", ")
		for i, s := range fields {
			fields[i] = strings.Trim(s, `"`)
		}
		rows = append(rows, fields)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

func build(t *testing.T, tr *trace.Trace, opt Options) *Topology {
	t.Helper()
	tp, err := Build(tr, opt)
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

func read(t *testing.T, rel string) *trace.Trace {
	t.Helper()
	tr, err := formats.ReadFile(corpusFile(t, rel), "paje")
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// The full platform graph of g5k has the hosts, links and routers pj_dump
// lists, and one edge per pair of containers its topology links join.
func TestG5KAgainstPjdump(t *testing.T) {
	rows := readDump(t, "pajeng/oracles/027_pj_dump_g5k_trace.out")
	kindOf := map[string]string{}
	want := map[string]int{}
	pairs := map[[2]string]int{}
	links := 0
	for _, r := range rows {
		switch r[0] {
		case "Container":
			if _, dup := kindOf[r[6]]; dup {
				t.Fatalf("container name %q twice in the dump: names do not identify containers", r[6])
			}
			kindOf[r[6]] = r[2]
			if r[2] == "HOST" || r[2] == "LINK" || r[2] == "ROUTER" {
				want[r[2]]++
			}
		case "Link":
			a, b := r[7], r[8]
			if a > b {
				a, b = b, a
			}
			if a != b {
				pairs[[2]string{a, b}]++
				links++
			}
		}
	}
	tp := build(t, g5k(t), Options{})
	v := tp.View()
	got := map[string]int{}
	for _, n := range v.Nodes {
		got[n.Kind]++
		if n.Members != 1 || n.Aggregated {
			t.Fatalf("node %s: %d members in the full graph", n.Path, n.Members)
		}
	}
	for kind, n := range want {
		if got[kind] != n {
			t.Errorf("%s: %d nodes, pj_dump lists %d", kind, got[kind], n)
		}
	}
	if len(got) != len(want) {
		t.Errorf("kinds %v, pj_dump has %v", got, want)
	}
	if len(v.Edges) != len(pairs) {
		t.Errorf("%d edges, pj_dump's links join %d pairs", len(v.Edges), len(pairs))
	}
	total := 0
	for _, e := range v.Edges {
		a, b := v.Nodes[e.From].Name, v.Nodes[e.To].Name
		if a > b {
			a, b = b, a
		}
		if pairs[[2]string{a, b}] != e.Count {
			t.Fatalf("edge %s-%s counts %d links, pj_dump has %d", a, b, e.Count, pairs[[2]string{a, b}])
		}
		if want := kindOf[v.Nodes[e.From].Name]; want != v.Nodes[e.From].Kind {
			t.Fatalf("node %s of kind %s, pj_dump says %s", a, v.Nodes[e.From].Kind, want)
		}
		total += e.Count
	}
	if total != links {
		t.Errorf("edges count %d links, pj_dump lists %d", total, links)
	}
	t.Logf("g5k: %v nodes, %d edges from %d links", got, len(v.Edges), links)
}

// integrals integrates pj_dump's Variable rows of one variable over
// [a, b], per container name.
func integrals(rows []dumpRow, variable string, a, b float64) map[string]float64 {
	out := map[string]float64{}
	for _, r := range rows {
		if r[0] != "Variable" || r[2] != variable {
			continue
		}
		start, _ := strconv.ParseFloat(r[3], 64)
		end, _ := strconv.ParseFloat(r[4], 64)
		value, _ := strconv.ParseFloat(r[6], 64)
		if lo, hi := math.Max(start, a), math.Min(end, b); hi > lo {
			out[r[1]] += value * (hi - lo)
		}
	}
	return out
}

// The time integrals over a window agree with an independent integration
// of pj_dump's Variable rows (which print 6 decimals: the tolerance).
func TestIntegralsAgainstPjdump(t *testing.T) {
	cases := []struct {
		trace, dump string
		a, b        float64
		size, fill  map[string]string // kind -> variable
	}{
		{"pajeng/traces/ms.trace", "pajeng/oracles/028_pj_dump_ms_trace.out", 0.5, 3.3,
			map[string]string{"HOST": "power", "LINK": "bandwidth"}, map[string]string{"HOST": "power_used", "LINK": "bandwidth_used"}},
		{"pajeng/traces/g5k.trace", "pajeng/oracles/027_pj_dump_g5k_trace.out", 2.5, 7.25,
			map[string]string{"HOST": "power", "LINK": "bandwidth"}, nil},
	}
	for _, c := range cases {
		rows := readDump(t, c.dump)
		tr := read(t, c.trace)
		start, _ := trace.FromSeconds(c.a)
		end, _ := trace.FromSeconds(c.b)
		tp := build(t, tr, Options{Start: &start, End: &end})
		v := tp.View()
		checked := 0
		for _, metric := range []struct {
			byKind map[string]string
			get    func(Node) float64
			mean   func(Node) float64
		}{
			{c.size, func(n Node) float64 { return n.Capacity }, func(n Node) float64 { return n.CapacityMean }},
			{c.fill, func(n Node) float64 { return n.Usage }, func(n Node) float64 { return n.UsageMean }},
		} {
			for kind, variable := range metric.byKind {
				want := integrals(rows, variable, c.a, c.b)
				for _, n := range v.Nodes {
					if n.Kind != kind {
						continue
					}
					got, w := metric.get(n), want[n.Name]
					if math.Abs(got-w) > 1e-6*math.Max(1, math.Abs(w)) {
						t.Errorf("%s: %s %s over [%g, %g]: %.9g, pj_dump's rows give %.9g", c.trace, n.Name, variable, c.a, c.b, got, w)
					}
					if m := metric.mean(n); math.Abs(m*(c.b-c.a)-got) > 1e-9*math.Abs(got) {
						t.Errorf("%s: %s: mean %g over %g s, integral %g", c.trace, n.Name, m, c.b-c.a, got)
					}
					checked++
				}
			}
		}
		if checked == 0 {
			t.Fatalf("%s: nothing checked", c.trace)
		}
		t.Logf("%s: %d integrals over [%g, %g] agree", c.trace, checked, c.a, c.b)
	}
}

// Collapsing a group sums its members exactly, keeps every edge that
// leaves it, and expanding restores the graph as it was.
func TestCollapseSumsAndExpand(t *testing.T) {
	tp := build(t, g5k(t), Options{})
	full := cloneView(tp.View())
	leafNode := func(i int) Node { return full.Nodes[full.Rep[i]] }
	for _, group := range []string{"AS_lyon", "AS_lille/AS_chimint", ""} {
		if err := tp.Collapse(group); err != nil {
			t.Fatal(err)
		}
		v := tp.View()
		// Sums over the members, in leaf order as the view adds them.
		type acc struct {
			members   int
			cap, used float64
		}
		want := map[string]*acc{}
		prefix := group + PathSep
		for i := range tp.leaves {
			n := leafNode(i)
			if group != "" && !strings.HasPrefix(n.Path, prefix) {
				continue
			}
			key := groupKey(group, n.Kind)
			a := want[key]
			if a == nil {
				a = &acc{cap: math.NaN(), used: math.NaN()}
				want[key] = a
			}
			a.members++
			a.cap = addKnown(a.cap, n.Capacity)
			a.used = addKnown(a.used, n.Usage)
		}
		if len(want) == 0 {
			t.Fatalf("%q: no member", group)
		}
		found := 0
		for _, n := range v.Nodes {
			a, ok := want[n.Path]
			if !ok {
				continue
			}
			found++
			if !n.Aggregated || n.Members != a.members || !same(n.Capacity, a.cap) || !same(n.Usage, a.used) {
				t.Errorf("%s: members %d capacity %v usage %v, want %d %v %v", n.Path, n.Members, n.Capacity, n.Usage, a.members, a.cap, a.used)
			}
		}
		if found != len(want) {
			t.Errorf("%q: %d aggregates, want one per kind (%d)", group, found, len(want))
		}
		// Edges: each full edge survives unless both ends fell in one node.
		links := 0
		for _, e := range full.Edges {
			if v.Rep[leafIndex(tp, full, e.From)] != v.Rep[leafIndex(tp, full, e.To)] {
				links += e.Count
			}
		}
		got := 0
		seen := map[[2]int32]bool{}
		for _, e := range v.Edges {
			if e.From >= e.To || seen[[2]int32{e.From, e.To}] {
				t.Fatalf("edge %d-%d out of order or twice", e.From, e.To)
			}
			seen[[2]int32{e.From, e.To}] = true
			got += e.Count
		}
		if got != links {
			t.Errorf("%q: edges count %d links, want %d", group, got, links)
		}
		if err := tp.Expand(group); err != nil {
			t.Fatal(err)
		}
		if err := equalViews(full, tp.View()); err != nil {
			t.Fatalf("collapse then expand %q: %v", group, err)
		}
	}
	// Nested: collapsing a site over a collapsed cluster, then expanding
	// the site shows the cluster still collapsed.
	must(t, tp.Collapse("AS_lille/AS_chimint"))
	inner := cloneView(tp.View())
	must(t, tp.Collapse("AS_lille"))
	must(t, tp.Expand("AS_lille"))
	if err := equalViews(inner, tp.View()); err != nil {
		t.Fatal(err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func same(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

// leafIndex returns a leaf shown by node n of the full view.
func leafIndex(tp *Topology, full *View, n int32) int {
	for i, r := range full.Rep {
		if r == n {
			return i
		}
	}
	panic("no leaf")
}

func cloneView(v *View) *View {
	c := *v
	c.Nodes = append([]Node(nil), v.Nodes...)
	c.Edges = append([]Edge(nil), v.Edges...)
	c.Rep = append([]int32(nil), v.Rep...)
	return &c
}

func equalViews(a, b *View) error {
	if len(a.Nodes) != len(b.Nodes) || len(a.Edges) != len(b.Edges) {
		return errors.New("sizes differ")
	}
	for i := range a.Nodes {
		x, y := a.Nodes[i], b.Nodes[i]
		x.X, x.Y, y.X, y.Y = 0, 0, 0, 0
		if x.Path != y.Path || x.Members != y.Members || !same(x.Capacity, y.Capacity) || !same(x.Usage, y.Usage) || !same(x.Size, y.Size) {
			return errors.New("node " + x.Path + " differs from " + y.Path)
		}
	}
	for i := range a.Edges {
		if a.Edges[i] != b.Edges[i] {
			return errors.New("edges differ")
		}
	}
	return nil
}

// A collapsed group appears at the centroid of the nodes it replaces; an
// expanded member comes back where it was (moved along with its group if
// the layout moved the group meanwhile); a member never shown before
// appears next to its group's node.
func TestSmoothEvolution(t *testing.T) {
	tp := build(t, g5k(t), Options{})
	must(t, tp.CollapseDepth(2)) // clusters
	if _, err := tp.Layout(forcelayout.Params{MaxIterations: 40}); err != nil {
		t.Fatal(err)
	}
	before := cloneView(tp.View())
	must(t, tp.Collapse("AS_lyon"))
	v := tp.View()
	for _, n := range v.Nodes {
		if n.Group != "AS_lyon" || !n.Aggregated {
			continue
		}
		var sx, sy float64
		k := 0
		for _, o := range before.Nodes {
			if o.Kind == n.Kind && strings.HasPrefix(o.Path, "AS_lyon/") {
				sx += o.X
				sy += o.Y
				k++
			}
		}
		if k == 0 || n.X != sx/float64(k) || n.Y != sy/float64(k) {
			t.Errorf("%s at (%g, %g), centroid of its %d nodes (%g, %g)", n.Path, n.X, n.Y, k, sx/float64(k), sy/float64(k))
		}
	}
	// Expanding at once: everything back where it was.
	must(t, tp.Expand("AS_lyon"))
	for i, n := range tp.View().Nodes {
		if o := before.Nodes[i]; n.Path != o.Path || n.X != o.X || n.Y != o.Y {
			t.Fatalf("%s back at (%g, %g), was %s at (%g, %g)", n.Path, n.X, n.Y, o.Path, o.X, o.Y)
		}
	}
	// Collapse, lay out (the group's node moves), expand: members move by
	// as much as their group did.
	must(t, tp.Collapse("AS_lyon"))
	born := map[string][2]float64{}
	for _, n := range tp.View().Nodes {
		born[n.Path] = [2]float64{n.X, n.Y}
	}
	if _, err := tp.Layout(forcelayout.Params{MaxIterations: 30}); err != nil {
		t.Fatal(err)
	}
	moved := map[string][2]float64{}
	for _, n := range tp.View().Nodes {
		moved[n.Path] = [2]float64{n.X - born[n.Path][0], n.Y - born[n.Path][1]}
	}
	must(t, tp.Expand("AS_lyon"))
	shifted := 0
	for i, n := range tp.View().Nodes {
		o := before.Nodes[i]
		if !strings.HasPrefix(n.Path, "AS_lyon/") {
			continue
		}
		d := moved[groupKey("AS_lyon", n.Kind)]
		if math.Abs(n.X-(o.X+d[0])) > 1e-9 || math.Abs(n.Y-(o.Y+d[1])) > 1e-9 {
			t.Fatalf("%s at (%g, %g), want its last position (%g, %g) moved by its group's (%g, %g)", n.Path, n.X, n.Y, o.X, o.Y, d[0], d[1])
		}
		if d != [2]float64{} {
			shifted++
		}
	}
	if shifted == 0 {
		t.Error("the layout did not move the group: the test proves nothing")
	}
	// A cluster never expanded before: its hosts appear around its node.
	agg := tp.View().Nodes[index(tp.View(), groupKey("AS_lyon/AS_capricorne", "HOST"))]
	must(t, tp.Expand("AS_lyon/AS_capricorne"))
	hosts := 0
	for _, n := range tp.View().Nodes {
		if n.Kind == "HOST" && strings.HasPrefix(n.Path, "AS_lyon/AS_capricorne/") {
			d := math.Hypot(n.X-agg.X, n.Y-agg.Y)
			if d < 0.1-1e-12 || d > 0.3+1e-12 {
				t.Fatalf("%s at %g from its group's node, want a jitter of 0.1 to 0.3", n.Path, d)
			}
			hosts++
		}
	}
	if hosts == 0 {
		t.Fatal("no host in AS_lyon/AS_capricorne")
	}
}

func index(v *View, path string) int {
	for i, n := range v.Nodes {
		if n.Path == path {
			return i
		}
	}
	panic("no node " + path)
}

// Sizes: the largest of each kind is 1, the others in proportion; kinds
// without capacity are all NoCapacitySize; shapes follow the kinds.
func TestSizesAndShapes(t *testing.T) {
	tp := build(t, read(t, "pajeng/traces/ms.trace"), Options{})
	largest := map[string]float64{}
	for _, n := range tp.View().Nodes {
		largest[n.Kind] = math.Max(largest[n.Kind], n.CapacityMean)
	}
	for _, n := range tp.View().Nodes {
		if want := n.CapacityMean / largest[n.Kind]; n.Size != want {
			t.Errorf("%s: size %g, want %g", n.Path, n.Size, want)
		}
		if want := map[string]Shape{"HOST": Square, "LINK": Diamond}[n.Kind]; n.Shape != want {
			t.Errorf("%s: shape %v", n.Path, n.Shape)
		}
		if !(n.Ratio >= 0 && n.Ratio <= 1) {
			t.Errorf("%s: utilization ratio %g", n.Path, n.Ratio)
		}
	}
	g := build(t, g5k(t), Options{})
	for _, n := range g.View().Nodes {
		if n.Kind == "ROUTER" && (n.Size != NoCapacitySize || n.Shape != Circle || !math.IsNaN(n.Capacity)) {
			t.Fatalf("router %s: size %g shape %v capacity %g", n.Path, n.Size, n.Shape, n.Capacity)
		}
	}
}

// Links between processes give a communication graph; only those that
// overlap the window count.
func TestCommunications(t *testing.T) {
	tr := read(t, "smpi-nas/dt_A_WH_21.trace")
	tp := build(t, tr, Options{})
	v := tp.View()
	total := 0
	for _, e := range v.Edges {
		total += e.Count
	}
	kept, skipped := tp.Links()
	if total != kept || kept+skipped != tr.Links.Len() {
		t.Errorf("edges count %d links; %d kept, %d skipped of %d", total, kept, skipped, tr.Links.Len())
	}
	t.Logf("dt: %d nodes (%s), %d edges, %d links (%d skipped)", len(v.Nodes), v.Nodes[0].Kind, len(v.Edges), kept, skipped)
	// Half the run: the links that overlap it, counted by hand.
	mid := tr.Start + (tr.End-tr.Start)/2
	must(t, tp.SetWindow(tr.Start, mid))
	want := 0
	for _, l := range tr.Links.All() {
		if l.Start <= mid && tp.nodeOf(l.From) != tp.nodeOf(l.To) {
			want++
		}
	}
	got := 0
	for _, e := range tp.View().Edges {
		got += e.Count
	}
	if got != want || want == total {
		t.Errorf("first half: edges count %d links, want %d (of %d)", got, want, total)
	}
}

func TestBadInput(t *testing.T) {
	g := g5k(t)
	tp := build(t, g, Options{})
	argErr := func(err error, param, text string) {
		t.Helper()
		var ae *errs.ArgumentError
		if !errors.As(err, &ae) || ae.Name != param || !strings.Contains(err.Error(), text) {
			t.Errorf("error %v, want an argument error on %s saying %q", err, param, text)
		}
	}
	argErr(tp.Collapse("AS_nowhere"), "path", `no container "AS_nowhere"`)
	argErr(tp.Collapse("AS_lille/AS_chimint/chimint-1.lille.grid5000.fr"), "path", "is a node (HOST)")
	argErr(tp.Expand("AS_lille"), "path", "is not collapsed")
	argErr(tp.CollapseDepth(9), "depth", "no group")
	argErr(tp.SetWindow(3*trace.Second, 2*trace.Second), "start", "empty")
	argErr(tp.SetWindow(5*trace.Second, 20*trace.Second), "start", "not inside the trace")
	_, err := Build(g, Options{Size: []string{"flops"}})
	argErr(err, "size", `no node has a variable named "flops"`)
	_, err = Build(g, Options{EdgeTypes: []string{"nope"}})
	argErr(err, "edges", `no link type "nope"`)
	_, err = Build(g, Options{EdgeSource: EdgesCommunications})
	argErr(err, "edges", "no communication link type")
	_, err = Build(g, Options{Kinds: []string{"CPU"}})
	argErr(err, "kinds", `no container type "CPU"`)
	_, err = Build(g, Options{Charge: "mass"})
	argErr(err, "charge", "must be")
	_, err = Build(read(t, "pajeng/traces/states.trace"), Options{})
	argErr(err, "kinds", "no platform types")
}

// The same seed lays the graph out the same way.
func TestLayoutDeterministic(t *testing.T) {
	pos := func() []float64 {
		tp := build(t, read(t, "simgrid/extracted/s4u-trace-platform.1.trace"), Options{})
		if _, err := tp.Layout(forcelayout.Params{Seed: 3}); err != nil {
			t.Fatal(err)
		}
		var out []float64
		for _, n := range tp.View().Nodes {
			out = append(out, n.X, n.Y)
		}
		return out
	}
	a, b := pos(), pos()
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("coordinate %d: %v then %v", i, a[i], b[i])
		}
	}
}

// smallGrid is a synthetic platform: 2 sites of 2 clusters of 3 hosts,
// with powers and uses chosen so that some groups are uniform and others
// not.
func smallGrid() *trace.Trace {
	t := trace.New("grid")
	t.DefineType(trace.Type{Name: "SITE", Kind: trace.KindContainer, Parent: trace.None})
	t.DefineType(trace.Type{Name: "CLUSTER", Kind: trace.KindContainer, Parent: 0})
	t.DefineType(trace.Type{Name: "HOST", Kind: trace.KindContainer, Parent: 1})
	t.DefineType(trace.Type{Name: "power", Kind: trace.KindVariable, Parent: 2})
	t.DefineType(trace.Type{Name: "power_used", Kind: trace.KindVariable, Parent: 2})
	power := [][]float64{{10, 10, 10}, {10, 10, 10}, {5, 20, 5}, {8, 8, 8}}
	used := [][]float64{{5, 5, 5}, {2, 9, 5}, {5, 2, 1}, {4, 4, 4}}
	id := int32(1)
	for s := range 2 {
		site := id
		t.CreateContainer(trace.Container{Name: fmt.Sprintf("s%d", s), Type: 0, Parent: 0})
		id++
		for c := range 2 {
			cl := id
			t.CreateContainer(trace.Container{Name: fmt.Sprintf("c%d", c), Type: 1, Parent: site})
			id++
			for h := range 3 {
				t.CreateContainer(trace.Container{Name: fmt.Sprintf("h%d", h), Type: 2, Parent: cl})
				t.Variable(trace.Variable{Container: id, Type: 3, Start: 0, End: 10 * trace.Second, Value: power[2*s+c][h]})
				t.Variable(trace.Variable{Container: id, Type: 4, Start: 0, End: 10 * trace.Second, Value: used[2*s+c][h]})
				id++
			}
		}
	}
	t.Finish(0, 10*trace.Second)
	return t
}

// gainLoss measures an aggregate of rows (one value per state each) as
// Lamarche-Perrin et al. do: entropy reduction and Kullback-Leibler loss.
func gainLoss(rows [][]float64) (gain, loss float64) {
	xlogx := func(v float64) float64 {
		if v <= 0 {
			return 0
		}
		return v * math.Log2(v)
	}
	for x := range rows[0] {
		total, ent := 0.0, 0.0
		for _, r := range rows {
			total += r[x]
			ent += xlogx(r[x])
		}
		gain += xlogx(total) - ent
		for _, r := range rows {
			if r[x] > 0 {
				loss += r[x] * math.Log2(r[x]*float64(len(rows))/total)
			}
		}
	}
	return
}

// The automatic groups are the best cut: every cut of the small grid,
// measured independently, does no better.
func TestCollapseOptimalIsBest(t *testing.T) {
	tr := smallGrid()
	tp := build(t, tr, Options{})
	// Rows of the hosts: used and unused power over the total power.
	leaves := tp.View().Nodes
	total := 0.0
	for _, n := range leaves {
		total += n.CapacityMean
	}
	row := map[string][]float64{}
	for _, n := range leaves {
		row[n.Path] = []float64{n.UsageMean / total, (n.CapacityMean - n.UsageMean) / total}
	}
	rowsUnder := func(prefix string) [][]float64 {
		var rs [][]float64
		for _, n := range leaves {
			if prefix == "" || strings.HasPrefix(n.Path, prefix+"/") {
				rs = append(rs, row[n.Path])
			}
		}
		return rs
	}
	g0, l0 := gainLoss(rowsUnder(""))
	value := func(p float64, groups []string) float64 {
		v := 0.0
		for _, g := range groups {
			gain, loss := gainLoss(rowsUnder(g))
			v += p*gain/g0 - (1-p)*loss/l0
		}
		return v
	}
	// Every cut: the root; or per site, the site or a choice per cluster.
	siteCuts := func(s string) [][]string {
		return [][]string{{s}, {}, {s + "/c0"}, {s + "/c1"}, {s + "/c0", s + "/c1"}}
	}
	var cuts [][]string
	cuts = append(cuts, []string{""})
	for _, a := range siteCuts("s0") {
		for _, b := range siteCuts("s1") {
			cuts = append(cuts, append(append([]string{}, a...), b...))
		}
	}
	for _, p := range []float64{0, 0.1, 0.3, 0.5, 0.7, 0.9, 1} {
		got, err := tp.CollapseOptimal(p)
		if err != nil {
			t.Fatal(err)
		}
		best := math.Inf(-1)
		for _, c := range cuts {
			best = math.Max(best, value(p, c))
		}
		if v := value(p, got); math.Abs(v-best) > 1e-12 {
			t.Errorf("p=%g: collapsed %q (value %.15g), the best cut is worth %.15g", p, got, v, best)
		}
		if !equalStrings(tp.Collapsed(), sorted(got)) {
			t.Errorf("p=%g: view collapses %q, not %q", p, tp.Collapsed(), got)
		}
		t.Logf("p=%g: %q, %d nodes", p, got, len(tp.View().Nodes))
	}
	// p = 1 collapses everything; p = 0 is the microscopic view (nothing
	// collapsed), and just above it only the uniform groups collapse
	// (s0/c0: same power and use everywhere; s1/c1 too), at no loss.
	got, _ := tp.CollapseOptimal(1)
	if !equalStrings(got, []string{""}) || len(tp.View().Nodes) != 1 {
		t.Errorf("p=1: %q", got)
	}
	got, _ = tp.CollapseOptimal(0)
	if len(got) != 0 || len(tp.View().Nodes) != 12 {
		t.Errorf("p=0: %q, want nothing collapsed", got)
	}
	got, _ = tp.CollapseOptimal(1e-9)
	if !equalStrings(sorted(got), []string{"s0/c0", "s1/c1"}) {
		t.Errorf("p=1e-9: %q, want the two uniform clusters", got)
	}
	if _, err := tp.CollapseOptimal(1.5); err == nil {
		t.Error("p=1.5 accepted")
	}
}

func sorted(s []string) []string {
	c := append([]string(nil), s...)
	slices.Sort(c)
	return c
}

func equalStrings(a, b []string) bool { return slices.Equal(a, b) }

// An aggregate's charge is the sum of its members' (each 1) by default, the
// rule of Viva's paper; "sqrt" and "unit" are asked for.
func TestChargeDefaultIsMembers(t *testing.T) {
	want := map[string]func(m int) float64{
		"":        func(m int) float64 { return float64(m) },
		"members": func(m int) float64 { return float64(m) },
		"sqrt":    func(m int) float64 { return math.Sqrt(float64(m)) },
		"unit":    func(int) float64 { return 1 },
	}
	for charge, f := range want {
		tp := build(t, smallGrid(), Options{Charge: charge})
		must(t, tp.Collapse("s0"))
		must(t, tp.Collapse("s1/c1"))
		seen := 0
		for _, n := range tp.View().Nodes {
			if n.Charge != f(n.Members) {
				t.Errorf("charge %q: %s has %d members and charge %g, want %g", charge, n.Path, n.Members, n.Charge, f(n.Members))
			}
			if n.Members > 1 {
				seen++
			}
		}
		if seen != 2 {
			t.Errorf("charge %q: %d aggregates, want 2 (s0 and s1/c1)", charge, seen)
		}
	}
}

// A clone changes without its original: collapsing, a window and a layout
// of the clone leave the original's view, window, groups and positions as
// they were, and the clone starts from them.
func TestCloneIsIndependent(t *testing.T) {
	tr, err := formats.ReadFile("../../../testdata/jacobi32-platform.trace", "paje")
	if err != nil {
		t.Fatal(err)
	}
	tp := build(t, tr, Options{})
	if _, err := tp.Layout(forcelayout.Params{MaxIterations: 20}); err != nil {
		t.Fatal(err)
	}
	paths, _ := tp.Groups()
	if len(paths) == 0 {
		t.Fatal("no group to collapse")
	}
	if err := tp.Collapse(paths[0]); err != nil {
		t.Fatal(err)
	}
	before, start, end, collapsed := cloneView(tp.View()), tp.start, tp.end, tp.Collapsed()
	c := tp.Clone()
	if err := equalViews(c.View(), before); err != nil || !slices.Equal(c.Collapsed(), collapsed) {
		t.Fatalf("the clone differs from its original: %v, %v", err, c.Collapsed())
	}
	c.ExpandAll()
	if err := c.CollapseDepth(1); err != nil {
		t.Fatal(err)
	}
	if err := c.SetWindow(start+(end-start)/4, end-(end-start)/4); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Layout(forcelayout.Params{MaxIterations: 20}); err != nil {
		t.Fatal(err)
	}
	if err := equalViews(tp.View(), before); err != nil {
		t.Fatal(err)
	}
	for i, n := range tp.View().Nodes {
		if n.X != before.Nodes[i].X || n.Y != before.Nodes[i].Y {
			t.Fatalf("%s moved from (%g, %g) to (%g, %g)", n.Path, before.Nodes[i].X, before.Nodes[i].Y, n.X, n.Y)
		}
	}
	if tp.start != start || tp.end != end || !slices.Equal(tp.Collapsed(), collapsed) {
		t.Fatalf("window [%v, %v], collapsed %v; want [%v, %v], %v", tp.start, tp.end, tp.Collapsed(), start, end, collapsed)
	}
	if slices.Equal(c.Collapsed(), collapsed) || c.start == start {
		t.Fatalf("the clone did not change: %v, %v", c.Collapsed(), c.start)
	}
	// The original changes on its own too.
	if err := tp.Expand(paths[0]); err != nil {
		t.Fatal(err)
	}
	if len(c.Collapsed()) == 0 {
		t.Fatal("expanding the original expanded the clone")
	}
}

// A first layout runs coarse levels before the final run; Progress counts
// them all as one run: it never goes back and reaches its cap only with
// the final run's last iteration (each level used to report its own
// iterations over its own cap: the end of every coarse level read as the
// end of the layout, and the count went back to zero after it). The
// reports change nothing of the layout.
func TestLayoutProgressCountsEveryLevel(t *testing.T) {
	p := forcelayout.Params{MaxIterations: 40, Tolerance: 1e-300} // no level stops early
	quiet := build(t, g5k(t), Options{})
	must(t, quiet.CollapseDepth(2)) // clusters: the sites' level comes first
	if _, err := quiet.Layout(p); err != nil {
		t.Fatal(err)
	}
	tp := build(t, g5k(t), Options{})
	must(t, tp.CollapseDepth(2))
	var reports [][2]int
	p.Progress = func(done, max int) { reports = append(reports, [2]int{done, max}) }
	st, err := tp.Layout(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Converged || st.Iterations != 40 || len(reports) <= st.Iterations {
		t.Fatalf("%+v after %d reports, want 40 iterations of the final run after a coarse level's", st, len(reports))
	}
	total := reports[0][1]
	for i, r := range reports {
		if r[1] != total || r[0] > total || (i > 0 && r[0] <= reports[i-1][0]) || (r[0] == total) != (i == len(reports)-1) {
			t.Fatalf("report %d of %d: %v after %v, cap %d", i, len(reports), r, reports[max(i-1, 0)], total)
		}
	}
	for i, n := range tp.View().Nodes {
		if o := quiet.View().Nodes[i]; n.X != o.X || n.Y != o.Y {
			t.Fatalf("%s at (%g, %g) with progress reports, (%g, %g) without", n.Path, n.X, n.Y, o.X, o.Y)
		}
	}
}
