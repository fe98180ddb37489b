package compare

import (
	"slices"
	"testing"
)

// TestRunNames: files named alike are told apart by the folders above
// them, and only as far up as needed.
func TestRunNames(t *testing.T) {
	for _, c := range []struct {
		paths, want []string
	}{
		{[]string{"a/before.trace", "b/after.json.gz"}, []string{"before", "after"}},
		{[]string{"/x/stencil/traces-32/traces.otf2", "/x/stencil/traces-64/traces.otf2"},
			[]string{"traces-32/traces", "traces-64/traces"}},
		{[]string{"/d/run1/out/rank0.json", "/d/run2/out/rank0.json", "/d/run2/out/rank1.json"},
			[]string{"run1/out/rank0", "run2/out/rank0", "rank1"}},
		{[]string{"t.trace", "t.trace", ""}, []string{"t", "t (2)", "run 2"}},
		{[]string{"", ""}, []string{"run 0", "run 1"}},
		{[]string{"a/t.trace", "t.trace"}, []string{"a/t", "t"}},
	} {
		if got := RunNames(c.paths); !slices.Equal(got, c.want) {
			t.Errorf("RunNames(%q) = %q, want %q", c.paths, got, c.want)
		}
	}
}
