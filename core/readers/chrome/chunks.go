package chrome

import (
	"slices"
	"unsafe"
)

// chunks is an array that grows one element at a time while the input is
// read, in chunks that are never copied once full-grown: the first one
// doubles (copied, as append does) until it holds chunkLen elements, the
// others are made that size. An array grown by doubling copied its
// elements about once and cleared as much again, into fresh pages each
// time it grew (a page costs a fault and its clearing by the kernel),
// where the chunks' pages are written once. The elements are reached by
// index (at), or gathered into one array where the build needs them
// together.
type chunks[T any] struct {
	// all holds the chunks in order, each sliced to its capacity of
	// chunkLen elements, once there are two; nil while there is one (the
	// many arrays of a few elements make no more than it).
	all   [][]T
	last  []T   // the filled part of the last chunk
	bytes int64 // the memory of the chunks, as allocated
}

// chunkShift is log2 of chunkLen, the number of elements of a full chunk:
// 4096, 64 to 224 kB for the collector's records, large enough that
// making one costs little next to filling it, small enough that the last
// one's unused part does not matter. It is the same for all types so that
// at computes with constants.
const (
	chunkShift = 12
	chunkLen   = 1 << chunkShift
)

// firstChunk is the number of elements of the first chunk as first made:
// one, as append makes it, for the many arrays that hold a few elements
// (the async tracks of a trace, one per id, hold one or two events each).
const firstChunk = 1

// add returns the place of a new element at the end, zero.
func (c *chunks[T]) add() *T {
	if n := len(c.last); n < cap(c.last) {
		c.last = c.last[:n+1]
		return &c.last[n]
	}
	return c.addGrown()
}

// addGrown is add when the last chunk is full.
func (c *chunks[T]) addGrown() *T {
	c.grow()
	c.last = c.last[:len(c.last)+1]
	return &c.last[len(c.last)-1]
}

// grow makes room for one more element: the first chunk is made or
// doubled, or a new full-size one is made. make clears a chunk only if
// its memory is not fresh from the system (where pages are zero until
// written).
func (c *chunks[T]) grow() {
	var next []T
	switch {
	case cap(c.last) < chunkLen: // the first chunk, made or doubled
		next = make([]T, len(c.last), max(2*cap(c.last), firstChunk))
		copy(next, c.last)
		c.bytes -= int64(cap(c.last)) * elemSize[T]()
	default:
		next = make([]T, 0, chunkLen)
		if c.all == nil {
			c.all = [][]T{c.last[:chunkLen]}
		}
		c.all = append(c.all, next[:chunkLen])
	}
	c.last = next
	c.bytes += int64(cap(next)) * elemSize[T]()
}

// elemSize returns the size of a T.
func elemSize[T any]() int64 {
	var zero T
	return int64(unsafe.Sizeof(zero))
}

// len returns the number of elements.
func (c *chunks[T]) len() int {
	if c.all == nil {
		return len(c.last)
	}
	return (len(c.all)-1)<<chunkShift + len(c.last)
}

// at returns the place of element i.
func (c *chunks[T]) at(i int) *T {
	if c.all == nil {
		return &c.last[i]
	}
	return &c.all[i>>chunkShift][i&(chunkLen-1)]
}

// parts returns the chunks, each with its elements only.
func (c *chunks[T]) parts() [][]T {
	if c.all == nil {
		return [][]T{c.last}
	}
	parts := slices.Clone(c.all)
	parts[len(parts)-1] = c.last
	return parts
}

// size returns the memory the elements take once gathered.
func (c *chunks[T]) size() int64 {
	return int64(c.len()) * elemSize[T]()
}

// gather returns the elements in one array, and empties c. A single
// chunk is returned as is.
func (c *chunks[T]) gather() []T {
	all := c.copied()
	*c = chunks[T]{}
	return all
}

// copied returns the elements in one array, a copy (c's own first chunk
// when it is the only one), for a sort.
func (c *chunks[T]) copied() []T {
	if c.all == nil {
		return c.last
	}
	all := make([]T, c.len())
	at := 0
	for _, s := range c.all {
		at += copy(all[at:], s)
	}
	return all
}

// setAll makes the elements of c those of all, as many (a sort of them),
// in chunks that are parts of all: nothing is copied, and nothing is
// added after it.
func (c *chunks[T]) setAll(all []T) {
	parts := make([][]T, 0, (len(all)+chunkLen-1)/chunkLen)
	for at := 0; at < len(all); at += chunkLen {
		end := min(at+chunkLen, len(all))
		parts = append(parts, all[at:end:end])
	}
	*c = chunks[T]{all: parts, bytes: int64(cap(all)) * elemSize[T]()}
	switch len(parts) {
	case 0:
		c.all = nil
	case 1:
		c.all, c.last = nil, parts[0]
	default:
		c.last = parts[len(parts)-1]
	}
}
