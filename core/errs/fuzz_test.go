package errs

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzQuote checks that a quoted field is short whatever its length, a
// valid Go string literal (its "... (N bytes)" after it when cut), and
// the field itself when short.
func FuzzQuote(f *testing.F) {
	f.Add("abc")
	f.Add(strings.Repeat("é", 100))
	f.Add("\xff\xfe" + strings.Repeat("x", 70))
	f.Fuzz(func(t *testing.T, s string) {
		q := Quote(s)
		if len(q) > 6*MaxQuote+32 {
			t.Fatalf("%d bytes quoted for %d", len(q), len(s))
		}
		lit, _, _ := strings.Cut(q, "... (")
		u, err := strconv.Unquote(lit)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if len(s) <= MaxQuote && u != s || len(s) > MaxQuote && !strings.HasPrefix(s, u) {
			t.Fatalf("%q quoted as %s", s, q)
		}
		if e := Excerpt(s); !utf8.ValidString(s) == utf8.ValidString(e) && len(s) <= MaxQuote && e != s {
			t.Fatalf("excerpt %q of %q", e, s)
		}
		if c := Cap(s); len(c) > MaxMessage+48 {
			t.Fatalf("capped to %d bytes", len(c))
		}
	})
}
