package chrome

import (
	"testing"
	"unsafe"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Chunks keep the elements added in order, whatever the number of chunks,
// count the memory of the chunks made, and gather them into one array.
func TestChunks(t *testing.T) {
	perChunk := chunkBytes / int(unsafe.Sizeof(flowPoint{}))
	for _, n := range []int{0, 1, firstChunk, firstChunk + 1, 1000, perChunk, 3*perChunk + 7} {
		var c chunks[flowPoint]
		made := int64(0) // the bytes of the chunks, as chunks.grow sizes them
		for size, left := firstChunk, n; left > 0; size = min(2*size, perChunk) {
			made += int64(size) * int64(unsafe.Sizeof(flowPoint{}))
			left -= size
		}
		for i := range n {
			*c.add() = flowPoint{seq: int32(i), ts: trace.Time(-i)}
		}
		if c.len() != n || c.size() != int64(n)*int64(unsafe.Sizeof(flowPoint{})) || c.bytes != made {
			t.Errorf("%d added: len %d, size %d, bytes %d; want bytes %d", n, c.len(), c.size(), c.bytes, made)
		}
		all := c.gather()
		if len(all) != n {
			t.Fatalf("%d added: %d gathered", n, len(all))
		}
		for i, p := range all {
			if p != (flowPoint{seq: int32(i), ts: trace.Time(-i)}) {
				t.Fatalf("%d added: element %d is %+v", n, i, p)
			}
		}
		if c.len() != 0 || c.bytes != 0 {
			t.Errorf("%d added: len %d, bytes %d after the gathering", n, c.len(), c.bytes)
		}
	}
}
