package trace

import (
	"slices"
	"testing"
)

func TestNotes(t *testing.T) {
	var none *Notes
	none.Skip("x", 1) // a nil Notes ignores everything
	none.Warn("w")
	if none.Messages() != nil || none.Skipped() != nil || none.IncompleteReasons() != nil {
		t.Error("nil notes say something")
	}
	n := &Notes{}
	opt := ReadOptions{Notes: n}
	opt.Skip("events of phase 'P'", 2)
	opt.Warn("%d complete events without dur", 3)
	opt.Skip("entries without ph", 1)
	opt.Skip("events of phase 'P'", 5)
	opt.Skip("nothing", 0)
	opt.Incomplete("cut at byte %d", 120)
	want := []string{"incomplete: cut at byte 120", "3 complete events without dur",
		"skipped 7 events of phase 'P'", "skipped 1 entries without ph"}
	if got := n.Messages(); !slices.Equal(got, want) {
		t.Errorf("messages %q, want %q", got, want)
	}
	all := &Notes{}
	all.Skip("entries without ph", 1)
	all.Add(n)
	all.Add(all)
	if got := all.Skipped(); got["entries without ph"] != 2 || got["events of phase 'P'"] != 7 || len(got) != 2 {
		t.Errorf("added: %v", got)
	}
	if got := all.IncompleteReasons(); !slices.Equal(got, []string{"cut at byte 120"}) {
		t.Errorf("added reasons %q", got)
	}
}
