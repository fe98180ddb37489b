package critpath

import "github.com/macroscope-hpc/macroscope/core/views/mpi"

// twoChunks are the two chunks of a spool read last and the buffers the
// spilled ones are read into: the critical path's readers move along each
// resource's calls and activity a step at a time, and an interval across
// a chunk's end reads both, the next, a step back, the first again.
type twoChunks[T any] struct {
	key   [2]int // the chunks' keys, the latest first; -1 for none
	chunk [2][]T
	buf   [2][]T
}

func newTwoChunks[T any]() twoChunks[T] { return twoChunks[T]{key: [2]int{-1, -1}} }

// get returns the chunk with key key, which is chunk k of spool: one of
// the two read last, else read (into the older one's buffer). It returns
// false when the spill file cannot be read (the spill's Err).
func (c *twoChunks[T]) get(key int, spool *mpi.Spool[T], k int) ([]T, bool) {
	switch key {
	case c.key[0]:
	case c.key[1]:
		c.key[0], c.key[1] = c.key[1], c.key[0]
		c.chunk[0], c.chunk[1] = c.chunk[1], c.chunk[0]
		c.buf[0], c.buf[1] = c.buf[1], c.buf[0]
	default:
		older := c.buf[1]
		c.key[1], c.chunk[1], c.buf[1] = c.key[0], c.chunk[0], c.buf[0]
		chunk, buf, ok := spool.ReadChunk(k, older)
		c.buf[0] = buf
		if !ok {
			c.key[0], c.chunk[0] = -1, nil
			return nil, false
		}
		c.key[0], c.chunk[0] = key, chunk
	}
	return c.chunk[0], true
}
