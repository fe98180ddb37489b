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

// TestUnended: the states ended at the end are counted with their places,
// each place once, in one sentence; none, no sentence.
func TestUnended(t *testing.T) {
	n := &Notes{}
	opt := ReadOptions{Notes: n}
	var u Unended
	u.Report(opt, "regions", "locations", "they end with it")
	if m := n.Messages(); len(m) != 0 {
		t.Fatalf("%q without anything open", m)
	}
	u.Add(3, 2)
	u.Add(3, 1)
	u.Add(7, 1)
	u.Add(9, 0) // nothing open there: not a place
	if s, p := u.Count(); s != 4 || p != 2 {
		t.Errorf("count %d on %d, want 4 on 2", s, p)
	}
	u.Report(opt, "regions", "locations", "they end with it")
	want := []string{"4 regions were still open at the end of the trace, on 2 locations: they end with it"}
	if got := n.Messages(); !slices.Equal(got, want) {
		t.Errorf("messages %q, want %q", got, want)
	}
}
