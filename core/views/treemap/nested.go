package treemap

import (
	"fmt"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// NestedOptions set the room a group leaves around its children.
type NestedOptions struct {
	// Padding is the space between a group's border and its children, on
	// every side, and Header extra space at the top of a group (for its
	// label), in the units of the rectangle. Neither applies to the root
	// of the layout. A group too small for them gets less: the insets
	// never take more than half of its width or of its height, so that
	// padding cannot swallow a group.
	Padding, Header float64
	// Inset, when not nil, replaces Padding and Header: it returns the
	// rectangle a group's children fill, given the group's rectangle and
	// its depth below the root of the layout (1 for the root's children).
	// The result is clipped to r.
	Inset func(node int32, depth int, r Rect) Rect
}

func (o NestedOptions) inner(node int32, depth int, r Rect) Rect {
	if depth == 0 {
		return r
	}
	if o.Inset != nil {
		return clip(o.Inset(node, depth, r), r)
	}
	return Pad(r, o.Padding, o.Header)
}

// Pad returns r shrunk by padding on every side and by header more at the
// top. When that would take more than half of r's width (height), the
// horizontal (vertical) insets are scaled down to take exactly half.
func Pad(r Rect, padding, header float64) Rect {
	padding, header = max(padding, 0), max(header, 0)
	px := padding
	if 2*px > r.W/2 {
		px = r.W / 4
	}
	py, hd := padding, header
	if v := 2*py + hd; v > r.H/2 {
		f := r.H / 2 / v
		py, hd = py*f, hd*f
	}
	return Rect{X: r.X + px, Y: r.Y + py, W: r.W - 2*px, H: r.H - 2*py - hd}
}

// clip returns the part of o inside r (a zero-size rectangle at r's
// corner when they do not meet, or when o is not finite).
func clip(o, r Rect) Rect {
	x0, y0 := max(o.X, r.X), max(o.Y, r.Y)
	x1, y1 := min(o.X+o.W, r.X+r.W), min(o.Y+o.H, r.Y+r.H)
	if !(x1 > x0 && y1 > y0) { // also NaN
		return Rect{X: r.X, Y: r.Y}
	}
	return Rect{X: x0, Y: y0, W: x1 - x0, H: y1 - y0}
}

// Nested lays out the subtree of root as a nested squarified treemap in r.
// children[n] lists the children of node n (node ids are indices of
// children); a node without children is a leaf of value leafValue[n], and
// a group's value is the sum of its children's. Each group's children are
// squarified (see Squarify) in the group's inner rectangle (see
// NestedOptions): without padding, every node's area is exactly its share
// of r, and the areas of a group's children add up to the group's.
//
// It returns the rectangle and the value of every node of the subtree
// (other nodes get zero). Nodes of value zero, and everything below them,
// get zero-size rectangles at their container's inner corner. A leaf
// value that is NaN, infinite or negative, a child id out of range, or a
// node reached twice (not a tree) is an *errs.ArgumentError.
func Nested(children [][]int32, leafValue []float64, root int32, r Rect, opt NestedOptions) (rects []Rect, values []float64, err error) {
	if err := r.check("rect"); err != nil {
		return nil, nil, err
	}
	n := len(children)
	if root < 0 || int(root) >= n {
		return nil, nil, errs.Argument("root", "node %d is not in the tree (%d nodes)", root, n)
	}
	if len(leafValue) != n {
		return nil, nil, errs.Argument("values", "%d values for %d nodes", len(leafValue), n)
	}
	// Preorder of the subtree, with depths below root.
	order := make([]int32, 0, 64)
	depth := make([]int32, n)
	seen := make([]bool, n)
	stack := []int32{root}
	seen[root] = true
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		order = append(order, v)
		kids := children[v]
		for k := len(kids) - 1; k >= 0; k-- {
			c := kids[k]
			if c < 0 || int(c) >= n {
				return nil, nil, errs.Argument("children", "node %d has a child %d out of range (%d nodes)", v, c, n)
			}
			if seen[c] {
				return nil, nil, errs.Argument("children", "node %d is reached twice: the nodes do not form a tree", c)
			}
			seen[c] = true
			depth[c] = depth[v] + 1
			stack = append(stack, c)
		}
	}
	values = make([]float64, n)
	for k := len(order) - 1; k >= 0; k-- {
		v := order[k]
		if len(children[v]) == 0 {
			x := leafValue[v]
			if err := checkValue(x, func() string { return fmt.Sprintf("value of leaf %d", v) }); err != nil {
				return nil, nil, err
			}
			values[v] = x
			continue
		}
		var s float64
		for _, c := range children[v] {
			s += values[c]
		}
		values[v] = s
	}
	rects = make([]Rect, n)
	rects[root] = r
	if values[root] == 0 {
		rects[root] = Rect{X: r.X, Y: r.Y}
	}
	var l layouter
	var items []int32
	for _, v := range order {
		kids := children[v]
		if len(kids) == 0 {
			continue
		}
		in := Rect{X: rects[v].X, Y: rects[v].Y}
		if values[v] > 0 {
			in = opt.inner(v, int(depth[v]), rects[v])
		}
		items = items[:0]
		for _, c := range kids {
			rects[c] = Rect{X: in.X, Y: in.Y}
			if values[c] > 0 {
				items = append(items, c)
			}
		}
		if in.W <= 0 || in.H <= 0 {
			continue
		}
		sortItems(items, values)
		l.layout(items, values, in, rects, nil)
	}
	return rects, values, nil
}
