package budget

import (
	"errors"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// The budget's error names the file, and the place the reader gave when
// its error wraps the budget's; other errors pass as they are.
func TestNamed(t *testing.T) {
	m := NewMeter(10, nil)
	over := m.Hold(11)
	if over == nil {
		t.Fatal("no error over the budget")
	}
	reason := over.(*errs.ArgumentError).Reason
	other := errors.New("unrelated")
	cases := []struct {
		read error
		file string
		want string
	}{
		{nil, "a.csv", "memory_budget: reading a.csv: " + reason},
		{errors.New("canceled"), "a.csv", "memory_budget: reading a.csv: " + reason},
		{&errs.FormatError{File: "dir/b.csv.gz", Line: 2, Offset: 51, Err: over}, "dir", "memory_budget: reading dir/b.csv.gz, line 2 (byte 51): " + reason},
		{&errs.FormatError{File: "b.csv", Line: 7, Err: over}, "b.csv", "memory_budget: reading b.csv, line 7: " + reason},
		{&errs.FormatError{File: "b.json", AtOffset: true, Err: over}, "b.json", "memory_budget: reading b.json, byte 0: " + reason},
		{&errs.FormatError{File: "r.sqlite", Where: "table T, row 8192", Err: over}, "r.sqlite", "memory_budget: reading r.sqlite, table T, row 8192: " + reason},
		// A FormatError of another cause does not place the budget's.
		{&errs.FormatError{File: "c.csv", Line: 3, Err: other}, "a.csv", "memory_budget: reading a.csv: " + reason},
	}
	for _, c := range cases {
		got := Named(over, c.read, c.file)
		if got.Error() != errs.Cap(c.want) {
			t.Errorf("Named(%v, %q):\n got %s\nwant %s", c.read, c.file, got, errs.Cap(c.want))
		}
		var ae *errs.ArgumentError
		if !errors.As(got, &ae) || ae.Name != "memory_budget" {
			t.Errorf("%v is not the budget's error", got)
		}
		// Named once.
		if again := Named(got, c.read, "x"); again.Error() != got.Error() {
			t.Errorf("named twice: %s", again)
		}
	}
	if Named(nil, other, "a.csv") != nil || Named(other, nil, "a.csv") != other {
		t.Error("errors that are not the budget's changed")
	}
}
