package trace

import (
	"fmt"
	"iter"
)

// StateColumn holds a trace's states column-wise, in blocks of a fixed
// number of states: times as int64 nanoseconds, container, type, value and
// order as int32 ids, the nesting depth in a byte. A state costs 33 bytes
// (State, the struct the readers hand over, takes 40), and the column
// grows a block at a time: nothing is ever copied to grow it, so holding
// n states never takes more than n states' worth of memory plus one
// block (a slice grown by append copies it whole into one 1.25 times as
// large, and keeps both until the copy ends).
//
// The zero value is an empty column ready to use. States are read back by
// index (At) or in order (All); a column is built by Append, or from a
// slice (StatesOf).
type StateColumn struct {
	col column[State, stateBlock, *stateBlock]
	// deep holds, by state index, the depths a byte cannot (outside
	// [0, deepDepth)): nesting that deep is rare enough to be kept aside.
	deep map[int]int32
}

const (
	stateBlockLen = blockLen // 32,768 states: about 1 MiB a block
	// deepDepth marks, in a block's depth column, a depth kept in deep.
	deepDepth = 255
)

// stateBlock is one block of the columns.
type stateBlock struct {
	start, end                   [blockLen]Time
	container, typ, value, order [blockLen]int32
	depth                        [blockLen]uint8
}

// StateBlockBytes is the memory of one block of a StateColumn.
const StateBlockBytes = blockLen * (8 + 8 + 4*4 + 1)

func (b *stateBlock) get(j int) State {
	return State{Container: b.container[j], Type: b.typ[j], Value: b.value[j],
		Start: b.start[j], End: b.end[j], Depth: int32(b.depth[j]), Order: b.order[j]}
}

// put writes s, its depth as deepDepth when a byte cannot hold it: the
// StateColumn keeps it aside.
func (b *stateBlock) put(j int, s State) {
	b.start[j], b.end[j] = s.Start, s.End
	b.container[j], b.typ[j], b.value[j], b.order[j] = s.Container, s.Type, s.Value, s.Order
	b.depth[j] = deepDepth
	if shallow(s.Depth) {
		b.depth[j] = uint8(s.Depth)
	}
}

func (b *stateBlock) bytes() int64 { return StateBlockBytes }

// shallow tells whether a block's depth byte holds depth.
func shallow(depth int32) bool { return depth >= 0 && depth < deepDepth }

// StatesOf returns a column holding states, in their order.
func StatesOf(states ...State) StateColumn {
	var c StateColumn
	fill(&c, states)
	return c
}

// Len returns the number of states.
func (c *StateColumn) Len() int { return c.col.n }

// Append adds s after the last state.
func (c *StateColumn) Append(s State) {
	c.keep(c.col.n, s.Depth)
	b, j := c.col.next()
	b.put(j, s)
}

// At returns the i-th state; it panics if i is out of range. It is
// written to stay within the compiler's inlining budget, which reading
// states depends on (20 times slower, not inlined): no call to get, whose
// copy of the state costs more, and one comparison for the range.
func (c *StateColumn) At(i int) State {
	if i >= c.col.n { // a negative i fails the index of blocks
		panic("trace: state index out of range")
	}
	b, j := c.col.blocks[i>>blockBits], i&blockMask
	d := int32(b.depth[j])
	if d == deepDepth {
		d = c.deep[i]
	}
	return State{Container: b.container[j], Type: b.typ[j], Value: b.value[j],
		Start: b.start[j], End: b.end[j], Depth: d, Order: b.order[j]}
}

// Set replaces the i-th state; it panics if i is out of range.
func (c *StateColumn) Set(i int, s State) {
	checkIndex(i, c.col.n)
	c.col.blocks[i>>blockBits].put(i&blockMask, s)
	delete(c.deep, i)
	c.keep(i, s.Depth)
}

// keep puts aside the depth of state i if a byte cannot hold it.
func (c *StateColumn) keep(i int, depth int32) {
	if shallow(depth) {
		return
	}
	if c.deep == nil {
		c.deep = map[int]int32{}
	}
	c.deep[i] = depth
}

// All yields the states in order, with their index.
func (c *StateColumn) All() iter.Seq2[int, State] {
	return func(yield func(int, State) bool) {
		for i := 0; i < c.col.n; i++ {
			if !yield(i, c.At(i)) {
				return
			}
		}
	}
}

// Slice returns a copy of the states as a slice (for tests and small
// traces: it takes 40 bytes a state).
func (c *StateColumn) Slice() []State {
	out := make([]State, 0, c.col.n)
	for _, s := range c.All() {
		out = append(out, s)
	}
	return out
}

// Grow makes room for n more states' block pointers; the blocks come as
// states do.
func (c *StateColumn) Grow(n int) { c.col.Grow(n) }

// Bytes returns the memory the column holds: its blocks, their index and
// the depths kept aside.
func (c *StateColumn) Bytes() int64 { return c.col.Bytes() + int64(len(c.deep))*48 }

// String prints the states as a slice of them would print, so that a
// Trace prints (and two traces compare by their print) state by state.
func (c StateColumn) String() string { return fmt.Sprintf("%+v", c.Slice()) }
