package plots

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestGroupSmallest: 25 states with shares 25, 24, ... 1 (in a shuffled
// order) keep the 19 largest in their colours; the 6 smallest are drawn
// as "other", whose share is theirs, 1+...+6 = 21; a state named in keep
// keeps its colour however small; and a figure of 20 states (or of 25
// of which 5 have no time) groups none.
func TestGroupSmallest(t *testing.T) {
	const n = 25
	names := make([]string, n)
	shares := make([]float64, n)
	for i := range n {
		names[i] = fmt.Sprintf("s%02d", i)
		shares[i] = float64((i*7)%n + 1) // a permutation of 1..25
	}
	colors, _ := ResolveColors(names, nil, nil)
	g := GroupSmallest(names, shares, colors, nil)
	if g.Other != n || len(g.Names) != n+1 || g.Names[n] != OtherName || g.Colors[n] != OtherColor {
		t.Fatalf("other at %d of %q, colour %v", g.Other, g.Names, g.Colors.Of(n))
	}
	for i := range n {
		small := shares[i] <= 6
		if (g.Of[i] == g.Other) != small {
			t.Errorf("%s (share %g) drawn as %q", names[i], shares[i], g.Names[g.Of[i]])
		}
		if !small && (g.Of[i] != i || g.Colors[i] != colors[i]) {
			t.Errorf("%s lost its colour", names[i])
		}
	}
	folded := g.Fold(shares, make([]float64, len(g.Names)))
	if folded[g.Other] != 21 {
		t.Errorf("other holds %g, want 21", folded[g.Other])
	}
	total := 0.0
	for _, v := range folded {
		total += v
	}
	if total != 325 {
		t.Errorf("the drawn states hold %g, the states 325", total)
	}

	smallest := slices.Index(shares, 1)
	kept := GroupSmallest(names, shares, colors, map[string]bool{names[smallest]: true})
	if kept.Of[smallest] != smallest {
		t.Errorf("%s, given a colour by the user, is drawn as %q", names[smallest], kept.Names[kept.Of[smallest]])
	}

	for _, c := range []struct {
		states, zero int
	}{{micro.LegibleStates, 0}, {n, n - micro.LegibleStates}} {
		sh := slices.Clone(shares[:c.states])
		for i := range c.zero {
			sh[i] = 0
		}
		g := GroupSmallest(names[:c.states], sh, colors, nil)
		if g.Other != -1 || len(g.Names) != c.states {
			t.Errorf("%d states, %d without time: grouped into %q", c.states, c.zero, g.Names)
		}
	}
}

// TestGroupedTimeEqualsRawTime: on the model of an Nsight Systems export
// of the corpus (94 grouped states, 3 of them CUPTI's synchronisation
// records), the states a figure draws hold the
// time of the model's states, in every cell, "other" that of the states
// it groups: no time is lost.
func TestGroupedTimeEqualsRawTime(t *testing.T) {
	path := filepath.Join("..", "..", "shared", "traces", "nsys", "mfu_2gpu_before.sqlite")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("the corpus trace is absent: %v", err)
	}
	src, _, err := formats.Open(path, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := trace.New(path)
	if err := src.Read(tr, trace.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	m, err := micro.Build(tr, micro.Options{Slices: 50, Depth: micro.Innermost})
	if err != nil {
		t.Fatal(err)
	}
	colors, _ := ResolveColors(m.States, m.Colors, nil)
	g := ModelGrouping(m, colors, nil)
	distinct := map[int]bool{}
	for _, d := range g.Of {
		distinct[d] = true
	}
	if len(m.States) != 94 || len(distinct) != micro.LegibleStates || g.Other != len(m.States) {
		t.Fatalf("%d states drawn as %d, other at %d", len(m.States), len(distinct), g.Other)
	}
	n := len(m.States)
	drawn := make([]float64, len(g.Names))
	for cell := 0; cell < len(m.Values); cell += n {
		values := m.Values[cell : cell+n]
		g.Fold(values, drawn)
		var raw, grouped, other float64
		for x, v := range values {
			raw += v
			if g.Of[x] == g.Other {
				other += v
			}
		}
		for _, v := range drawn {
			grouped += v
		}
		if math.Abs(grouped-raw) > 1e-12 || math.Abs(drawn[g.Other]-other) > 1e-12 {
			t.Fatalf("cell %d: the drawn states hold %g (other %g), the model's %g (the grouped ones %g)",
				cell/n, grouped, drawn[g.Other], raw, other)
		}
	}
}
