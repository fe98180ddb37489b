package chrome

import "unsafe"

// chunks is an array that grows one element at a time while the input is
// read, in chunks that are never copied: the first ones small (a thread
// of a few events costs little), each twice the size of the one before,
// then all of chunkBytes. It is gathered into one array, copied once,
// when the build needs the elements together. An array grown by doubling
// copied its elements about once and cleared as much again, into fresh
// pages each time it grew (a page costs a fault and its clearing by the
// kernel): a tenth of the read's CPU on a 150 MB Kineto trace.
type chunks[T any] struct {
	full  [][]T // the filled chunks, in order
	last  []T   // the chunk being filled
	n     int   // the elements in full
	bytes int64 // the memory of all chunks, as allocated
}

// chunkBytes is the size of a full-grown chunk: large enough that making
// one costs little next to filling it, small enough that the last one's
// unused part does not matter.
const chunkBytes = 256 << 10

// firstChunk is the number of elements of the first chunk.
const firstChunk = 16

// add returns the place of a new element at the end, zero.
func (c *chunks[T]) add() *T {
	if len(c.last) == cap(c.last) {
		c.grow()
	}
	c.last = c.last[:len(c.last)+1]
	return &c.last[len(c.last)-1]
}

// grow starts a new chunk. make clears it only if its memory is not fresh
// from the system (where pages are zero until written).
func (c *chunks[T]) grow() {
	var zero T
	most := max(chunkBytes/int(unsafe.Sizeof(zero)), firstChunk)
	size := firstChunk
	if cap(c.last) > 0 {
		c.full = append(c.full, c.last)
		c.n += len(c.last)
		size = min(2*cap(c.last), most)
	}
	c.last = make([]T, 0, size)
	c.bytes += int64(size) * int64(unsafe.Sizeof(zero))
}

// len returns the number of elements.
func (c *chunks[T]) len() int {
	return c.n + len(c.last)
}

// size returns the memory the elements take once gathered.
func (c *chunks[T]) size() int64 {
	var zero T
	return int64(c.len()) * int64(unsafe.Sizeof(zero))
}

// gather returns the elements in one array, and empties c. A single
// chunk is returned as is.
func (c *chunks[T]) gather() []T {
	if len(c.full) == 0 {
		s := c.last
		*c = chunks[T]{}
		return s
	}
	all := make([]T, c.len())
	at := 0
	for _, s := range c.full {
		at += copy(all[at:], s)
	}
	copy(all[at:], c.last)
	*c = chunks[T]{}
	return all
}
