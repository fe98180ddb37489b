package budget

import (
	"errors"
	"fmt"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// Named returns the budget's error over (a Meter's or a Guard's) naming
// the file whose read outgrew the budget: "reading f.gz, line 2 (byte
// 51): the read holds ...", "reading r.sqlite, table T, row 8192: ...". The place is the reader's, when its error
// read wraps over in an errs.FormatError (a reader that was refused a
// buffer says where it was); else it is file, which the front end read.
// The error is still the budget's, an errs.ArgumentError of
// memory_budget (the front ends tell it by that name); any other over is
// returned as it is, and a nil over gives nil.
func Named(over, read error, file string) error {
	var ae *errs.ArgumentError
	if !errors.As(over, &ae) || ae.Name != "memory_budget" || strings.HasPrefix(ae.Reason, "reading ") {
		return over
	}
	place := file
	var fe *errs.FormatError
	if errors.As(read, &fe) && fe.File != "" && errors.Is(fe.Err, ae) {
		place = fe.File
		switch {
		case fe.Line > 0 && fe.HasOffset():
			place += fmt.Sprintf(", line %d (byte %d)", fe.Line, fe.Offset)
		case fe.Line > 0:
			place += fmt.Sprintf(", line %d", fe.Line)
		case fe.HasOffset():
			place += fmt.Sprintf(", byte %d", fe.Offset)
		}
		if fe.Where != "" {
			place += ", " + fe.Where
		}
	}
	if place == "" {
		return over
	}
	return &errs.ArgumentError{Name: ae.Name, Reason: "reading " + place + ": " + ae.Reason}
}
