package hpctoolkit

import (
	"slices"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/compare"
)

// Two runs of one program on other hosts (host ids abc and 7f0101) are
// compared resource by resource: a node is named by its host id with 0x,
// which reads as one number, so its threads match across the runs.
// Written bare, "abc" and "7f0101" read as letters and numbers, and each
// run's threads stood apart, missing from the other.
func TestHostIDsReadAsNumbers(t *testing.T) {
	read := func(host uint64) *trace.Trace {
		s := sample()
		for _, tuple := range s.tuples {
			for i := range tuple {
				if tuple[i].physical {
					tuple[i].phys = host
				}
			}
		}
		tr := trace.New()
		if err := readWith(s.write(t), options{}, tr, trace.ReadOptions{}); err != nil {
			t.Fatal(err)
		}
		return tr
	}
	a, b := read(0xabc), read(0x7f0101)
	if got := containerPath(b, 1); got != "Node 0x7f0101" {
		t.Fatalf("node %q, want Node 0x7f0101", got)
	}
	set, err := compare.Build([]compare.Input{{Name: "A", Trace: a}, {Name: "B", Trace: b}}, compare.Options{Slices: 2}, trace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var leaves []string
	for _, n := range set.Resources.Leaves {
		leaves = append(leaves, set.Resources.Path(n, "/"))
	}
	want := []string{"Node 0xabc/Rank 0/Thread 0", "Node 0xabc/Rank 0/Thread 1"}
	if !slices.Equal(leaves, want) || set.Runs[1].Missing != 0 {
		t.Errorf("resources %q (run B misses %d), want %q", leaves, set.Runs[1].Missing, want)
	}
}
