package plots

import (
	"testing"

	"github.com/macroscope-hpc/macroscope/core/hier"
)

func TestChainName(t *testing.T) {
	b := hier.NewBuilder("root")
	zone := b.Add(0, "zone")
	host := b.Add(zone, "host-1")
	rank := b.Add(host, "rank-1")
	other := b.Add(zone, "host-2")
	b.Add(other, "rank-2")
	b.Add(other, "rank-3")
	tree, ids := b.Build()
	for _, c := range []struct {
		node int
		want string
	}{{rank, "host-1/rank-1"}, {zone, "zone"}, {host, "host-1"}} {
		if got := chainName(tree, ids[c.node]); got != c.want {
			t.Errorf("node %q: %q, want %q", tree.Names[ids[c.node]], got, c.want)
		}
	}
	// rank-2 shares its host: named alone.
	for n := int32(0); n < int32(tree.Len()); n++ {
		if tree.Names[n] == "rank-2" {
			if got := chainName(tree, n); got != "rank-2" {
				t.Errorf("rank-2: %q", got)
			}
		}
	}
}
