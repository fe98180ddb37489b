package hier

import (
	"reflect"
	"testing"
)

func TestBuildPreorder(t *testing.T) {
	b := NewBuilder("root")
	a := b.Add(0, "a")
	z := b.Add(0, "z")
	b.Add(z, "z1")
	b.Add(a, "a1")
	b.Add(a, "a2")
	tr, ids := b.Build()
	if got, want := tr.Names, []string{"root", "a", "a1", "a2", "z", "z1"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("preorder names %v, want %v", got, want)
	}
	if ids[z] != 4 {
		t.Errorf("builder id of z maps to %d, want 4", ids[z])
	}
	if got, want := tr.Leaves, []int32{2, 3, 5}; !reflect.DeepEqual(got, want) {
		t.Errorf("leaves %v, want %v", got, want)
	}
	if tr.LeafLo[1] != 0 || tr.LeafHi[1] != 2 || tr.LeafLo[4] != 2 || tr.LeafHi[4] != 3 || tr.NumLeaves(0) != 3 {
		t.Errorf("leaf ranges lo=%v hi=%v", tr.LeafLo, tr.LeafHi)
	}
	if got, want := tr.End, []int32{6, 4, 3, 4, 6, 6}; !reflect.DeepEqual(got, want) {
		t.Errorf("subtree ends %v, want %v", got, want)
	}
	if got, want := tr.Depth, []int32{0, 1, 2, 2, 1, 2}; !reflect.DeepEqual(got, want) {
		t.Errorf("depths %v, want %v", got, want)
	}
	if got := tr.Path(5, "/"); got != "z/z1" {
		t.Errorf("path %q", got)
	}
	if got, want := tr.PostOrder(), []int32{2, 3, 1, 5, 4, 0}; !reflect.DeepEqual(got, want) {
		t.Errorf("postorder %v, want %v", got, want)
	}
}
