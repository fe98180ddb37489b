package aggregate

// nodeDecisions records how the optimum of every interval of one node was
// reached, in as little memory as a million-node hierarchy needs:
//
//   - cut holds, per interval (triangular index), 0 when the interval is
//     not cut in time, or c+1 when it is cut after slice c; one byte per
//     interval when there are at most 256 slices, two otherwise (little
//     endian).
//   - split holds one bit per interval, set when the node is split into
//     its children over the interval rather than aggregated; nil for a
//     leaf, which cannot be split.
//
// Blocks are immutable once the node is solved, so solutions for nearby
// values of p can share them (see sweep.go).
type nodeDecisions struct {
	cut   []byte
	split []uint64
}

// cutWidth returns the bytes per interval that cut values need for a
// model of T slices.
func cutWidth(T int) int {
	if T <= 256 {
		return 1
	}
	return 2
}

func (d nodeDecisions) cutAt(k, width int) int {
	if width == 1 {
		return int(d.cut[k])
	}
	return int(d.cut[2*k]) | int(d.cut[2*k+1])<<8
}

func (d nodeDecisions) setCut(k, width, c int) {
	if width == 1 {
		d.cut[k] = byte(c)
		return
	}
	d.cut[2*k] = byte(c)
	d.cut[2*k+1] = byte(c >> 8)
}

func (d nodeDecisions) splitAt(k int) bool {
	return d.split != nil && d.split[k>>6]&(1<<(k&63)) != 0
}

func (d nodeDecisions) setSplit(k int) { d.split[k>>6] |= 1 << (k & 63) }

// splitWords is the number of words of a split block for tri intervals.
func splitWords(tri int) int { return (tri + 63) / 64 }

// decisionArena hands out decision blocks carved from a few large
// allocations, so that a million nodes cost a handful of allocations.
type decisionArena struct {
	tri, width int
	cuts       []byte
	words      []uint64
}

func newDecisionArena(tri, width, nodes, internal int) *decisionArena {
	return &decisionArena{
		tri: tri, width: width,
		cuts:  make([]byte, nodes*tri*width),
		words: make([]uint64, internal*splitWords(tri)),
	}
}

// block returns the blocks of a node; leaf tells whether it has children.
// Not safe for concurrent use: callers carve all blocks up front.
func (a *decisionArena) block(leaf bool) nodeDecisions {
	n := a.tri * a.width
	d := nodeDecisions{cut: a.cuts[:n:n]}
	a.cuts = a.cuts[n:]
	if !leaf {
		w := splitWords(a.tri)
		d.split = a.words[:w:w]
		a.words = a.words[w:]
	}
	return d
}

// decisionBytes is the memory the decisions of one node take.
func decisionBytes(tri, width int, leaf bool) int64 {
	b := int64(tri * width)
	if !leaf {
		b += int64(splitWords(tri) * 8)
	}
	return b
}
