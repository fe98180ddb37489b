package mpi

// Chunks is an append-only sequence kept in chunks, which are never
// copied as it grows (a slice that doubles copies everything each time,
// and touches twice the memory): the sinks of the MPI analyses gather
// their records in it while a trace streams, and take them out once, in
// a slice of the exact size.
type Chunks[T any] struct {
	chunks [][]T
	starts []int // index of each chunk's first element
	n      int
}

// The chunks grow from minChunk elements to maxChunk, doubling.
const (
	minChunk = 64
	maxChunk = 8192
)

// Append adds x at the end.
func (c *Chunks[T]) Append(x T) {
	k := len(c.chunks) - 1
	if k < 0 || len(c.chunks[k]) == cap(c.chunks[k]) {
		size := minChunk
		if k >= 0 {
			size = min(2*cap(c.chunks[k]), maxChunk)
		}
		c.chunks = append(c.chunks, make([]T, 0, size))
		c.starts = append(c.starts, c.n)
		k++
	}
	c.chunks[k] = append(c.chunks[k], x)
	c.n++
}

// Len returns the number of elements.
func (c *Chunks[T]) Len() int { return c.n }

// At returns element i (0 <= i < Len()), found from the last chunk back:
// the latest elements are the quickest to reach.
func (c *Chunks[T]) At(i int) *T {
	k := len(c.chunks) - 1
	for c.starts[k] > i {
		k--
	}
	return &c.chunks[k][i-c.starts[k]]
}

// Drain calls visit with each element in order and empties c, letting
// go of each chunk once visited: a pass that turns the elements into
// something else holds them and what it makes at once no longer than
// it must (Take would hold a second copy of them all).
func (c *Chunks[T]) Drain(visit func(*T)) {
	chunks := c.chunks
	*c = Chunks[T]{}
	for k := range chunks {
		for i := range chunks[k] {
			visit(&chunks[k][i])
		}
		chunks[k] = nil
	}
}

// Take returns the elements in one slice of the exact size and empties c.
func (c *Chunks[T]) Take() []T {
	if len(c.chunks) == 1 && len(c.chunks[0]) == cap(c.chunks[0]) {
		out := c.chunks[0]
		*c = Chunks[T]{}
		return out
	}
	out := make([]T, 0, c.n)
	for _, ch := range c.chunks {
		out = append(out, ch...)
	}
	*c = Chunks[T]{}
	return out
}
