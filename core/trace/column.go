package trace

import (
	"fmt"
	"unsafe"
)

// Every entity column (StateColumn, VariableColumn, LinkColumn,
// EventColumn) is a column: entities in blocks of a fixed number, each
// block a set of arrays, one per field. Growing adds a block and copies
// nothing, so holding n entities never takes more than n entities' worth
// of memory plus one block (a slice grown by append copies itself whole
// into one 1.25 times as large, and keeps both until the copy ends).
const (
	blockBits = 15 // 32,768 entities a block
	blockLen  = 1 << blockBits
	blockMask = blockLen - 1
)

// block is what a column asks of its blocks (PB is *B): read and write
// the j-th entity, and tell the memory the block holds.
type block[E, B any] interface {
	*B
	get(j int) E
	put(j int, e E)
	// bytes is the block's memory: its arrays and whatever it holds
	// beside them (the key bytes of links).
	bytes() int64
}

// column holds entities of type E in blocks of type B. The zero value is
// an empty column ready to use.
type column[E, B any, PB block[E, B]] struct {
	blocks []*B
	n      int
}

// Len returns the number of entities.
func (c *column[E, B, PB]) Len() int { return c.n }

// The columns read and write their blocks' entities in methods of their
// own (At, Set, Append, All: a few lines each), not in methods of column: a
// method of a type parameter is called through the instantiation's
// dictionary, which the compiler cannot inline, and that made reading
// and appending states twice as slow (and At, no longer inlined, 20
// times). column keeps the blocks.

// next returns where the entity after the last goes, its block and its
// index in the block, and counts it.
func (c *column[E, B, PB]) next() (*B, int) {
	if c.n&blockMask == 0 {
		c.blocks = append(c.blocks, new(B))
	}
	b, j := c.blocks[c.n>>blockBits], c.n&blockMask
	c.n++
	return b, j
}

// checkIndex panics if i is out of range [0, n). Its message is a
// constant: formatting the index would make every At and Set too large
// to inline, and reading a state through At twenty times slower.
func checkIndex(i, n int) {
	if uint(i) >= uint(n) {
		panic("trace: entity index out of range")
	}
}

// Slice returns a copy of the entities as a slice (for tests and small
// traces: it takes the size of the entity's struct for each).
func (c *column[E, B, PB]) Slice() []E {
	out := make([]E, c.n)
	for i := range out {
		out[i] = PB(c.blocks[i>>blockBits]).get(i & blockMask)
	}
	return out
}

// Grow makes room for n more entities' block pointers; the blocks come
// as entities do.
func (c *column[E, B, PB]) Grow(n int) {
	need := (c.n + n + blockMask) >> blockBits
	if need > cap(c.blocks) {
		blocks := make([]*B, len(c.blocks), need)
		copy(blocks, c.blocks)
		c.blocks = blocks
	}
}

// Bytes returns the memory the column holds: its blocks and their index.
func (c *column[E, B, PB]) Bytes() int64 {
	n := int64(cap(c.blocks)) * int64(unsafe.Sizeof((*B)(nil)))
	for _, b := range c.blocks {
		n += PB(b).bytes()
	}
	return n
}

// String prints the entities as a slice of them would print, so that a
// Trace prints (and two traces compare by their print) entity by entity.
func (c column[E, B, PB]) String() string { return fmt.Sprintf("%+v", c.Slice()) }

// fill appends es to c in their order, the block index grown once: the
// columns' constructors from slices (StatesOf...), for tests and small
// traces, so an interface call per entity does not matter.
func fill[E any](c interface {
	Grow(n int)
	Append(e E)
}, es []E) {
	c.Grow(len(es))
	for _, e := range es {
		c.Append(e)
	}
}
