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
	blocks []*stateBlock
	n      int
	// deep holds, by state index, the depths a byte cannot (outside
	// [0, deepDepth)): nesting that deep is rare enough to be kept aside.
	deep map[int]int32
}

const (
	stateBlockBits = 15 // 32,768 states: about 1 MiB a block
	stateBlockLen  = 1 << stateBlockBits
	stateBlockMask = stateBlockLen - 1
	// deepDepth marks, in a block's depth column, a depth kept in deep.
	deepDepth = 255
)

// stateBlock is one block of the columns.
type stateBlock struct {
	start, end                   [stateBlockLen]Time
	container, typ, value, order [stateBlockLen]int32
	depth                        [stateBlockLen]uint8
}

// StateBlockBytes is the memory of one block of a StateColumn.
const StateBlockBytes = stateBlockLen * (8 + 8 + 4*4 + 1)

// StatesOf returns a column holding states, in their order.
func StatesOf(states ...State) StateColumn {
	var c StateColumn
	c.Grow(len(states))
	for _, s := range states {
		c.Append(s)
	}
	return c
}

// Len returns the number of states.
func (c *StateColumn) Len() int { return c.n }

// Append adds s after the last state.
func (c *StateColumn) Append(s State) {
	j := c.n & stateBlockMask
	if j == 0 {
		c.blocks = append(c.blocks, new(stateBlock))
	}
	c.put(c.n, s)
	c.n++
}

// At returns the i-th state; it panics if i is out of range.
func (c *StateColumn) At(i int) State {
	if uint(i) >= uint(c.n) {
		panic("trace: state index out of range")
	}
	b, j := c.blocks[i>>stateBlockBits], i&stateBlockMask
	d := int32(b.depth[j])
	if d == deepDepth {
		d = c.deep[i]
	}
	return State{Container: b.container[j], Type: b.typ[j], Value: b.value[j],
		Start: b.start[j], End: b.end[j], Depth: d, Order: b.order[j]}
}

// Set replaces the i-th state; it panics if i is out of range.
func (c *StateColumn) Set(i int, s State) {
	if uint(i) >= uint(c.n) {
		panic("trace: state index out of range")
	}
	delete(c.deep, i)
	c.put(i, s)
}

// put writes s at index i of an existing block.
func (c *StateColumn) put(i int, s State) {
	b, j := c.blocks[i>>stateBlockBits], i&stateBlockMask
	b.start[j], b.end[j] = s.Start, s.End
	b.container[j], b.typ[j], b.value[j], b.order[j] = s.Container, s.Type, s.Value, s.Order
	if s.Depth >= 0 && s.Depth < deepDepth {
		b.depth[j] = uint8(s.Depth)
		return
	}
	b.depth[j] = deepDepth
	if c.deep == nil {
		c.deep = map[int]int32{}
	}
	c.deep[i] = s.Depth
}

// All yields the states in order, with their index.
func (c *StateColumn) All() iter.Seq2[int, State] {
	return func(yield func(int, State) bool) {
		for i := 0; i < c.n; i++ {
			if !yield(i, c.At(i)) {
				return
			}
		}
	}
}

// Slice returns a copy of the states as a slice (for tests and small
// traces: it takes 40 bytes a state).
func (c *StateColumn) Slice() []State {
	out := make([]State, 0, c.n)
	for _, s := range c.All() {
		out = append(out, s)
	}
	return out
}

// Grow makes room for n more states' block pointers; the blocks come as
// states do.
func (c *StateColumn) Grow(n int) {
	need := (c.n + n + stateBlockMask) >> stateBlockBits
	if need > cap(c.blocks) {
		blocks := make([]*stateBlock, len(c.blocks), need)
		copy(blocks, c.blocks)
		c.blocks = blocks
	}
}

// Bytes returns the memory the column holds: its blocks, their index and
// the depths kept aside.
func (c *StateColumn) Bytes() int64 {
	return int64(len(c.blocks))*StateBlockBytes + int64(cap(c.blocks))*8 + int64(len(c.deep))*48
}

// String prints the states as a slice of them would print, so that a
// Trace prints (and two traces compare by their print) state by state.
func (c StateColumn) String() string { return fmt.Sprintf("%+v", c.Slice()) }
