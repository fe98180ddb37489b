package plots

import (
	"fmt"
	"slices"
	"testing"
)

func ExampleShortNames() {
	fmt.Println(ShortNames([]string{"MPI Rank 0/Master thread", "MPI Rank 1/Master thread", "node/GPU 0"}))
	// Output: [MPI Rank 0/Master thread MPI Rank 1/Master thread GPU 0]
}

// TestShortNamesOfTheRoot: the root container's path is empty (a state or
// link on container 0 of a pj_dump file); the search looped forever
// there, taking "" for a name not yet chosen.
func TestShortNamesOfTheRoot(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{[]string{"", "p1"}, []string{"", "p1"}},
		{[]string{"", ""}, []string{"", ""}},
		{[]string{"a/x", "b/x", "a/x"}, []string{"a/x", "b/x", "a/x"}},
	} {
		if got := ShortNames(c.in); !slices.Equal(got, c.want) {
			t.Errorf("ShortNames(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
