package plots

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/hier"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
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

// TestOverviewLegendListsShownStates: the legend names the states the
// figure shows, the most visible first, and ends with "+N more" when they
// do not all fit; a state no aggregate shows is not listed. 60 states are
// more than a figure colours apart: the 19 largest (all the same size
// here, so the first 19) keep their colours and the others are drawn, and
// listed, as one "other" (this test listed the 60 states before figures
// grouped the smallest).
func TestOverviewLegendListsShownStates(t *testing.T) {
	b := hier.NewBuilder("root")
	const leaves, slices, states = 60, 2, 61
	for i := range leaves {
		b.Add(0, fmt.Sprintf("r%d", i))
	}
	tree, _ := b.Build()
	names := make([]string, states)
	for i := range names {
		names[i] = fmt.Sprintf("state-%02d", i)
	}
	values := make([]float64, leaves*slices*states)
	for l := range leaves {
		for k := range slices {
			values[(l*slices+k)*states+l] = 1 // leaf l is in state l; state 60 never
		}
	}
	containers := make([]int32, tree.Len())
	m := &micro.Model{Tree: tree, Container: containers, States: names, Slices: slices,
		Start: 0, End: 2 * trace.Second, Values: values}
	in := aggregate.Input{Tree: tree, Slices: slices, States: states, Values: values}
	eng, err := aggregate.New(aggregate.KindSpatiotemporal, in, aggregate.Options{Normalize: true})
	if err != nil {
		t.Fatal(err)
	}
	p, err := eng.Solve(0)
	if err != nil {
		t.Fatal(err)
	}
	svg, err := Overview(m, in, p, OverviewOptions{Width: 600, Height: 300, Format: SVG})
	if err != nil {
		t.Fatal(err)
	}
	text := string(svg)
	if strings.Contains(text, " more<") {
		t.Error("the 19 states and \"other\" do not fit in 300 points")
	}
	for i := range states {
		listed := strings.Contains(text, fmt.Sprintf(">state-%02d<", i))
		if listed != (i < micro.LegibleStates-1) {
			t.Errorf("state-%02d listed: %v", i, listed)
		}
	}
	if !strings.Contains(text, ">other<") {
		t.Error("no \"other\" in the legend")
	}
	// A shorter figure: the 20 entries do not fit.
	svg, err = Overview(m, in, p, OverviewOptions{Width: 600, Height: 150, Format: SVG})
	if err != nil {
		t.Fatal(err)
	}
	text = string(svg)
	more := regexp.MustCompile(`\+(\d+) more`).FindStringSubmatch(text)
	if more == nil {
		t.Fatal("no +N more line for 20 entries in 150 points")
	}
	listed := strings.Count(text, ">state-") + strings.Count(text, ">other<")
	if n, _ := strconv.Atoi(more[1]); listed+n != micro.LegibleStates || listed < 5 {
		t.Errorf("%d entries listed and %s more, want %d in all", listed, more[1], micro.LegibleStates)
	}
}
