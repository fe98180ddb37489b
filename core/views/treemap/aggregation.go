package treemap

import (
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/hier"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
)

// Value is what the area of a rectangle measures.
type Value string

// The measures of a node's size.
const (
	// Leaves is the number of resources (leaves of the hierarchy) under
	// the node: Lamarche-Perrin et al.'s treemaps, where every process has
	// the same area.
	Leaves Value = "leaves"
	// Activity is the total of the model's values under the node over the
	// window: the seconds spent in states (the sum of the state durations)
	// for a model of state durations, the number of events for a model of
	// event counts.
	Activity Value = "activity"
)

// ParseValue reads a Value; empty means Leaves.
func ParseValue(s string) (Value, error) {
	switch v := Value(strings.ToLower(strings.TrimSpace(s))); v {
	case "":
		return Leaves, nil
	case Leaves, Activity:
		return v, nil
	}
	return "", errs.Argument("value", "must be \"leaves\" or \"activity\", got %q", s)
}

// Options choose what a treemap of an aggregation measures and where it
// is laid out.
type Options struct {
	Value         Value   // Leaves (default) or Activity
	Width, Height float64 // the rectangle of the root; 0 means 1
	// Padding and Header leave room around the children of every group
	// below the root (see NestedOptions); Inset, when not nil, replaces
	// them.
	Padding, Header float64
	Inset           func(node int32, depth int, r Rect) Rect
	// Root is the hierarchy node at the top of the map; 0 (the default)
	// is the whole hierarchy.
	Root int32
	// Cancel, once closed, stops OfPartition, which returns
	// trace.ErrComputationCanceled and no map. Nil: never.
	Cancel <-chan struct{}
}

// Cell is one rectangle of the treemap of an aggregation.
type Cell struct {
	Node   int32 // hierarchy node
	Parent int32 // index of the enclosing cell; -1 for the root
	// Aggregated: the node is an aggregate of the partition (for the
	// spatiotemporal kind, over some time range).
	Aggregated bool
	// Group: the node's children are shown inside it, because aggregates
	// of the partition lie below it.
	Group bool
	Value float64 // the measure of its area (Options.Value)
	Rect
	Mode           int     // the state with the largest mean value over the window
	ModeProportion float64 // that mean value (for proportions, the mode's share of the time)
}

// Map is the treemap of an aggregation: the aggregates of a partition as
// rectangles nested inside the rectangles of their ancestors.
type Map struct {
	Model *micro.Model
	Value Value
	Root  int32
	// Bounds is the root's rectangle: (0, 0, Width, Height).
	Bounds Rect
	// First and Last are the slices (inclusive) the colours and the
	// activity cover: the window of a spatial aggregation, the whole model
	// otherwise.
	First, Last int32
	// Cells in preorder: a group's cells follow it.
	Cells []Cell
	// Means holds the mean value of every state over each cell's resources
	// and window, at [cell*len(Model.States)+state].
	Means []float64
	// Hidden counts the nodes that would be shown but have no area (a
	// value of zero: resources without any state in the window, when the
	// measure is the activity).
	Hidden int
}

// OfPartition lays out the treemap of partition part of model m (Lamarche-Perrin et al.
// 2014, section 5): every aggregate is a rectangle whose area is
// proportional to its value (by default its number of resources), nested
// inside the rectangles of its ancestors in the hierarchy, squarified at
// every level (see Nested).
//
// The nodes shown are the aggregates and their ancestors up to the root of
// the map. For a spatial aggregation that is a cut of the hierarchy; for a
// spatiotemporal one, a node aggregated over some time range and split
// into its children over another is shown as a group whose children are
// shown, and the colours and values cover the whole window. Nodes of value
// zero get no rectangle (they are counted in Hidden). When the root of the
// map lies inside an aggregate, the map is that one node.
func OfPartition(m *micro.Model, part *aggregate.Partition, opt Options) (*Map, error) {
	if m == nil || m.Tree == nil || m.Tree.Len() == 0 {
		return nil, errs.Argument("model", "the model is empty")
	}
	if part == nil || len(part.Parts) == 0 {
		return nil, errs.Argument("aggregation", "the partition lists no aggregates")
	}
	tree := m.Tree
	if opt.Value == "" {
		opt.Value = Leaves
	}
	if _, err := ParseValue(string(opt.Value)); err != nil {
		return nil, err
	}
	if opt.Value == Activity {
		switch m.Metric {
		case "", micro.StateDuration, micro.EventCount:
		default:
			return nil, errs.Argument("value", "\"activity\" adds up state durations or event counts; this model measures %s (use \"leaves\")", m.Metric)
		}
	}
	if opt.Width == 0 {
		opt.Width = 1
	}
	if opt.Height == 0 {
		opt.Height = 1
	}
	bounds := Rect{W: opt.Width, H: opt.Height}
	if err := bounds.check("width"); err != nil || opt.Width <= 0 || opt.Height <= 0 {
		return nil, errs.Argument("width", "the treemap needs a positive finite width and height, got %v x %v", opt.Width, opt.Height)
	}
	root := opt.Root
	if root < 0 || int(root) >= tree.Len() {
		return nil, errs.Argument("root", "node %d is not in the hierarchy (%d nodes)", root, tree.Len())
	}
	states := len(m.States)
	if m.Cells != nil {
		if err := m.Cells.Check(tree.NumLeaves(0)*m.Slices, states); err != nil {
			return nil, errs.Argument("model", "%d leaves x %d slices x %d states: %v", tree.NumLeaves(0), m.Slices, states, err)
		}
	} else if want := tree.NumLeaves(0) * m.Slices * states; len(m.Values) != want {
		return nil, errs.Argument("model", "%d values for %d leaves x %d slices x %d states", len(m.Values), tree.NumLeaves(0), m.Slices, states)
	}
	// Nodes of root's subtree have local ids v - root, from 0 to n-1, in
	// preorder.
	n := int(tree.End[root] - root)
	local := func(v int32) int32 { return v - root }

	// The nodes shown: every aggregate under root and its ancestors up to
	// root.
	shown := make([]bool, n)
	aggregated := make([]bool, n)
	// The first look is at once: a closed channel lays out nothing.
	look := &trace.Looker{Cancel: opt.Cancel}
	if err := look.Stopped(0); err != nil {
		return nil, err
	}
	first, last := int32(m.Slices), int32(-1)
	for _, p := range part.Parts {
		if err := look.Stopped(1); err != nil {
			return nil, err
		}
		if p.Node < 0 || int(p.Node) >= tree.Len() || p.First < 0 || p.Last < p.First || int(p.Last) >= m.Slices {
			return nil, errs.Argument("aggregation", "aggregate %+v does not fit the model", p)
		}
		first, last = min(first, p.First), max(last, p.Last)
		if p.Node < root || p.Node >= tree.End[root] {
			continue
		}
		aggregated[local(p.Node)] = true
		for v := p.Node; !shown[local(v)]; v = tree.Parent[v] {
			shown[local(v)] = true
			if v == root {
				break
			}
		}
	}
	shown[0] = true
	children := make([][]int32, n)
	for l := 1; l < n; l++ {
		if shown[l] {
			p := local(tree.Parent[int32(l)+root])
			children[p] = append(children[p], int32(l))
		}
	}

	// Sums of every state over the window, children before parents.
	sums := make([]float64, n*states)
	activity := make([]float64, n)
	weight := make([]float64, m.Slices) // per slice: seconds for durations, 1 otherwise
	for k := range weight {
		weight[k] = 1
		if m.Metric == "" || m.Metric == micro.StateDuration {
			weight[k] = (m.SliceStart(k+1) - m.SliceStart(k)).Seconds()
		}
	}
	for l := n - 1; l >= 0; l-- {
		if err := look.Stopped(1); err != nil {
			return nil, err
		}
		if !shown[l] {
			continue
		}
		s := sums[l*states:][:states]
		// Groups add up their children's sums, except aggregates, whose
		// means are summed like the aggregation's own table (leaf by leaf,
		// slice by slice) so that both name the same mode, bit for bit.
		if kids := children[l]; len(kids) > 0 && !aggregated[l] {
			for _, c := range kids {
				for x, y := range sums[int(c)*states:][:states] {
					s[x] += y
				}
				activity[l] += activity[c]
			}
			continue
		}
		v := int32(l) + root
		for leaf := tree.LeafLo[v]; leaf < tree.LeafHi[v]; leaf++ {
			if err := look.Stopped(int(last - first + 1)); err != nil {
				return nil, err
			}
			for k := first; k <= last; k++ {
				var a float64
				if m.Cells != nil { // the same sums without the zeros
					xs, ys := m.Cells.Cell(int(leaf)*m.Slices + int(k))
					for i, x := range xs {
						s[x] += ys[i]
						a += ys[i]
					}
				} else {
					for x, y := range m.Values[(int(leaf)*m.Slices+int(k))*states:][:states] {
						s[x] += y
						a += y
					}
				}
				activity[l] += a * weight[k]
			}
		}
	}
	leafValue := make([]float64, n)
	for l := range n {
		if shown[l] && len(children[l]) == 0 {
			if opt.Value == Leaves {
				leafValue[l] = float64(tree.NumLeaves(int32(l) + root))
			} else {
				leafValue[l] = max(activity[l], 0)
			}
		}
	}
	nopt := NestedOptions{Padding: opt.Padding, Header: opt.Header}
	if opt.Inset != nil {
		nopt.Inset = func(l int32, depth int, r Rect) Rect { return opt.Inset(l+root, depth, r) }
	}
	if err := trace.Stopped(opt.Cancel); err != nil {
		return nil, err
	}
	rects, values, err := Nested(children, leafValue, 0, bounds, nopt)
	if err != nil {
		return nil, err
	}
	if err := trace.Stopped(opt.Cancel); err != nil {
		return nil, err
	}

	tm := &Map{Model: m, Value: opt.Value, Root: root, Bounds: bounds, First: first, Last: last}
	index := make([]int32, n)
	cells := int32(0)
	for l := range n {
		index[l] = -1
		if !shown[l] {
			continue
		}
		if values[l] == 0 || (l > 0 && index[local(tree.Parent[int32(l)+root])] < 0) {
			tm.Hidden++
			continue
		}
		index[l] = cells
		cells++
	}
	tm.Cells = make([]Cell, 0, cells)
	tm.Means = make([]float64, int(cells)*states)
	window := float64(last - first + 1)
	for l := range n {
		if err := look.Stopped(1); err != nil {
			return nil, err
		}
		i := index[l]
		if i < 0 {
			continue
		}
		v := int32(l) + root
		parent := int32(-1)
		if l > 0 {
			parent = index[local(tree.Parent[v])]
		}
		means := tm.Means[int(i)*states:][:states]
		size := float64(tree.NumLeaves(v)) * window
		for x, y := range sums[l*states:][:states] {
			means[x] = y / size
		}
		mode, prop := aggregate.Mode(means)
		tm.Cells = append(tm.Cells, Cell{
			Node: v, Parent: parent, Aggregated: aggregated[l], Group: len(children[l]) > 0,
			Value: values[l], Rect: rects[l], Mode: mode, ModeProportion: prop,
		})
	}
	return tm, nil
}

// CellMeans returns the mean value of every state of cell i.
func (tm *Map) CellMeans(i int) []float64 {
	s := len(tm.Model.States)
	return tm.Means[i*s : (i+1)*s]
}

// NodeByPath finds the node of t whose path (names from the root's child
// down, joined by sep, as hier.Tree.Path gives them) is path. The root's
// path is its own name, or empty.
func NodeByPath(t *hier.Tree, path, sep string) (int32, error) {
	if path == "" || path == t.Names[0] {
		return 0, nil
	}
	v := int32(0)
	for _, name := range strings.Split(path, sep) {
		next := int32(-1)
		for _, c := range t.Children[v] {
			if t.Names[c] == name {
				next = c
				break
			}
		}
		if next < 0 {
			v = -1
			break
		}
		v = next
	}
	if v > 0 {
		return v, nil
	}
	// Names containing the separator: compare whole paths.
	for u := int32(1); u < int32(t.Len()); u++ {
		if t.Path(u, sep) == path {
			return u, nil
		}
	}
	return 0, errs.Argument("root", "no node of the hierarchy has the path %q", path)
}
