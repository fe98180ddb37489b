package aggregate

import (
	"slices"
	"sync"
)

// Listing the parts an optimal solution's decisions lead to.
//
// A node is handed, by its parent, the pieces of time over which the
// parent is split (the whole range for the root). It cuts each piece in
// time where its decisions say so; each resulting piece is either an
// aggregate of the node or handed to every child. Visiting nodes depth
// first, children in order, lists the aggregates by node in preorder, then
// by time: the order of Partition.Parts. The subtrees below the top few
// levels are walked on all cores, once to count their parts and once to
// write them in place.

// span is a piece of time, slices i..j.
type span struct{ i, j int32 }

// walker walks decisions depth first, with one list of pieces per depth
// (reused from node to node).
type walker struct {
	s      *Spatiotemporal
	dec    []nodeDecisions
	levels [][]span
	cuts   []span
}

// piecesOf returns the pieces node n, whose decisions are d, cuts span b
// into, in time order (in w.cuts, until the next call).
func (w *walker) piecesOf(d nodeDecisions, b span) []span {
	// best(i,j) is best(i,c-1) then the piece [c..j]: last first.
	w.cuts = w.cuts[:0]
	i, j := int(b.i), int(b.j)
	for {
		c := d.cutAt(triIndex(i, j), w.s.width)
		if c == 0 {
			w.cuts = append(w.cuts, span{int32(i), int32(j)})
			break
		}
		w.cuts = append(w.cuts, span{int32(c), int32(j)})
		j = c - 1
	}
	slices.Reverse(w.cuts)
	return w.cuts
}

// pieces calls f for every piece node n makes of the spans it is handed,
// in time order, telling whether the piece is split into the children.
func (w *walker) pieces(n int32, in []span, f func(sp span, split bool)) {
	d := w.dec[n]
	for _, b := range in {
		for _, sp := range w.piecesOf(d, b) {
			f(sp, d.splitAt(triIndex(int(sp.i), int(sp.j))))
		}
	}
}

// level returns the list of pieces for the children of a node at depth,
// emptied: one per depth, reused from node to node.
func (w *walker) level(depth int) []span {
	for len(w.levels) <= depth {
		w.levels = append(w.levels, nil)
	}
	return w.levels[depth][:0]
}

// count returns the number of aggregates of n's subtree, n being handed
// in: walk's count, without its order or a call per aggregate (listParts
// counts tens of millions of them to place each subtree's).
func (w *walker) count(n int32, in []span) int {
	t := w.s.in.Tree
	d := w.dec[n]
	depth := int(t.Depth[n])
	split := w.level(depth)
	parts := 0
	for _, b := range in {
		for _, sp := range w.piecesOf(d, b) {
			if d.splitAt(triIndex(int(sp.i), int(sp.j))) {
				split = append(split, sp)
			} else {
				parts++
			}
		}
	}
	w.levels[depth] = split
	if len(split) > 0 {
		for _, c := range t.Children[n] {
			parts += w.count(c, split)
		}
	}
	return parts
}

// write sets out[x], out[x+1]... to the aggregates of n's subtree, n being
// handed in, in walk's order, with their gain and loss; it returns the
// index after the last.
func (w *walker) write(n int32, in []span, out []Part, x int) int {
	t := w.s.in.Tree
	d := w.dec[n]
	depth := int(t.Depth[n])
	split := w.level(depth)
	for _, b := range in {
		for _, sp := range w.piecesOf(d, b) {
			if d.splitAt(triIndex(int(sp.i), int(sp.j))) {
				split = append(split, sp)
				continue
			}
			g, l := w.s.PartQuality(n, int(sp.i), int(sp.j))
			out[x] = Part{Node: n, First: sp.i, Last: sp.j, Gain: g, Loss: l}
			x++
		}
	}
	w.levels[depth] = split
	if len(split) > 0 {
		for _, c := range t.Children[n] {
			x = w.write(c, split, out, x)
		}
	}
	return x
}

// walk calls emit for every aggregate of n's subtree, n being handed in.
func (w *walker) walk(n int32, in []span, emit func(n int32, i, j int)) {
	t := w.s.in.Tree
	depth := int(t.Depth[n])
	split := w.level(depth)
	w.pieces(n, in, func(sp span, isSplit bool) {
		if isSplit {
			split = append(split, sp)
		} else {
			emit(n, int(sp.i), int(sp.j))
		}
	})
	w.levels[depth] = split
	if len(split) == 0 {
		return
	}
	for _, c := range t.Children[n] {
		w.walk(c, split, emit)
	}
	w.levels[depth] = split // the children may have grown other levels only
}

// walkDecisions calls emit for every aggregate the decisions lead to, by
// node in preorder, then by time (the order of Partition.Parts).
func (s *Spatiotemporal) walkDecisions(dec []nodeDecisions, emit func(n int32, i, j int)) {
	w := &walker{s: s, dec: dec}
	w.walk(0, []span{{0, int32(s.in.Slices - 1)}}, emit)
}

// segment is a part of the list of aggregates: the own aggregates of a
// node above the subtrees walked in parallel (sub false), or all those of
// such a subtree.
type segment struct {
	n   int32
	sub bool
	in  []span // what n is handed
	own []Part // the aggregates of n when !sub
	len int    // the number of aggregates
}

// listParts returns the aggregates the decisions lead to, in the order of
// Partition.Parts, with their gain and loss, walking subtrees on up to
// workers goroutines (measuring each part as it is written saves a pass
// over tens of millions of them).
//
// When arena is not nil, the decisions of each subtree walked in parallel
// are released from it once its parts are written.
func (s *Spatiotemporal) listParts(dec []nodeDecisions, workers int, ctl *Control, arena *decisionArena) ([]Part, error) {
	t := s.in.Tree
	// Walk the top levels until there are enough subtrees to share out.
	w := &walker{s: s, dec: dec}
	var segs []segment
	frontier := []segment{{n: 0, sub: true, in: []span{{0, int32(s.in.Slices - 1)}}}}
	for len(frontier) < 8*workers {
		var next []segment
		grew := false
		for _, f := range frontier {
			if !f.sub || t.IsLeaf(f.n) || len(f.in) == 0 {
				next = append(next, f)
				continue
			}
			grew = true
			own := segment{n: f.n}
			var split []span
			w.pieces(f.n, f.in, func(sp span, isSplit bool) {
				if isSplit {
					split = append(split, sp)
				} else {
					own.own = append(own.own, Part{Node: f.n, First: sp.i, Last: sp.j})
				}
			})
			own.len = len(own.own)
			next = append(next, own)
			for _, c := range t.Children[f.n] {
				next = append(next, segment{n: c, sub: true, in: split})
			}
		}
		frontier = next
		if !grew {
			break
		}
	}
	segs = frontier
	// Segments in preorder: a node's own aggregates before its subtrees'.
	slices.SortStableFunc(segs, func(a, b segment) int { return int(a.n) - int(b.n) })

	forEach := func(f func(k int, w *walker)) {
		var wg sync.WaitGroup
		next := make(chan int, len(segs))
		for k := range segs {
			next <- k
		}
		close(next)
		for range min(workers, len(segs)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				w := &walker{s: s, dec: dec}
				for k := range next {
					if ctl.canceled() {
						continue
					}
					f(k, w)
				}
			}()
		}
		wg.Wait()
	}
	forEach(func(k int, w *walker) {
		if sg := &segs[k]; sg.sub && len(sg.in) > 0 {
			sg.len = w.count(sg.n, sg.in)
		}
	})
	if ctl.canceled() {
		return nil, ErrCanceled
	}
	total := 0
	for _, sg := range segs {
		total += sg.len
	}
	parts := make([]Part, total)
	offsets := make([]int, len(segs))
	for k, off := 0, 0; k < len(segs); k++ {
		offsets[k] = off
		off += segs[k].len
	}
	forEach(func(k int, w *walker) {
		sg := &segs[k]
		out := parts[offsets[k] : offsets[k]+sg.len]
		if !sg.sub {
			for x, pt := range sg.own {
				pt.Gain, pt.Loss = s.PartQuality(pt.Node, int(pt.First), int(pt.Last))
				out[x] = pt
			}
			return
		}
		defer arena.release(sg.n, t.End[sg.n])
		if len(sg.in) == 0 {
			return
		}
		w.write(sg.n, sg.in, out, 0)
	})
	if ctl.canceled() {
		return nil, ErrCanceled
	}
	return parts, nil
}
