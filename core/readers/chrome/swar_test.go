package chrome

import (
	"bytes"
	"fmt"
	"testing"
)

// slowSkip is what the scanner's ordinary path makes of the value at the
// start of b: where it ends, the lines passed and the leniency seen, or
// its error.
func slowSkip(b []byte, depth int) string {
	s := newBytesScanner("in", b, 1)
	s.slowOnly = true
	if err := s.skipSlow(depth); err != nil {
		return "error"
	}
	return fmt.Sprint(s.pos, s.line-1, s.lenient)
}

// checkSkipFast compares skipFast with the ordinary path on b: where the
// fast path accepts, it must agree.
func checkSkipFast(t *testing.T, b []byte) {
	t.Helper()
	for _, depth := range []int{0, 1, maxNesting - 2} {
		end, lines, lenient, ok := skipFast(b, 0, depth)
		if !ok {
			continue
		}
		if got, want := fmt.Sprint(end, lines, lenient), slowSkip(b, depth); got != want {
			t.Fatalf("skipFast(%q, depth %d) = %s, ordinary path %s", b, depth, got, want)
		}
	}
	// The string scan stops where a byte-by-byte scan stops.
	for i := range b {
		want := i
		for want < len(b) && !stringSpecial[b[want]] {
			want++
		}
		if got := plainRun(b, i); got != want && !(got < want && len(b)-got < 8) {
			t.Fatalf("plainRun(%q, %d) = %d, want %d", b, i, got, want)
		}
		want = i
		for want < len(b) && b[want] != '"' && b[want] != '\\' {
			want++
		}
		if got := quoteOrBackslash(b, i); got != want {
			t.Fatalf("quoteOrBackslash(%q, %d) = %d, want %d", b, i, got, want)
		}
	}
}

func TestSkipFast(t *testing.T) {
	for _, in := range []string{
		`{}`, `[]`, `{"a": [1, 2.5e3, -0, true, false, null, "x\"y"]}`, `{"a":1,}`, `[1,]`, `"raw` + "\n" + `"`,
		`"\u00e9\ud83d\ude00 é"`, "\"\xff\"", `{"a": 01}`, `[1 2]`, `{"a" 1}`, `{"a":1`, `12`, `tru`, `[{"a":[{"b":{}}]}]`,
		"{\n  \"a\": [\n    1\n  ]\n}", `[` + `[`[:1] + `]`, string(bytes.Repeat([]byte("["), 70)) + string(bytes.Repeat([]byte("]"), 70)),
	} {
		checkSkipFast(t, []byte(in))
		checkSkipFast(t, []byte(in+" , "))
	}
}

// FuzzSkipFast checks the eight-bytes-at-a-time scans against the
// scanner's ordinary path and byte-by-byte scans.
func FuzzSkipFast(f *testing.F) {
	f.Add([]byte(`{"a": [1, 2.5e3, -0, true, false, null, "x\"y\\"], "b": {"c": "\u00e9"},}`))
	f.Add([]byte("[\"tab\there\", \"\xe9\", {\"k\" : 1e+5}]"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzInput {
			return
		}
		checkSkipFast(t, b)
	})
}
