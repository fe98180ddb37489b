package kaleido

import (
	"math"
	"strings"
	"testing"
	"unicode"
)

// parseSpec reads a tree written as "R(A(x y) B)": a name, then its
// children between parentheses. Names must be unique.
func parseSpec(t testing.TB, spec string) (ids, parents []string, hasParent []bool) {
	t.Helper()
	var stack []string
	last := ""
	for i := 0; i < len(spec); {
		c := rune(spec[i])
		switch {
		case unicode.IsSpace(c):
			i++
		case c == '(':
			stack = append(stack, last)
			i++
		case c == ')':
			stack = stack[:len(stack)-1]
			i++
		default:
			j := i
			for j < len(spec) && !strings.ContainsRune("() \t\n", rune(spec[j])) {
				j++
			}
			last = spec[i:j]
			ids = append(ids, last)
			if len(stack) > 0 {
				parents = append(parents, stack[len(stack)-1])
				hasParent = append(hasParent, true)
			} else {
				parents = append(parents, "")
				hasParent = append(hasParent, false)
			}
			i = j
		}
	}
	return ids, parents, hasParent
}

// specTree builds the tree of spec.
func specTree(t testing.TB, spec string) *Tree {
	t.Helper()
	ids, parents, has := parseSpec(t, spec)
	tree, err := FromStringTable(ids, parents, has, Attributes{})
	if err != nil {
		t.Fatalf("%s: %v", spec, err)
	}
	return tree
}

// node returns the node whose id is name.
func node(t testing.TB, tree *Tree, name string) int32 {
	t.Helper()
	for v := range tree.Len() {
		if tree.StrKeys[tree.Row[v]] == name {
			return int32(v)
		}
	}
	t.Fatalf("no node %q", name)
	return None
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func mustLayout(t testing.TB, tree *Tree, opt Options) *Layout {
	t.Helper()
	l, err := tree.Layout(opt)
	if err != nil {
		t.Fatal(err)
	}
	return l
}
