package topology

import (
	"cmp"
	"hash/fnv"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/forcelayout"
)

// Shape is how a node is drawn.
type Shape uint8

// The shapes of Schnorr, Legrand and Vincent 2012: hosts are squares,
// links diamonds, anything else a circle.
const (
	Circle Shape = iota
	Square
	Diamond
)

var shapeNames = [...]string{"circle", "square", "diamond"}

func (s Shape) String() string { return shapeNames[s] }

// ShapeOf returns the shape of a kind of node.
func ShapeOf(kind string) Shape {
	switch strings.ToUpper(kind) {
	case "HOST":
		return Square
	case "LINK":
		return Diamond
	}
	return Circle
}

// NoCapacitySize is the size of the nodes of a kind that has no capacity
// variable (SimGrid's routers): all alike, half the maximum.
const NoCapacitySize = 0.5

// Node is a node of the view: a resource, or a collapsed group's
// resources of one kind.
type Node struct {
	Path       string // the container's path; "group [kind]" for an aggregate
	Name       string // the container's name; the group's for an aggregate
	Kind       string
	Group      string // the collapsed group (aggregate) or the parent container (resource)
	Aggregated bool
	Members    int // resources it stands for (1 for a resource)
	// Capacity and Usage are the integrals of the two variables over the
	// window (value x seconds), summed over the members; NaN where the
	// kind has no such variable.
	Capacity, Usage float64
	// CapacityMean and UsageMean are the integrals over the length of the
	// window: time averages (the values at the instant of a trace that
	// spans no time).
	CapacityMean, UsageMean float64
	Ratio                   float64 // UsageMean / CapacityMean (NaN if either is unknown or the capacity is 0)
	Size                    float64 // CapacityMean over the largest of its kind, in [0, 1]
	Shape                   Shape
	X, Y                    float64 // position (NaN before the first layout)
	Charge                  float64 // charge in the layout
}

// Edge joins two nodes of the view (indices into View.Nodes, From < To).
type Edge struct {
	From, To int32
	Kind     string // the kinds of the ends, "HOST-LINK"
	Count    int    // trace links it stands for
}

// View is the graph as shown: the visible nodes and their edges.
type View struct {
	Nodes []Node
	Edges []Edge
	// Rep gives, for each leaf of the full graph, the node that shows it.
	Rep []int32
	// cont is the container of each node: the resource, or the group of
	// an aggregate.
	cont []int32
}

// groupKey names the aggregate of a group's nodes of one kind.
func groupKey(group, kind string) string {
	if group == "" { // the root
		return "[" + kind + "]"
	}
	return group + " [" + kind + "]"
}

// topmost returns, for each container, its highest collapsed ancestor
// (itself included), or -1.
func (tp *Topology) topmost() []int32 {
	t := tp.tr
	top := make([]int32, len(t.Containers))
	for c := range t.Containers { // parents come before children
		top[c] = -1
		if p := t.Containers[c].Parent; p != trace.None {
			top[c] = top[p]
		}
		if top[c] < 0 && tp.collapsed[int32(c)] {
			top[c] = int32(c)
		}
	}
	return top
}

func (tp *Topology) invalidate() {
	old := tp.view
	v := tp.build()
	if v == nil {
		return // stopped (Change): tp is half changed, for its caller to drop
	}
	born := tp.place(old, v)
	if born == nil {
		return // stopped: the view, positions and births as they were
	}
	tp.view = v
	tp.laidOut = tp.laidOut && old != nil && sameNodes(old, tp.view)
	maps.Copy(tp.born, born)
	tp.remember()
}

func sameNodes(a, b *View) bool {
	if len(a.Nodes) != len(b.Nodes) {
		return false
	}
	for i := range a.Nodes {
		if a.Nodes[i].Path != b.Nodes[i].Path {
			return false
		}
	}
	return true
}

// build computes the view for the current window and collapsed groups,
// or nil once tp.look stops (Change): it looks every trace.StopEvery
// leaves and edges.
func (tp *Topology) build() *View {
	t := tp.tr
	top := tp.topmost()
	v := &View{Rep: make([]int32, len(tp.leaves))}
	index := map[string]int32{}
	for i, c := range tp.leaves {
		if tp.look.Stopped(1) != nil {
			return nil
		}
		kind := tp.kinds[tp.leafKind[i]]
		var key string
		g := top[c]
		if g >= 0 {
			key = groupKey(tp.paths[g], kind)
		} else {
			key = tp.paths[c]
		}
		id, ok := index[key]
		if !ok {
			id = int32(len(v.Nodes))
			index[key] = id
			if g >= 0 {
				v.cont = append(v.cont, g)
			} else {
				v.cont = append(v.cont, c)
			}
			n := Node{Path: key, Kind: kind, Shape: ShapeOf(kind), X: math.NaN(), Y: math.NaN(),
				Capacity: math.NaN(), Usage: math.NaN(), CapacityMean: math.NaN(), UsageMean: math.NaN()}
			if g >= 0 {
				n.Name, n.Group, n.Aggregated = t.Containers[g].Name, tp.paths[g], true
				if g == 0 {
					n.Name = "(all)"
				}
			} else {
				n.Name, n.Group = t.Containers[c].Name, tp.paths[t.Containers[c].Parent]
			}
			v.Nodes = append(v.Nodes, n)
		}
		v.Rep[i] = id
		n := &v.Nodes[id]
		n.Members++
		n.Capacity = addKnown(n.Capacity, tp.capInt[i])
		n.Usage = addKnown(n.Usage, tp.useInt[i])
		n.CapacityMean = addKnown(n.CapacityMean, tp.capMean[i])
		n.UsageMean = addKnown(n.UsageMean, tp.useMean[i])
	}
	tp.measure(v)
	pairs := map[[2]int32]int{}
	for _, e := range tp.edges {
		if tp.look.Stopped(1) != nil {
			return nil
		}
		a, b := v.Rep[e.a], v.Rep[e.b]
		if a == b {
			continue
		}
		if a > b {
			a, b = b, a
		}
		pairs[[2]int32{a, b}] += e.count
	}
	for p, n := range pairs {
		ka, kb := v.Nodes[p[0]].Kind, v.Nodes[p[1]].Kind
		if kb < ka {
			ka, kb = kb, ka
		}
		v.Edges = append(v.Edges, Edge{From: p[0], To: p[1], Kind: ka + "-" + kb, Count: n})
	}
	slices.SortFunc(v.Edges, func(x, y Edge) int {
		return cmp.Or(cmp.Compare(x.From, y.From), cmp.Compare(x.To, y.To))
	})
	return v
}

// addKnown adds b to a, NaN standing for "no value" rather than poisoning
// the sum: the sum of nothing known is NaN.
func addKnown(a, b float64) float64 {
	switch {
	case math.IsNaN(b):
		return a
	case math.IsNaN(a):
		return b
	}
	return a + b
}

// measure sets means, ratios, sizes and charges.
func (tp *Topology) measure(v *View) {
	largest := map[string]float64{}
	for i := range v.Nodes {
		n := &v.Nodes[i]
		n.Ratio = math.NaN()
		if n.CapacityMean > 0 && !math.IsNaN(n.UsageMean) {
			n.Ratio = n.UsageMean / n.CapacityMean
		}
		if !math.IsNaN(n.CapacityMean) {
			largest[n.Kind] = math.Max(largest[n.Kind], n.CapacityMean)
		}
		switch tp.charge {
		case ChargeMembers:
			n.Charge = float64(n.Members)
		case ChargeSqrt:
			n.Charge = math.Sqrt(float64(n.Members))
		default:
			n.Charge = 1
		}
	}
	for i := range v.Nodes {
		n := &v.Nodes[i]
		m, ok := largest[n.Kind]
		switch {
		case !ok:
			n.Size = NoCapacitySize
		case m > 0:
			n.Size = n.CapacityMean / m
		}
	}
}

// jitter is a small offset from a node's key, the same every time: 0.1
// to 0.3 rest lengths in a direction of its own.
func jitter(key string) (float64, float64) {
	h := fnv.New64a()
	h.Write([]byte(key))
	s := h.Sum64()
	angle := float64(s>>11) / (1 << 53) * 2 * math.Pi
	r := 0.1 + 0.2*float64(s&0x7ff)/0x7ff
	return r * math.Cos(angle), r * math.Sin(angle)
}

// place positions the nodes of the new view v: nodes already shown keep
// their place; a new aggregate appears at the centroid of the shown nodes
// it replaces; a node revealed by an expansion reappears at its last
// position, moved by as much as the aggregate that hid it moved since it
// appeared, or else at that aggregate's position plus a small jitter.
//
// It returns the births of the new aggregates, for the caller to record
// with the view, or nil once tp.look stops (Change): it looks every
// trace.StopEvery nodes and leaves, and changes nothing of tp.
func (tp *Topology) place(old, v *View) map[string][2]float64 {
	born := map[string][2]float64{}
	var oldIndex map[string]int32
	if old != nil {
		oldIndex = make(map[string]int32, len(old.Nodes))
		for i, n := range old.Nodes {
			if tp.look.Stopped(1) != nil {
				return nil
			}
			oldIndex[n.Path] = int32(i)
		}
	}
	// The old nodes each new node takes over, through the leaves.
	sumX := make([]float64, len(v.Nodes))
	sumY := make([]float64, len(v.Nodes))
	cnt := make([]int, len(v.Nodes))
	from := make([]int32, len(v.Nodes)) // an old node holding one of its leaves
	for i := range from {
		from[i] = -1
	}
	var counted map[[2]int32]bool
	if old != nil {
		counted = map[[2]int32]bool{}
		for l, nv := range v.Rep {
			if tp.look.Stopped(1) != nil {
				return nil
			}
			o := old.Rep[l]
			if from[nv] < 0 {
				from[nv] = o
			}
			if counted[[2]int32{nv, o}] {
				continue
			}
			counted[[2]int32{nv, o}] = true
			if on := old.Nodes[o]; !math.IsNaN(on.X) {
				sumX[nv] += on.X
				sumY[nv] += on.Y
				cnt[nv]++
			}
		}
	}
	for i := range v.Nodes {
		if tp.look.Stopped(1) != nil {
			return nil
		}
		n := &v.Nodes[i]
		if o, ok := oldIndex[n.Path]; ok {
			n.X, n.Y = old.Nodes[o].X, old.Nodes[o].Y
			continue
		}
		if old == nil {
			continue
		}
		o := from[i]
		// Revealed by an expansion when an old aggregate of a group above
		// held its resources; otherwise it takes over the old nodes (a
		// collapse).
		revealed := o >= 0 && old.Nodes[o].Aggregated && tp.above(old.cont[o], v.cont[i])
		switch {
		case !revealed && cnt[i] > 0:
			n.X, n.Y = sumX[i]/float64(cnt[i]), sumY[i]/float64(cnt[i])
			born[n.Path] = [2]float64{n.X, n.Y}
		case o >= 0 && !math.IsNaN(old.Nodes[o].X):
			on := old.Nodes[o]
			if last, ok := tp.pos[n.Path]; ok {
				dx, dy := 0.0, 0.0
				if b, ok := tp.born[on.Path]; ok {
					dx, dy = on.X-b[0], on.Y-b[1]
				}
				n.X, n.Y = last[0]+dx, last[1]+dy
			} else {
				jx, jy := jitter(n.Path)
				n.X, n.Y = on.X+jx, on.Y+jy
			}
		}
	}
	return born
}

// above tells whether container a is a proper ancestor of container b.
func (tp *Topology) above(a, b int32) bool {
	for c := tp.tr.Containers[b].Parent; c != trace.None; c = tp.tr.Containers[c].Parent {
		if c == a {
			return true
		}
	}
	return false
}

// remember records the positions of the nodes shown.
func (tp *Topology) remember() {
	for _, n := range tp.view.Nodes {
		if !math.IsNaN(n.X) {
			tp.pos[n.Path] = [2]float64{n.X, n.Y}
		}
	}
}

// Clone returns a copy of the exploration (window, collapsed groups,
// positions, the view) that changes independently of tp: a caller may
// change one and keep the other as it was. The trace and the graph read
// from it, which nothing changes, are shared.
func (tp *Topology) Clone() *Topology {
	c := *tp
	c.capInt, c.useInt = slices.Clone(tp.capInt), slices.Clone(tp.useInt)
	c.capMean, c.useMean = slices.Clone(tp.capMean), slices.Clone(tp.useMean)
	c.edges = slices.Clone(tp.edges) // SetWindow refills it in place
	c.collapsed, c.pos, c.born = maps.Clone(tp.collapsed), maps.Clone(tp.pos), maps.Clone(tp.born)
	if tp.view != nil {
		v := *tp.view
		v.Nodes, v.Edges = slices.Clone(v.Nodes), slices.Clone(v.Edges) // a layout moves the nodes in place
		v.Rep, v.cont = slices.Clone(v.Rep), slices.Clone(v.cont)
		c.view = &v
	}
	return &c
}

// Change makes change (SetWindow, Collapse, CollapseOptimal...) to tp,
// stopped by cancel (Ctrl-C): the window's integrals and edges and the
// rebuild of the view look at it every trace.StopEvery leaves, links and
// edges. Stopped, it returns trace.ErrComputationCanceled and leaves tp
// half changed: make the change on a Clone and drop it then.
func (tp *Topology) Change(cancel <-chan struct{}, change func(tp *Topology) error) error {
	tp.look = trace.Looker{Cancel: cancel}
	defer func() { tp.look = trace.Looker{} }()
	if err := tp.look.Stopped(1); err != nil {
		return err
	}
	err := change(tp)
	if stopped := tp.look.Stopped(0); stopped != nil {
		return stopped // a change stopped halfway may report nothing
	}
	return err
}

// View returns the graph as shown. It belongs to the topology: it changes
// with the next call that changes the topology.
func (tp *Topology) View() *View { return tp.view }

// LaidOut tells whether the positions come from a layout run since the
// graph last changed.
func (tp *Topology) LaidOut() bool { return tp.laidOut }

// Group returns the container of a group from its path ("" or "/" for the
// root), or an error naming what the path is instead.
func (tp *Topology) group(path string) (int32, error) {
	if path == PathSep {
		path = ""
	}
	c, ok := tp.byPath[strings.TrimSuffix(path, PathSep)]
	if !ok {
		return 0, errs.Argument("path", "no container %q in the trace", path)
	}
	if !tp.isGroup[c] {
		if tp.leafOf[c] >= 0 {
			return 0, errs.Argument("path", "%q is a node (%s), not a group of nodes", path, tp.kinds[tp.leafKind[tp.leafOf[c]]])
		}
		return 0, errs.Argument("path", "%q holds no node of the graph", path)
	}
	return c, nil
}

// Collapse replaces the nodes of a group by one node per kind.
func (tp *Topology) Collapse(path string) error {
	c, err := tp.group(path)
	if err != nil {
		return err
	}
	if tp.collapsed[c] {
		return nil
	}
	tp.collapsed[c] = true
	tp.invalidate()
	return nil
}

// Expand undoes Collapse: the group's nodes are shown as they were when it
// was collapsed (groups collapsed inside it stay collapsed).
func (tp *Topology) Expand(path string) error {
	c, err := tp.group(path)
	if err != nil {
		return err
	}
	if !tp.collapsed[c] {
		return errs.Argument("path", "%q is not collapsed", path)
	}
	delete(tp.collapsed, c)
	tp.invalidate()
	return nil
}

// CollapseDepth collapses every group at depth d of the hierarchy (1: the
// children of the root) and expands the groups above it, so that the view
// shows the graph at that level (groups below stay as they are, hidden).
func (tp *Topology) CollapseDepth(d int) error {
	if d < 0 {
		return errs.Argument("depth", "must be >= 0, got %d", d)
	}
	t := tp.tr
	depth := make([]int, len(t.Containers))
	found := false
	for c := 1; c < len(t.Containers); c++ {
		depth[c] = depth[t.Containers[c].Parent] + 1
	}
	for c := range t.Containers {
		if !tp.isGroup[c] {
			continue
		}
		switch {
		case depth[c] == d:
			tp.collapsed[int32(c)] = true
			found = true
		case depth[c] < d:
			delete(tp.collapsed, int32(c))
		}
	}
	if !found {
		return errs.Argument("depth", "no group of nodes at depth %d", d)
	}
	tp.invalidate()
	return nil
}

// ExpandAll expands every group.
func (tp *Topology) ExpandAll() {
	clear(tp.collapsed)
	tp.invalidate()
}

// Collapsed returns the paths of the collapsed groups, sorted.
func (tp *Topology) Collapsed() []string {
	paths := []string{}
	for c := range tp.collapsed {
		paths = append(paths, tp.paths[c])
	}
	slices.Sort(paths)
	return paths
}

// Groups returns the paths of the groups that can be collapsed and their
// depths, in depth-first order.
func (tp *Topology) Groups() (paths []string, depths []int) {
	t := tp.tr
	depth := make([]int, len(t.Containers))
	for c := 1; c < len(t.Containers); c++ {
		depth[c] = depth[t.Containers[c].Parent] + 1
	}
	var walk func(c int32)
	walk = func(c int32) {
		if tp.isGroup[c] {
			paths = append(paths, tp.paths[c])
			depths = append(depths, depth[c])
		}
		for _, ch := range t.Containers[c].Children {
			walk(ch)
		}
	}
	walk(0)
	return
}

// Layout runs the force-directed layout from the current positions and
// records the result. When some nodes have no position yet (the first
// layout), the graph is laid out coarse to fine first: with every group
// at depth 1 collapsed, then at depth 2, and so on, each level starting
// from the previous one as an expansion does (the first from random
// positions drawn from p.Seed), which untangles large platforms that a
// layout from random positions leaves knotted.
//
// p.Progress then counts the iterations of the coarse levels and of the
// final run as one run, whose cap is the sum of theirs: it never goes
// back, and reaches its cap only at the end of the final run (reported
// run by run, each level's end would read as the end of the layout).
func (tp *Topology) Layout(p forcelayout.Params) (forcelayout.Stats, error) {
	if !tp.unplaced() {
		return tp.layoutView(p)
	}
	// Coarse levels only prepare the next: a shorter run each.
	level := p.Defaults()
	level.MaxIterations = min(level.MaxIterations, coarseIterations)
	paths, depths := tp.Groups()
	deepest := 0
	for _, d := range depths {
		deepest = max(deepest, d)
	}
	coarse := deepest * level.MaxIterations // the most the coarse levels take
	stages := stagedProgress{report: p.Progress, total: coarse + p.Defaults().MaxIterations}
	if err := tp.coarseToFine(level, paths, depths, deepest, &stages); err != nil {
		return forcelayout.Stats{}, err
	}
	p.Progress = stages.from(coarse)
	return tp.layoutView(p)
}

// stagedProgress reports the runs of a layout in stages to one Progress
// as a single count of iterations: each run's iterations come after the caps of the
// stages before it, whether those ran to their cap, stopped sooner or
// were skipped.
type stagedProgress struct {
	report func(done, max int) // nil: nothing to report
	total  int                 // the sum of the stages' caps
}

// from returns the Progress of the run that starts after base
// iterations of the whole (nil when there is nothing to report).
func (s *stagedProgress) from(base int) func(done, max int) {
	if s.report == nil {
		return nil
	}
	return func(done, _ int) { s.report(base+done, s.total) }
}

func (tp *Topology) unplaced() bool {
	for _, n := range tp.view.Nodes {
		if math.IsNaN(n.X) || math.IsNaN(n.Y) {
			return true
		}
	}
	return false
}

// coarseIterations caps the layout of each coarse level.
const coarseIterations = 200

// coarseToFine lays out the levels of the hierarchy above the current
// view with p, level d (of groups at depth d, 1 to deepest, collapsed)
// as stage d of stages, then restores the collapsed groups.
func (tp *Topology) coarseToFine(p forcelayout.Params, paths []string, depths []int, deepest int, stages *stagedProgress) error {
	user := make(map[int32]bool, len(tp.collapsed))
	for c := range tp.collapsed {
		user[c] = true
	}
	final := tp.view
	defer func() {
		tp.collapsed = user
		tp.invalidate()
	}()
	for d := 1; d <= deepest; d++ {
		clear(tp.collapsed)
		for c := range user {
			tp.collapsed[c] = true
		}
		for i, path := range paths {
			if depths[i] == d {
				tp.collapsed[tp.byPath[path]] = true
			}
		}
		prev := tp.view
		tp.invalidate()
		if sameNodes(tp.view, final) {
			break // the caller lays this one out
		}
		if d > 1 && sameNodes(prev, tp.view) {
			continue // the groups collapsed by the caller hide this level
		}
		p.Progress = stages.from((d - 1) * p.MaxIterations)
		if _, err := tp.layoutView(p); err != nil {
			return err
		}
	}
	return nil
}

// layoutView runs the layout on the current view.
func (tp *Topology) layoutView(p forcelayout.Params) (forcelayout.Stats, error) {
	v := tp.view
	g := forcelayout.Graph{N: len(v.Nodes), Charge: make([]float64, len(v.Nodes))}
	x, y := make([]float64, g.N), make([]float64, g.N)
	for i, n := range v.Nodes {
		x[i], y[i], g.Charge[i] = n.X, n.Y, n.Charge
	}
	for _, e := range v.Edges {
		g.Edges = append(g.Edges, [2]int32{e.From, e.To})
	}
	st, err := forcelayout.Layout(g, x, y, p)
	if err != nil {
		return st, err
	}
	for i := range v.Nodes {
		v.Nodes[i].X, v.Nodes[i].Y = x[i], y[i]
	}
	tp.laidOut = true
	tp.remember()
	return st, nil
}
