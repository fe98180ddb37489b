package kaleido

import (
	"math"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Options set the window a tree is laid out in and the part shown.
type Options struct {
	// Width is the window width w in pixels.
	Width float64
	// LevelSpacing is the distance d between levels in pixels; 0 chooses
	// the largest whole number of pixels that fits the view in the window
	// (floor(w / 2h)), at least 4 for the whole tree, whose taller trees
	// are then level-condensed; a subtree view too tall for one pixel per
	// level gets w / 2h exactly.
	LevelSpacing float64
	// Subtree is the node at the centre of the view; 0, the root, shows
	// the whole tree. Subtree views are not level-condensed.
	Subtree int32
	// MinSector is the node-condensing threshold in pixels: a node whose
	// sector is narrower along its circle is drawn without descendants.
	// 0 means 1, the paper's one pixel.
	MinSector float64
	// Cancel, once closed, stops Layout between its steps: it returns
	// trace.ErrComputationCanceled and no layout. Nil: never.
	Cancel <-chan struct{}
}

// Layout is a tree laid out in a window. Per-node slices are indexed by
// the position i of a node in the view, node Root+i, for i in [0, Len()).
type Layout struct {
	Tree       *Tree
	Root       int32 // the node at the centre
	Width      float64
	Spacing    float64 // d, pixels between levels
	MinSector  float64
	Condensing Condensing // Height is the view's height; never active for a subtree view
	Levels     int        // height of the displayed (condensed) tree

	Kept        []bool    // survives level condensing
	Level       []int32   // displayed level; None when condensed away
	ShownParent []int32   // position of the nearest kept proper ancestor; None for the root
	Weight      []int64   // weight; 0 when condensed away
	Sector      []float64 // start angle in degrees; NaN when condensed away
	Extent      []float64 // allocated angle in degrees; NaN when condensed away
	X, Y        []float64 // pixels from the centre, y up; NaN when condensed away
	Drawn       []bool    // kept and not below a node-condensed node
	Collapsed   []bool    // drawn without its descendants (node condensing)

	// Displayed children of each position, in order (CSR).
	childOff []int32
	child    []int32

	NumKept, NumDrawn, NumCollapsed int
}

// Len returns the number of nodes in the view.
func (l *Layout) Len() int { return len(l.Kept) }

// ShownChildren returns the positions of the displayed children of
// position i, in angular order.
func (l *Layout) ShownChildren(i int32) []int32 { return l.child[l.childOff[i]:l.childOff[i+1]] }

// Layout lays the tree out: level condensing (whole tree only), weights,
// sectors, positions and node condensing.
func (t *Tree) Layout(opt Options) (*Layout, error) {
	if opt.Subtree < 0 || int(opt.Subtree) >= t.Len() {
		return nil, errs.Argument("subtree", "no node %d in a tree of %d nodes", opt.Subtree, t.Len())
	}
	if !(opt.MinSector >= 0) || math.IsInf(opt.MinSector, 0) {
		return nil, errs.Argument("min_sector", "must be a non-negative number of pixels, got %v", opt.MinSector)
	}
	if opt.MinSector == 0 {
		opt.MinSector = 1
	}
	r := opt.Subtree
	n := int(t.End[r] - r)
	base := t.Depth[r]
	h := 0
	for v := r; v < t.End[r]; v++ {
		h = max(h, int(t.Depth[v]-base)+1)
	}
	d := opt.LevelSpacing
	if d == 0 && opt.Width > 0 {
		d = autoSpacing(opt.Width, h, r == 0)
	}
	cond, err := PlanCondensing(h, opt.Width, d)
	if err != nil {
		return nil, err
	}
	if r != 0 {
		cond.Active, cond.C0, cond.Threshold = false, 0, 0
	}
	l := &Layout{
		Tree: t, Root: r, Width: opt.Width, Spacing: d, MinSector: opt.MinSector, Condensing: cond,
		Kept: make([]bool, n), Level: make([]int32, n), ShownParent: make([]int32, n), Weight: make([]int64, n),
		Sector: make([]float64, n), Extent: make([]float64, n), X: make([]float64, n), Y: make([]float64, n),
		Drawn: make([]bool, n), Collapsed: make([]bool, n),
	}
	for _, step := range []func(){func() { l.condenseLevels(cond.DisplayedLevels()) }, l.weigh, l.allocate, l.place, l.condenseNodes} {
		if err := trace.Stopped(opt.Cancel); err != nil {
			return nil, err
		}
		step()
	}
	if err := trace.Stopped(opt.Cancel); err != nil {
		return nil, err
	}
	return l, nil
}

func autoSpacing(w float64, h int, whole bool) float64 {
	d := math.Floor(w / (2 * float64(h)))
	switch {
	case whole:
		return max(d, 4)
	case d < 1:
		return w / (2 * float64(h))
	}
	return d
}

// condenseLevels keeps the nodes of kept levels and hangs each from its
// nearest kept ancestor.
func (l *Layout) condenseLevels(displayed []int32) {
	t, r := l.Tree, l.Root
	base := t.Depth[r]
	for i := range l.Kept {
		v := r + int32(i)
		l.Level[i] = displayed[t.Depth[v]-base]
		l.Kept[i] = l.Level[i] != None
		if l.Kept[i] {
			l.NumKept++
			l.Levels = max(l.Levels, int(l.Level[i])+1)
		}
		if i == 0 {
			l.ShownParent[i] = None
			continue
		}
		p := t.Parent[v] - r // earlier in preorder, so already done
		if l.Kept[p] {
			l.ShownParent[i] = p
		} else {
			l.ShownParent[i] = l.ShownParent[p]
		}
	}
	// Displayed children in preorder, which is left to right.
	n := len(l.Kept)
	l.childOff = make([]int32, n+1)
	for i := 1; i < n; i++ {
		if l.Kept[i] {
			l.childOff[l.ShownParent[i]+1]++
		}
	}
	for i := range n {
		l.childOff[i+1] += l.childOff[i]
	}
	l.child = make([]int32, l.childOff[n])
	fill := make([]int32, n)
	copy(fill, l.childOff[:n])
	for i := 1; i < n; i++ {
		if l.Kept[i] {
			p := l.ShownParent[i]
			l.child[fill[p]] = int32(i)
			fill[p]++
		}
	}
}

// height is the height of a displayed node: the displayed tree's height
// minus its level.
func (l *Layout) height(i int) int64 { return int64(l.Levels) - int64(l.Level[i]) }

// weigh computes w(node) = height(node) + sum of the children's weights,
// children first (reverse preorder).
func (l *Layout) weigh() {
	for i := len(l.Kept) - 1; i >= 0; i-- {
		if !l.Kept[i] {
			continue
		}
		l.Weight[i] += l.height(i)
		if i > 0 {
			l.Weight[l.ShownParent[i]] += l.Weight[i]
		}
	}
}

// allocate gives the root (0, 360) and each child w(child) / (sum of its
// siblings' weights) of its parent's extent, siblings side by side.
func (l *Layout) allocate() {
	for i := range l.Kept {
		if !l.Kept[i] {
			l.Sector[i], l.Extent[i] = math.NaN(), math.NaN()
		}
	}
	l.Sector[0], l.Extent[0] = 0, 360
	for i := range l.Kept {
		kids := l.ShownChildren(int32(i))
		if !l.Kept[i] || len(kids) == 0 {
			continue
		}
		total := float64(l.Weight[i] - l.height(i)) // the children's weights
		s, a := l.Sector[i], l.Extent[i]
		for _, c := range kids {
			l.Sector[c] = s
			l.Extent[c] = float64(l.Weight[c]) / total * a
			s += l.Extent[c]
		}
	}
}

// place puts each node at radius d l and angle s + a/2.
func (l *Layout) place() {
	for i := range l.Kept {
		switch {
		case !l.Kept[i]:
			l.X[i], l.Y[i] = math.NaN(), math.NaN()
		case l.Level[i] == 0:
			l.X[i], l.Y[i] = 0, 0
		default:
			rad := l.Spacing * float64(l.Level[i])
			theta := (l.Sector[i] + l.Extent[i]/2) * math.Pi / 180
			l.X[i], l.Y[i] = rad*math.Cos(theta), rad*math.Sin(theta)
		}
	}
}

// Arc returns the width in pixels of position i's sector along its own
// circle: a * pi/180 * d * l.
func (l *Layout) Arc(i int32) float64 {
	return l.Extent[i] * math.Pi / 180 * l.Spacing * float64(l.Level[i])
}

// condenseNodes hides the descendants of every drawn node whose sector is
// narrower than MinSector pixels along its circle.
func (l *Layout) condenseNodes() {
	for i := range l.Kept {
		if !l.Kept[i] {
			continue
		}
		if i > 0 {
			p := l.ShownParent[i]
			if !l.Drawn[p] || l.Collapsed[p] {
				continue
			}
		}
		l.Drawn[i] = true
		l.NumDrawn++
		if l.Level[i] > 0 && len(l.ShownChildren(int32(i))) > 0 && l.Arc(int32(i)) < l.MinSector {
			l.Collapsed[i] = true
			l.NumCollapsed++
		}
	}
}

// MaxRadius returns the radius of the outermost drawn node.
func (l *Layout) MaxRadius() float64 {
	r := 0.0
	for i, ok := range l.Drawn {
		if ok {
			r = max(r, l.Spacing*float64(l.Level[i]))
		}
	}
	return r
}
