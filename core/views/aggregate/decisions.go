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
// Blocks are carved in node order, so a subtree's cut decisions are one
// range of the arena.
type decisionArena struct {
	tri, width int
	all        []byte // every cut decision
	cuts       []byte // not handed out yet
	words      []uint64
	// mapped tells whether all is memory mapped outside the Go heap (see
	// newOffHeapArena), to be released and freed explicitly.
	mapped bool
}

func newDecisionArena(tri, width, nodes, internal int) *decisionArena {
	cuts := make([]byte, nodes*tri*width)
	return &decisionArena{
		tri: tri, width: width, all: cuts, cuts: cuts,
		words: make([]uint64, internal*splitWords(tri)),
	}
}

// newOffHeapArena is newDecisionArena with the cut decisions mapped from
// the operating system where it can (see mapBytes): a single solve of a
// million-leaf model lists its parts subtree by subtree and hands each
// subtree's decisions back as soon as its parts are written (release),
// so that the decisions (half a gigabyte) and the parts (a gigabyte) are
// not both resident at the peak. The caller must call free.
func newOffHeapArena(tri, width, nodes, internal int) *decisionArena {
	cuts, ok := mapBytes(nodes * tri * width)
	if !ok {
		return newDecisionArena(tri, width, nodes, internal)
	}
	return &decisionArena{
		tri: tri, width: width, all: cuts, cuts: cuts, mapped: true,
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

// release hands the memory of the cut decisions of nodes lo..hi-1 back to
// the operating system (the whole pages within their range) when the
// arena is mapped; they must not be read again.
func (a *decisionArena) release(lo, hi int32) {
	if a == nil || !a.mapped {
		return
	}
	n := a.tri * a.width
	releaseBytes(a.all[int(lo)*n : int(hi)*n])
}

// free unmaps a mapped arena; no block may be used afterwards.
func (a *decisionArena) free() {
	if a != nil && a.mapped {
		unmapBytes(a.all)
		a.all, a.cuts, a.mapped = nil, nil, false
	}
}

// decisionBytes is the memory the decisions of one node take.
func decisionBytes(tri, width int, leaf bool) int64 {
	b := int64(tri * width)
	if !leaf {
		b += int64(splitWords(tri) * 8)
	}
	return b
}
