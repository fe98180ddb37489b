package pybind

import "testing"

func TestIncompleteNote(t *testing.T) {
	for _, c := range []struct {
		reasons []string
		want    string
	}{
		{nil, ""},
		{[]string{"/tmp/a/b/cut.prv: the last line (3) has no end of line: the file is cut"},
			"(incomplete: cut.prv: the last line (3) has no end of line: the file is cut)"},
		{[]string{"/x/arch: 1 location(s) ... (\"thread\" (id 1)): missing", "/y/p.csv is empty: that part of the trace is missing"},
			"(incomplete: arch: 1 location(s) ... (\"thread\" (id 1)): missing; p.csv is empty: that part of the trace is missing)"},
		// Directories with spaces in their names (a home directory, a run's).
		{[]string{"/Users/Jane Doe/run 1/cut.prv: the last line (3) has no end of line: see /Users/Jane/b.row",
			"/data/run 2/parts/: 1 of 3 files is empty"},
			"(incomplete: cut.prv: the last line (3) has no end of line: see b.row; parts: 1 of 3 files is empty)"},
		{[]string{"the input ended: no end of line"}, "(incomplete: the input ended: no end of line)"},
	} {
		if got := incompleteNote(c.reasons); got != c.want {
			t.Errorf("incompleteNote(%q) = %q, want %q", c.reasons, got, c.want)
		}
	}
	if got := titled("overview", []string{"r"}); got != "overview\n(incomplete: r)" {
		t.Errorf("titled: %q", got)
	}
	if got := titled("", []string{"r"}); got != "(incomplete: r)" {
		t.Errorf("titled without a title: %q", got)
	}
}
