package kaleido

import (
	"math"
	"math/rand/v2"
	"testing"
)

// randomTree returns a random tree of n nodes: node i hangs from one of
// the `reach` nodes before it, so small reaches give deep trees.
func randomTree(n, reach int, seed uint64) *Tree {
	rng := rand.New(rand.NewPCG(seed, 7))
	ids := make([]int64, n)
	parents := make([]int64, n)
	has := make([]bool, n)
	for i := range n {
		ids[i] = int64(i)
		if i > 0 {
			lo := max(0, i-reach)
			parents[i], has[i] = int64(lo+rng.IntN(i-lo)), true
		}
	}
	// Shuffle the rows: the builder must not rely on parents coming first.
	perm := rng.Perm(n)
	sid, spar, shas := make([]int64, n), make([]int64, n), make([]bool, n)
	for i, p := range perm {
		sid[p], spar[p], shas[p] = ids[i], parents[i], has[i]
	}
	t, err := FromIntTable(sid, spar, shas, Attributes{})
	if err != nil {
		panic(err)
	}
	return t
}

// checkInvariants verifies the layout's defining properties.
func checkInvariants(t *testing.T, l *Layout) {
	t.Helper()
	tree := l.Tree
	leafSum := 0.0
	for i := range l.Len() {
		v := l.Root + int32(i)
		// The shown parent is the nearest kept proper ancestor.
		if i > 0 {
			p := tree.Parent[v] - l.Root
			for !l.Kept[p] {
				p = tree.Parent[l.Root+p] - l.Root
			}
			if l.ShownParent[i] != p {
				t.Fatalf("node %d: shown parent %d, nearest kept ancestor %d", v, l.ShownParent[i], p)
			}
		}
		if !l.Kept[i] {
			continue
		}
		kids := l.ShownChildren(int32(i))
		// w = height + sum of children's weights.
		sum := int64(0)
		for _, c := range kids {
			sum += l.Weight[c]
		}
		if l.Weight[i] != int64(l.Levels)-int64(l.Level[i])+sum {
			t.Fatalf("node %d: weight %d, height %d, children %d", v, l.Weight[i], l.Levels-int(l.Level[i]), sum)
		}
		// Children tile the parent's sector, in order.
		if len(kids) > 0 {
			if l.Sector[kids[0]] != l.Sector[i] {
				t.Fatalf("node %d: first child starts at %v, parent at %v", v, l.Sector[kids[0]], l.Sector[i])
			}
			total := 0.0
			for j, c := range kids {
				total += l.Extent[c]
				if l.Level[c] != l.Level[i]+1 {
					t.Fatalf("child %d at level %d under level %d", c, l.Level[c], l.Level[i])
				}
				if j > 0 && l.Sector[c] != l.Sector[kids[j-1]]+l.Extent[kids[j-1]] {
					t.Fatalf("child %d starts at %v, previous ends at %v", c, l.Sector[c], l.Sector[kids[j-1]]+l.Extent[kids[j-1]])
				}
			}
			if math.Abs(total-l.Extent[i]) > 1e-9 {
				t.Fatalf("node %d: children cover %v of %v degrees", v, total, l.Extent[i])
			}
		} else {
			leafSum += l.Extent[i]
		}
		// Radius d l at angle s + a/2.
		rad := math.Hypot(l.X[i], l.Y[i])
		if math.Abs(rad-l.Spacing*float64(l.Level[i])) > 1e-9 {
			t.Fatalf("node %d: radius %v, level %d x %v", v, rad, l.Level[i], l.Spacing)
		}
		if l.Level[i] > 0 {
			want := math.Mod(l.Sector[i]+l.Extent[i]/2, 360)
			got := math.Mod(math.Atan2(l.Y[i], l.X[i])*180/math.Pi+360, 360)
			if d := math.Abs(got - want); d > 1e-6 && math.Abs(d-360) > 1e-6 {
				t.Fatalf("node %d: angle %v, want %v", v, got, want)
			}
		}
		// Drawn unless an ancestor is hidden or condensed.
		wantDrawn := i == 0 || (l.Drawn[l.ShownParent[i]] && !l.Collapsed[l.ShownParent[i]])
		if l.Drawn[i] != wantDrawn {
			t.Fatalf("node %d: drawn %v, want %v", v, l.Drawn[i], wantDrawn)
		}
		if l.Collapsed[i] != (l.Drawn[i] && l.Level[i] > 0 && len(kids) > 0 && l.Arc(int32(i)) < l.MinSector) {
			t.Fatalf("node %d: collapsed %v with arc %v", v, l.Collapsed[i], l.Arc(int32(i)))
		}
	}
	// The displayed leaves share the whole circle.
	if math.Abs(leafSum-360) > 1e-9 {
		t.Fatalf("leaves cover %v degrees", leafSum)
	}
	if l.Levels > l.Condensing.MaxHeight+1 && l.Condensing.Active {
		t.Fatalf("%d levels displayed for hmax %d", l.Levels, l.Condensing.MaxHeight)
	}
}

func TestInvariantsOnRandomTrees(t *testing.T) {
	for seed := range uint64(6) {
		for _, reach := range []int{2, 10, 1000} {
			tree := randomTree(3000, reach, seed)
			for _, opt := range []Options{
				{Width: 850, LevelSpacing: 4},    // condensed when deep
				{Width: 850},                     // automatic spacing
				{Width: 8000, LevelSpacing: 0.5}, // not condensed
				{Width: 850, LevelSpacing: 4, Subtree: int32(1 + seed)},
				{Width: 850, LevelSpacing: 4, Subtree: int32(tree.Len() / 2)},
			} {
				checkInvariants(t, mustLayout(t, tree, opt))
			}
		}
	}
}
