package hpctoolkit

import (
	"errors"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// wantFormatError checks that err is a FormatError whose text holds want.
func wantFormatError(t *testing.T, err error, want string) {
	t.Helper()
	var fe *errs.FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v (%T), want a FormatError", err, err)
	}
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q does not say %q", err, want)
	}
}
