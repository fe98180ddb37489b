package kaleido

import (
	"math"
	"testing"
)

// quickSort is a tree with the weights of the paper's Figure 11 (the Quick
// Sort reduction tree): height 7; below the root's only child A (weight
// 78 = 72 + 6) hang B, D and E of weights 15, 17 and 40, and J, the first
// child of E, weighs 9.
const quickSort = `R(A(
	B(B1(B2(B3(B4))))
	D(X(Y(Z(z1 z2 z3))))
	E(J(K(L)) F(f1 f2 f3 G(H1(h1 h2 h3) H2(h4 h5 h6))))))`

func TestPaperWeightsAndSectors(t *testing.T) {
	tree := specTree(t, quickSort)
	if tree.Height != 7 {
		t.Fatalf("height %d, want 7", tree.Height)
	}
	l := mustLayout(t, tree, Options{Width: 200, LevelSpacing: 10})
	if l.Condensing.Active || l.Levels != 7 {
		t.Fatalf("condensing %+v, %d levels; want none and 7", l.Condensing, l.Levels)
	}
	weights := map[string]int64{
		"R": 85, "A": 78, "B": 15, "B1": 10, "B2": 6, "B3": 3, "B4": 1,
		"D": 17, "X": 12, "Y": 8, "Z": 5, "z1": 1,
		"E": 40, "J": 9, "K": 5, "L": 2, "F": 26, "f1": 3, "G": 13, "H1": 5, "h6": 1,
	}
	for name, w := range weights {
		if got := l.Weight[node(t, tree, name)]; got != w {
			t.Errorf("weight of %s: %d, want %d", name, got, w)
		}
	}
	// The paper: D gets s = 0 + 75 = 75 and a = 17/72 x 360 = 85; J gets
	// s = 160 + 0 and a = 9/35 x 200 = 51.4.
	sectors := map[string][2]float64{
		"R": {0, 360}, "A": {0, 360}, "B": {0, 75}, "D": {75, 85}, "E": {160, 200},
		"J": {160, 9.0 / 35 * 200}, "F": {160 + 9.0/35*200, 26.0 / 35 * 200},
		"B4": {0, 75}, "K": {160, 9.0 / 35 * 200}, "z2": {75 + 85.0/3, 85.0 / 3},
	}
	for name, want := range sectors {
		v := node(t, tree, name)
		if !near(l.Sector[v], want[0]) || !near(l.Extent[v], want[1]) {
			t.Errorf("sector of %s: (%v, %v), want (%v, %v)", name, l.Sector[v], l.Extent[v], want[0], want[1])
		}
	}
	// Positions: radius d l at angle s + a/2.
	for name, want := range map[string][2]float64{
		"R": {0, 0},
		"A": {10 * math.Cos(math.Pi), 10 * math.Sin(math.Pi)}, // (0, 360): angle 180
		"B": {20 * math.Cos(37.5*math.Pi/180), 20 * math.Sin(37.5*math.Pi/180)},
		"D": {20 * math.Cos(117.5*math.Pi/180), 20 * math.Sin(117.5*math.Pi/180)},
		"E": {20 * math.Cos(260*math.Pi/180), 20 * math.Sin(260*math.Pi/180)},
		"L": {50 * math.Cos((160+9.0/35*100)*math.Pi/180), 50 * math.Sin((160+9.0/35*100)*math.Pi/180)},
	} {
		v := node(t, tree, name)
		if !near(l.X[v], want[0]) || !near(l.Y[v], want[1]) {
			t.Errorf("position of %s: (%v, %v), want (%v, %v)", name, l.X[v], l.Y[v], want[0], want[1])
		}
	}
}

func TestSingleNode(t *testing.T) {
	tree := specTree(t, "only")
	l := mustLayout(t, tree, Options{Width: 100})
	if l.Levels != 1 || l.Weight[0] != 1 || l.Sector[0] != 0 || l.Extent[0] != 360 || l.X[0] != 0 || l.Y[0] != 0 {
		t.Errorf("single node: levels %d weight %d sector (%v, %v) at (%v, %v)", l.Levels, l.Weight[0], l.Sector[0], l.Extent[0], l.X[0], l.Y[0])
	}
	if l.Spacing != 50 {
		t.Errorf("automatic spacing %v, want floor(100 / 2) = 50", l.Spacing)
	}
}

func TestAutomaticSpacing(t *testing.T) {
	tree := specTree(t, quickSort) // height 7
	for _, c := range []struct {
		width   float64
		subtree string
		want    float64
	}{
		{850, "R", 60}, // floor(850 / 14)
		{40, "R", 4},   // floor(40 / 14) = 2, raised to 4: condensed
		{850, "E", 85}, // E's subtree has height 5: floor(850 / 10)
		{9, "E", 0.9},  // below one pixel: exactly w / 2h
		{14, "A", 1},   // A's subtree has height 6: floor(14 / 12)
	} {
		l := mustLayout(t, tree, Options{Width: c.width, Subtree: node(t, tree, c.subtree)})
		if !near(l.Spacing, c.want) {
			t.Errorf("width %v, view %s: spacing %v, want %v", c.width, c.subtree, l.Spacing, c.want)
		}
	}
}

func TestSubtreeView(t *testing.T) {
	tree := specTree(t, quickSort)
	e := node(t, tree, "E")
	// Three levels of 10 pixels fit in 60 pixels: the whole tree is
	// condensed, the subtree view is not.
	whole := mustLayout(t, tree, Options{Width: 60, LevelSpacing: 10})
	if !whole.Condensing.Active {
		t.Fatalf("whole tree not condensed: %+v", whole.Condensing)
	}
	l := mustLayout(t, tree, Options{Width: 60, LevelSpacing: 10, Subtree: e})
	if l.Condensing.Active || l.Len() != 17 || l.Levels != 5 || l.NumKept != 17 {
		t.Fatalf("subtree view: condensing %+v, %d nodes, %d levels, %d kept", l.Condensing, l.Len(), l.Levels, l.NumKept)
	}
	// E is the centre; J and F share 360 degrees as 9 : 26 (heights
	// are now 5 - level: J = 4 + K(3 + L 2) = 9, F = 4 + 3x3 + G(3 + 2x5)).
	j, f := node(t, tree, "J")-e, node(t, tree, "F")-e
	if l.Sector[0] != 0 || l.Extent[0] != 360 || l.X[0] != 0 || l.Level[j] != 1 {
		t.Errorf("centre: (%v, %v) at (%v, %v); J at level %d", l.Sector[0], l.Extent[0], l.X[0], l.Y[0], l.Level[j])
	}
	if l.Weight[0] != 40 || !near(l.Extent[j], 9.0/35*360) || !near(l.Sector[f], 9.0/35*360) || !near(l.Extent[f], 26.0/35*360) {
		t.Errorf("weights %d; J (%v, %v), F (%v, %v)", l.Weight[0], l.Sector[j], l.Extent[j], l.Sector[f], l.Extent[f])
	}
	if _, err := tree.Layout(Options{Width: 60, LevelSpacing: 10, Subtree: int32(tree.Len())}); err == nil {
		t.Error("a subtree beyond the tree was accepted")
	}
}

// TestNodeCondensing puts k children of the root on the first circle, each
// with one child: their sectors are 360/k degrees, 2 pi d / k pixels long.
func TestNodeCondensing(t *testing.T) {
	star := func(k int) *Tree {
		spec := "R("
		for i := range k {
			spec += "c" + string(rune('a'+i)) + "(g" + string(rune('a'+i)) + ") "
		}
		return specTree(t, spec+")")
	}
	// d = 1: 6 children get 1.047 pixels each and keep their child; 7 get
	// 0.898 pixels and lose it.
	for _, c := range []struct {
		k         int
		collapsed bool
	}{{6, false}, {7, true}} {
		tree := star(c.k)
		l := mustLayout(t, tree, Options{Width: 100, LevelSpacing: 1})
		ca, ga := node(t, tree, "ca"), node(t, tree, "ga")
		if arc := l.Arc(ca); !near(arc, 2*math.Pi/float64(c.k)) {
			t.Errorf("k=%d: arc %v", c.k, arc)
		}
		if l.Collapsed[ca] != c.collapsed || l.Drawn[ga] == c.collapsed || !l.Drawn[ca] || !l.Kept[ga] {
			t.Errorf("k=%d: collapsed %v, child drawn %v", c.k, l.Collapsed[ca], l.Drawn[ga])
		}
		wantDrawn := 1 + 2*c.k
		if c.collapsed {
			wantDrawn = 1 + c.k
		}
		if l.NumDrawn != wantDrawn || l.NumCollapsed != map[bool]int{true: c.k}[c.collapsed] {
			t.Errorf("k=%d: %d drawn, %d collapsed", c.k, l.NumDrawn, l.NumCollapsed)
		}
	}
	// At the threshold itself: a sector of exactly MinSector pixels is not
	// under it; one ulp narrower is.
	tree := star(5)
	l := mustLayout(t, tree, Options{Width: 100, LevelSpacing: 3})
	arc := l.Arc(1)
	for _, c := range []struct {
		min       float64
		collapsed bool
	}{{arc, false}, {math.Nextafter(arc, math.Inf(1)), true}} {
		l := mustLayout(t, tree, Options{Width: 100, LevelSpacing: 3, MinSector: c.min})
		if l.Collapsed[1] != c.collapsed {
			t.Errorf("arc %v, threshold %v: collapsed %v", arc, c.min, l.Collapsed[1])
		}
	}
	// Leaves and the root are never condensed.
	l = mustLayout(t, specTree(t, "R(a b c d e f g h i j)"), Options{Width: 100, LevelSpacing: 1})
	if l.NumCollapsed != 0 || l.NumDrawn != 11 {
		t.Errorf("leaves: %d collapsed, %d drawn", l.NumCollapsed, l.NumDrawn)
	}
	if _, err := tree.Layout(Options{Width: 100, MinSector: math.NaN()}); err == nil {
		t.Error("NaN threshold accepted")
	}
}

func TestFamilies(t *testing.T) {
	tree := specTree(t, "R(a(x) b c)")
	l := mustLayout(t, tree, Options{Width: 100, LevelSpacing: 10})
	var got [][]int32
	l.Families(func(p int32, kids []int32) bool {
		got = append(got, append([]int32{p}, kids...))
		return true
	})
	a, b, c, x := node(t, tree, "a"), node(t, tree, "b"), node(t, tree, "c"), node(t, tree, "x")
	if len(got) != 2 || got[0][0] != 0 || got[0][1] != a || got[0][2] != b || got[0][3] != c || got[1][0] != a || got[1][1] != x {
		t.Fatalf("families %v", got)
	}
	kids := got[0][1:]
	// The whole family: parent, a, midpoint(a, b)... split in runs that
	// share the cut points.
	all := l.RunPolygon(0, kids, 0, 2)
	if len(all) != 4 || all[0] != (Point{}) || all[1] != l.Point(a) || all[3] != l.Point(c) {
		t.Errorf("whole family polygon %v", all)
	}
	first, middle, last := l.RunPolygon(0, kids, 0, 0), l.RunPolygon(0, kids, 1, 1), l.RunPolygon(0, kids, 2, 2)
	mab, mbc := mid(l.Point(a), l.Point(b)), mid(l.Point(b), l.Point(c))
	if len(first) != 3 || first[1] != l.Point(a) || first[2] != mab ||
		len(middle) != 4 || middle[1] != mab || middle[2] != l.Point(b) || middle[3] != mbc ||
		len(last) != 3 || last[1] != mbc || last[2] != l.Point(c) {
		t.Errorf("runs %v | %v | %v", first, middle, last)
	}
	if seg := l.RunPolygon(a, got[1][1:], 0, 0); len(seg) != 2 || seg[0] != l.Point(a) || seg[1] != l.Point(x) {
		t.Errorf("single child: %v", seg)
	}
}
