package chrome

import (
	"slices"
	"testing"
	"unsafe"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// chunksOf returns chunks holding the elements of s, added one by one.
func chunksOf[T any](s []T) *chunks[T] {
	c := &chunks[T]{}
	for _, v := range s {
		*c.add() = v
	}
	return c
}

// Chunks keep the elements added in order, whatever the number of chunks,
// reach them by index, count the memory of the chunks made, set them
// from an array, and gather them into one array.
func TestChunks(t *testing.T) {
	const elem = int64(unsafe.Sizeof(flowPoint{}))
	const full = chunkLen
	for _, n := range []int{0, 1, firstChunk, firstChunk + 1, 1000, full, full + 1, 3*full + 7} {
		var c chunks[flowPoint]
		// The chunks' memory: the first one doubled from firstChunk
		// until full, then full ones.
		made := int64((n + full - 1) / full * full)
		if n <= full {
			made = 0
			for size := firstChunk; n > 0 && made == 0; size *= 2 {
				if size >= n {
					made = int64(size)
				}
			}
		}
		made *= elem
		for i := range n {
			*c.add() = flowPoint{seq: int32(i), ts: trace.Time(-i)}
		}
		if c.len() != n || c.size() != int64(n)*elem || c.bytes != made {
			t.Errorf("%d added: len %d, size %d, bytes %d; want bytes %d", n, c.len(), c.size(), c.bytes, made)
		}
		for i := range n {
			if p := c.at(i); *p != (flowPoint{seq: int32(i), ts: trace.Time(-i)}) {
				t.Fatalf("%d added: element %d is %+v", n, i, *p)
			}
		}
		// copied, reversed and set: the elements in reverse.
		if n > 0 {
			copied := slices.Clone(c.copied())
			slices.Reverse(copied)
			var r chunks[flowPoint]
			r.setAll(copied)
			if r.len() != n {
				t.Errorf("%d set: len %d", n, r.len())
			}
			for i := range n {
				if p := r.at(i); *p != (flowPoint{seq: int32(n - 1 - i), ts: trace.Time(i + 1 - n)}) {
					t.Fatalf("%d added and reversed: element %d is %+v", n, i, *p)
				}
			}
		}
		all := c.gather()
		if len(all) != n {
			t.Fatalf("%d added: %d gathered", n, len(all))
		}
		for i, p := range all {
			if p != (flowPoint{seq: int32(i), ts: trace.Time(-i)}) {
				t.Fatalf("%d added: element %d gathered is %+v", n, i, p)
			}
		}
		if c.len() != 0 || c.bytes != 0 {
			t.Errorf("%d added: len %d, bytes %d after the gathering", n, c.len(), c.bytes)
		}

	}
}
