package moments

import (
	"fmt"
	"strings"
	"testing"
)

func TestRows(t *testing.T) {
	r := analyse(t, nestedTrace, Options{ByState: true, Gaps: true})
	describe := func(rows []Row) string {
		var b strings.Builder
		for _, x := range rows {
			fmt.Fprintf(&b, "%s|%s|%s|%s|%d|%v;", x.Path, x.Name, x.Parent, x.State, x.Resources, x.Sums.Busy())
		}
		return b.String()
	}
	byResource, err := r.Rows(ByResource)
	if err != nil {
		t.Fatal(err)
	}
	// Gaps make every resource busy through its life.
	if got, want := describe(byResource), "n1/p1|p1|n1||1|12.000000000;n1/p2|p2|n1||1|8.000000000;n2/p3|p3|n2||1|11.500000000;"; got != want {
		t.Errorf("by resource:\n got %s\nwant %s", got, want)
	}
	for _, x := range byResource {
		if x.Start != 0 || x.End != sec(12) {
			t.Errorf("%s: window [%v, %v), want the trace's", x.Path, x.Start, x.End)
		}
	}

	byState, err := r.Rows(ByState)
	if err != nil {
		t.Fatal(err)
	}
	want := "n1/p1|p1|n1|run|1|7.000000000;n1/p1|p1|n1|wait|1|2.000000000;n1/p1|p1|n1|io|1|1.000000000;n1/p1|p1|n1|idle|1|2.000000000;" +
		"n1/p2|p2|n1|(no state)|1|6.000000000;n1/p2|p2|n1|run|1|2.000000000;n2/p3|p3|n2|(no state)|1|11.500000000;"
	if got := describe(byState); got != want {
		t.Errorf("by state:\n got %s\nwant %s", got, want)
	}
	for _, x := range byState {
		if x.StateType != "State" && x.State != NoStateName {
			t.Errorf("%s %s: state type %q", x.Path, x.State, x.StateType)
		}
	}

	byNode, err := r.Rows(ByNode)
	if err != nil {
		t.Fatal(err)
	}
	want = "|0|||3|31.500000000;n1|n1|||2|20.000000000;n1/p1|p1|n1||1|12.000000000;n1/p2|p2|n1||1|8.000000000;" +
		"n2|n2|||1|11.500000000;n2/p3|p3|n2||1|11.500000000;"
	if got := describe(byNode); got != want {
		t.Errorf("by node:\n got %s\nwant %s", got, want)
	}
	sub := r.Subtree()
	if byNode[0].Sums != sub[0] {
		t.Error("the root's row is not its subtree's sums")
	}
	if _, err := r.Rows(By(9)); !isArgumentError(err) {
		t.Errorf("Rows(9): %v", err)
	}
}

// Per-state rows need per-state sums; without busy time there is nothing
// to miss.
func TestRowsByStateNeedsStateSums(t *testing.T) {
	r := analyse(t, nestedTrace, Options{})
	if _, err := r.Rows(ByState); !isArgumentError(err) {
		t.Errorf("by state without per-state sums: %v", err)
	}
	lo, hi := sec(5), sec(6)
	empty := analyse(t, nestedTrace, Options{Select: Only, Values: []string{"io"}, Start: &lo, End: &hi})
	if rows, err := empty.Rows(ByState); err != nil || len(rows) != 0 {
		t.Errorf("idle window by state: %d rows, %v", len(rows), err)
	}
}

func TestParseBy(t *testing.T) {
	for s, want := range map[string]By{"": ByResource, "Resource": ByResource, " state ": ByState, "NODE": ByNode} {
		if got, err := ParseBy(s); err != nil || got != want {
			t.Errorf("ParseBy(%q) = %v, %v", s, got, err)
		}
	}
	if _, err := ParseBy("rank"); !isArgumentError(err) {
		t.Errorf("ParseBy(rank): %v", err)
	}
	if ByNode.String() != "node" || By(7).String() != "By(?)" {
		t.Error("By.String")
	}
}
