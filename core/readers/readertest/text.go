package readertest

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// CheckReplacedText checks a trace read from a file with names that are
// not UTF-8: every name of tr is valid UTF-8, some name contains want
// (the damaged name with U+FFFD in place of its invalid bytes), and the
// read's notes say that names were replaced (ingest.ValidText).
func CheckReplacedText(t *testing.T, tr *trace.Trace, notes *trace.Notes, want string) {
	t.Helper()
	var names []string
	for _, c := range tr.Containers {
		names = append(names, c.Name, c.Alias)
	}
	for _, ty := range tr.Types {
		names = append(names, ty.Name, ty.Alias)
	}
	for _, v := range tr.Values {
		names = append(names, v.Name, v.Alias, v.Category)
	}
	found := false
	for _, n := range names {
		if !utf8.ValidString(n) {
			t.Errorf("name %q is not valid UTF-8", n)
		}
		found = found || strings.Contains(n, want)
	}
	if !found {
		t.Errorf("no name contains %q", want)
	}
	if !strings.Contains(strings.Join(notes.Messages(), " "), "not valid UTF-8") {
		t.Errorf("the notes do not say that names were replaced: %q", notes.Messages())
	}
}
