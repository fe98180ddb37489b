package mpi

import (
	"slices"
	"testing"
)

// Chunks hold what a slice would, in order, reachable by index while it
// grows, and give it back in one slice.
func TestChunks(t *testing.T) {
	for _, n := range []int{0, 1, minChunk, minChunk + 1, 3*maxChunk + 5} {
		var c Chunks[int]
		var want []int
		for i := range n {
			c.Append(i)
			want = append(want, i)
			if j := i / 2; *c.At(j) != j {
				t.Fatalf("n %d: At(%d) = %d", n, j, *c.At(j))
			}
		}
		if n > 0 {
			*c.At(n - 1) = -1
			want[n-1] = -1
		}
		if c.Len() != n {
			t.Errorf("Len %d, want %d", c.Len(), n)
		}
		var drained []int
		other := c
		other.chunks = slices.Clone(c.chunks)
		other.Drain(func(x *int) { drained = append(drained, *x) })
		if !slices.Equal(drained, want) || other.Len() != 0 {
			t.Errorf("n %d: Drain visited %d elements, equal %v", n, len(drained), slices.Equal(drained, want))
		}
		got := c.Take()
		if !slices.Equal(got, want) || len(got) != cap(got) || c.Len() != 0 {
			t.Errorf("n %d: Take gave %d elements (cap %d), equal %v", n, len(got), cap(got), slices.Equal(got, want))
		}
	}
}
