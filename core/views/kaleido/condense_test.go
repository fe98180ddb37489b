package kaleido

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

func keptLevels(c Condensing) []int {
	var kept []int
	for l := range c.Height {
		if c.Kept(l) {
			kept = append(kept, l)
		}
	}
	return kept
}

func levelsUpTo(n int) []int {
	out := make([]int, n+1)
	for i := range out {
		out[i] = i
	}
	return out
}

// TestPlanCondensing checks each branch of the formula with values worked
// out by hand: hmax = floor(w / 2d), c0 = floor(h / hmax),
// t = c0 hmax - c0 (h - c0 hmax), ratio c0 up to t and c0 + 1 beyond.
func TestPlanCondensing(t *testing.T) {
	for _, c := range []struct {
		name         string
		h            int
		w, d         float64
		active       bool
		hmax, c0, th int
		kept         []int
	}{
		{"fits exactly", 10, 100, 5, false, 10, 0, 0, levelsUpTo(9)},
		{"fits, odd width", 10, 101, 5, false, 10, 0, 0, levelsUpTo(9)},
		{"one level too many", 11, 100, 5, true, 10, 1, 9, levelsUpTo(10)},
		{"two too many", 12, 100, 5, true, 10, 1, 8, append(levelsUpTo(8), 10)},
		// The paper's Semigroup run: 850 pixels, d = 4, h = 174: "the
		// first 38 levels are not condensed, but the remaining 136
		// levels are condensed by the ratio of 2:1".
		{"semigroup", 174, 850, 4, true, 106, 1, 38, nil},
		{"twice the height", 20, 100, 5, true, 10, 2, 20, []int{0, 2, 4, 6, 8, 10, 12, 14, 16, 18}},
		{"c0 = 2, both ratios", 25, 100, 5, true, 10, 2, 10, []int{0, 2, 4, 6, 8, 10, 12, 15, 18, 21, 24}},
		{"c0 = 2, low threshold", 29, 100, 5, true, 10, 2, 2, []int{0, 2, 3, 6, 9, 12, 15, 18, 21, 24, 27}},
		{"one level fits", 3, 10, 5, true, 1, 3, 3, []int{0}},
		{"fractional spacing", 30, 10, 0.4, true, 12, 2, 12, []int{0, 2, 4, 6, 8, 10, 12, 15, 18, 21, 24, 27}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := PlanCondensing(c.h, c.w, c.d)
			if err != nil {
				t.Fatal(err)
			}
			if p.Active != c.active || p.MaxHeight != c.hmax || p.C0 != c.c0 || p.Threshold != c.th {
				t.Fatalf("got %+v, want active %v hmax %d c0 %d t %d", p, c.active, c.hmax, c.c0, c.th)
			}
			kept := keptLevels(p)
			if c.kept == nil { // semigroup: 0..38, then the even levels
				c.kept = levelsUpTo(38)
				for l := 40; l < 174; l += 2 {
					c.kept = append(c.kept, l)
				}
				if len(c.kept) != 106 {
					t.Fatalf("bad expectation: %d levels", len(c.kept))
				}
			}
			if !slices.Equal(kept, c.kept) {
				t.Errorf("kept levels %v, want %v", kept, c.kept)
			}
			disp := p.DisplayedLevels()
			for i, l := range kept {
				if disp[l] != int32(i) {
					t.Errorf("level %d displayed at %d, want %d", l, disp[l], i)
				}
			}
		})
	}
}

func TestPlanCondensingErrors(t *testing.T) {
	for _, c := range []struct {
		w, d  float64
		param string
	}{
		{0, 4, "width"}, {-5, 4, "width"}, {math.NaN(), 4, "width"}, {math.Inf(1), 4, "width"},
		{100, 0, "level_spacing"}, {100, -1, "level_spacing"}, {100, math.NaN(), "level_spacing"},
		{7, 4, "level_spacing"}, // w < 2d: no level fits
	} {
		_, err := PlanCondensing(10, c.w, c.d)
		var ae *errs.ArgumentError
		if !errors.As(err, &ae) || ae.Name != c.param {
			t.Errorf("w=%v d=%v: %v, want an argument error on %s", c.w, c.d, err, c.param)
		}
	}
}

// chain returns a path of n nodes.
func chain(n int) *Tree {
	ids := make([]int64, n)
	parents := make([]int64, n)
	has := make([]bool, n)
	for i := range n {
		ids[i], parents[i], has[i] = int64(i), int64(i-1), i > 0
	}
	t, err := FromIntTable(ids, parents, has, Attributes{})
	if err != nil {
		panic(err)
	}
	return t
}

func TestLevelCondensingSemigroupChain(t *testing.T) {
	tree := chain(174)
	l := mustLayout(t, tree, Options{Width: 850, LevelSpacing: 4})
	if l.Levels != 106 || l.NumKept != 106 {
		t.Fatalf("%d levels, %d kept; want 106", l.Levels, l.NumKept)
	}
	// Level 39 is condensed away: 40 hangs from 38 and is displayed at 39.
	if l.Kept[39] || !l.Kept[40] || l.ShownParent[40] != 38 || l.Level[40] != 39 || l.Level[38] != 38 {
		t.Errorf("around the threshold: kept %v %v, parent of 40 %d, levels %d %d",
			l.Kept[39], l.Kept[40], l.ShownParent[40], l.Level[38], l.Level[40])
	}
	// The leaf at level 173 is condensed away: 172 is the deepest shown.
	if l.Kept[173] || l.Level[172] != 105 || !math.IsNaN(l.X[173]) {
		t.Errorf("deepest: kept %v, level of 172 %d", l.Kept[173], l.Level[172])
	}
	// A chain is one spoke: every node at angle 180, radius d x level.
	for i := range l.Len() {
		if l.Kept[i] && (!near(math.Hypot(l.X[i], l.Y[i]), 4*float64(l.Level[i])) || (i > 0 && !near(l.X[i], -4*float64(l.Level[i])))) {
			t.Fatalf("node %d at (%v, %v), level %d", i, l.X[i], l.Y[i], l.Level[i])
		}
	}
	// The outermost circle fits in the window.
	if r := l.MaxRadius(); r != 4*105 || r > 850/2 {
		t.Errorf("max radius %v", r)
	}
}

func TestLevelCondensingBranches(t *testing.T) {
	// Height 4 in a window of 2 levels (w = 20, d = 5): c0 = 2, t = 4, so
	// levels 0 and 2 are kept. B and E (level 2) hang from R; C and D
	// (level 3) are condensed away.
	tree := specTree(t, "R(A(B(C D) E))")
	l := mustLayout(t, tree, Options{Width: 20, LevelSpacing: 5})
	r, a, b, c, e := node(t, tree, "R"), node(t, tree, "A"), node(t, tree, "B"), node(t, tree, "C"), node(t, tree, "E")
	if l.Condensing.C0 != 2 || l.Condensing.Threshold != 4 || l.Levels != 2 {
		t.Fatalf("plan %+v, %d levels", l.Condensing, l.Levels)
	}
	if l.Kept[a] || l.Kept[c] || !l.Kept[b] || !l.Kept[e] || l.ShownParent[b] != r || l.ShownParent[e] != r || l.ShownParent[c] != b {
		t.Errorf("kept A %v C %v B %v E %v; parents of B %d, E %d, C %d",
			l.Kept[a], l.Kept[c], l.Kept[b], l.Kept[e], l.ShownParent[b], l.ShownParent[e], l.ShownParent[c])
	}
	if kids := l.ShownChildren(r); !slices.Equal(kids, []int32{b, e}) {
		t.Errorf("children of the root %v", kids)
	}
	// Weights on the displayed tree of height 2: B = E = 1, R = 2 + 2.
	if l.Weight[r] != 4 || l.Weight[b] != 1 || l.Weight[e] != 1 || l.Weight[a] != 0 {
		t.Errorf("weights R %d B %d E %d A %d", l.Weight[r], l.Weight[b], l.Weight[e], l.Weight[a])
	}
	if l.Sector[b] != 0 || l.Extent[b] != 180 || l.Sector[e] != 180 || l.Extent[e] != 180 {
		t.Errorf("sectors B (%v, %v) E (%v, %v)", l.Sector[b], l.Extent[b], l.Sector[e], l.Extent[e])
	}
	if !near(l.X[b]+1, 1) || !near(l.Y[b], 5) || !near(l.X[e]+1, 1) || !near(l.Y[e], -5) {
		t.Errorf("B at (%v, %v), E at (%v, %v)", l.X[b], l.Y[b], l.X[e], l.Y[e])
	}
	if !math.IsNaN(l.Sector[a]) || !math.IsNaN(l.Y[a]) || l.Level[a] != None {
		t.Errorf("condensed A: sector %v, y %v, level %d", l.Sector[a], l.Y[a], l.Level[a])
	}
	// The same tree in a window that fits it is not condensed.
	l = mustLayout(t, tree, Options{Width: 40, LevelSpacing: 5})
	if l.Condensing.Active || l.NumKept != tree.Len() {
		t.Errorf("wide window: %+v, %d kept", l.Condensing, l.NumKept)
	}
}
