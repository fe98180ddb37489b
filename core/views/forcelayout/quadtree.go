package forcelayout

import "math"

// maxDepth bounds the quadtree: points closer than the root's side over
// 2^maxDepth share a leaf (a bucket), which keeps coincident points from
// subdividing forever.
const maxDepth = 48

// leafSize is the number of points a leaf holds before it splits. Larger
// leaves trade cells opened for pairs summed; on g5k's graph they lose
// (18 ms of CPU an iteration with 1 point a leaf, 24 ms with 8).
const leafSize = 1

// quadtree is a Barnes-Hut quadtree over the nodes' positions. Each cell
// keeps the total charge of the points below it and their
// charge-weighted centre; a leaf keeps its points (up to leafSize, more
// at maxDepth) in a linked list.
type quadtree struct {
	cells []cell
	next  []int32 // next point in the same leaf, -1 at the end
}

type cell struct {
	cx, cy, half float64  // centre and half side of the square
	q            float64  // total charge below
	mx, my       float64  // charge-weighted sums of x and y, then the centre
	kids         [4]int32 // children (0 where absent); all 0 for a leaf
	first        int32    // first point of a leaf, -1 if none
	count        int32    // points below
	depth        int32
}

func (c *cell) leaf() bool { return c.kids == [4]int32{} }

// build fills the tree with the points x, y of charges q (nil: 1 each).
func (t *quadtree) build(x, y, q []float64) {
	n := len(x)
	t.cells = t.cells[:0]
	if n == 0 {
		t.cells = append(t.cells, cell{first: -1})
		return
	}
	if cap(t.next) < n {
		t.next = make([]int32, n)
	}
	t.next = t.next[:n]
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for i := range n {
		minX, maxX = math.Min(minX, x[i]), math.Max(maxX, x[i])
		minY, maxY = math.Min(minY, y[i]), math.Max(maxY, y[i])
	}
	half := math.Max(maxX-minX, maxY-minY)/2*(1+1e-9) + 1e-9
	t.cells = append(t.cells, cell{cx: (minX + maxX) / 2, cy: (minY + maxY) / 2, half: half, first: -1})
	for i := range n {
		t.insert(int32(i), x, y)
	}
	// Charges and centres, children before parents (children always come
	// after their parent in cells).
	for c := len(t.cells) - 1; c >= 0; c-- {
		cl := &t.cells[c]
		cl.q, cl.mx, cl.my, cl.count = 0, 0, 0, 0
		if cl.leaf() {
			for p := cl.first; p >= 0; p = t.next[p] {
				w := charge(q, p)
				cl.q += w
				cl.mx += w * x[p]
				cl.my += w * y[p]
				cl.count++
			}
		} else {
			for _, k := range cl.kids {
				if k != 0 {
					kc := &t.cells[k]
					cl.q += kc.q
					cl.mx += kc.mx
					cl.my += kc.my
					cl.count += kc.count
				}
			}
		}
	}
	for c := range t.cells {
		cl := &t.cells[c]
		if cl.q != 0 {
			cl.mx /= cl.q
			cl.my /= cl.q
		} else {
			cl.mx, cl.my = cl.cx, cl.cy
		}
	}
}

func charge(q []float64, i int32) float64 {
	if q == nil {
		return 1
	}
	return q[i]
}

// quadrant returns which child of c holds (x, y): bit 0 east, bit 1 north.
func (c *cell) quadrant(x, y float64) int {
	k := 0
	if x >= c.cx {
		k |= 1
	}
	if y >= c.cy {
		k |= 2
	}
	return k
}

func (t *quadtree) child(c int32, k int) int32 {
	if id := t.cells[c].kids[k]; id != 0 {
		return id
	}
	p := t.cells[c]
	h := p.half / 2
	nc := cell{cx: p.cx - h, cy: p.cy - h, half: h, first: -1, depth: p.depth + 1}
	if k&1 != 0 {
		nc.cx = p.cx + h
	}
	if k&2 != 0 {
		nc.cy = p.cy + h
	}
	id := int32(len(t.cells))
	t.cells = append(t.cells, nc)
	t.cells[c].kids[k] = id
	return id
}

func (t *quadtree) insert(i int32, x, y []float64) {
	c := int32(0)
	for {
		cl := &t.cells[c]
		if !cl.leaf() {
			c = t.child(c, cl.quadrant(x[i], y[i]))
			continue
		}
		if cl.count < leafSize || cl.depth >= maxDepth {
			t.next[i] = cl.first
			cl.first = i
			cl.count++
			return
		}
		// A full leaf splits: its points move down one level (a child
		// receiving them all splits in turn when the new point comes).
		moved := cl.first
		cl.first, cl.count = -1, 0
		for p := moved; p >= 0; {
			nx := t.next[p]
			d := t.child(c, t.cells[c].quadrant(x[p], y[p]))
			t.next[p] = t.cells[d].first
			t.cells[d].first = p
			t.cells[d].count++
			p = nx
		}
		c = t.child(c, t.cells[c].quadrant(x[i], y[i]))
	}
}

// contains tells whether (x, y) lies in c's square, borders included.
func (c *cell) contains(x, y float64) bool {
	return math.Abs(x-c.cx) <= c.half && math.Abs(y-c.cy) <= c.half
}
