package paje

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// naiveFields is appendFields written plainly, a byte at a time: the
// reference its word-at-a-time scan must agree with.
func naiveFields(line []byte) ([]string, []bool, error) {
	isBlank := func(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }
	var fields []string
	var quoted []bool
	i := 0
	for {
		for i < len(line) && isBlank(line[i]) {
			i++
		}
		if i == len(line) || line[i] == '#' {
			return fields, quoted, nil
		}
		if line[i] == '"' {
			end := bytes.IndexByte(line[i+1:], '"')
			if end < 0 {
				return fields, quoted, errors.New("unterminated quoted string")
			}
			fields, quoted = append(fields, string(line[i+1:i+1+end])), append(quoted, true)
			i += end + 2
			if i < len(line) && !isBlank(line[i]) {
				return fields, quoted, errors.New("quoted string followed by text without a blank")
			}
			continue
		}
		start := i
		for i < len(line) && !isBlank(line[i]) {
			i++
		}
		fields, quoted = append(fields, string(line[start:i])), append(quoted, false)
	}
}

func checkFields(t *testing.T, line []byte, after []byte) {
	wantF, wantQ, wantErr := naiveFields(line)
	// The line sits in a buffer that goes on (as in a chunk), preceded by
	// another line: the scan must stop at its end.
	buf := append(append([]byte("1 2 3\n"), line...), after...)
	spans, err := appendFields(buf, 6, 6+len(line), nil)
	if fmt.Sprint(err) != fmt.Sprint(wantErr) || len(spans) != len(wantF) {
		t.Fatalf("%q: %d fields, error %v; want %q, %v", line, len(spans), err, wantF, wantErr)
	}
	for i, s := range spans {
		if string(buf[s.from:s.to]) != wantF[i] || s.quoted(buf) != wantQ[i] {
			t.Fatalf("%q: field %d is %q (quoted %v), want %q (%v)", line, i, buf[s.from:s.to], s.quoted(buf), wantF[i], wantQ[i])
		}
	}
	// The word-at-a-time splitter of plain lines, where it applies, and
	// its form on classified bytes, at every alignment of the line.
	checkBitFields(t, line, after)
	plain, end, ok := plainFields(buf, 6, nil)
	if !ok {
		if isPlain(line) {
			t.Fatalf("%q: plainFields refuses a plain line", line)
		}
		return
	}
	if end != 6+len(line) {
		t.Fatalf("%q: plainFields ends the line at %d, want %d", line, end, 6+len(line))
	}
	if wantErr != nil || len(plain) != len(wantF) {
		t.Fatalf("%q: plainFields finds %d fields, want %q, %v", line, len(plain), wantF, wantErr)
	}
	for i, s := range plain {
		if string(buf[s.from:s.to]) != wantF[i] || wantQ[i] {
			t.Fatalf("%q: plainFields' field %d is %q, want %q", line, i, buf[s.from:s.to], wantF[i])
		}
	}
}

// isPlain tells the lines plainFields must take: spaces and printable
// ASCII from '$' up.
func isPlain(line []byte) bool {
	for _, c := range line {
		if c != ' ' && (c < '$' || c >= 0x80) {
			return false
		}
	}
	return true
}

func TestFields(t *testing.T) {
	for _, l := range []string{"", " ", "5 0.123456789 ST k12 v3", "a\x01b c", "\"x y\" z", "long-field-of-more-than-eight-bytes\tx",
		"a #comment", "a\"b c", "\"\" x", "x\v\f\ry", "é ü", "1234567 12345678 123456789", "   a   b   ", "abcdefgh ijklmnop", "x!y", "7"} {
		for _, after := range []string{"", "\n", "\nnext line", " more"} {
			if after == " more" {
				continue // a line ends at '\n' or at the end of the buffer
			}
			checkFields(t, []byte(l), []byte(after))
		}
	}
}

func FuzzFields(f *testing.F) {
	readertest.BoundMinimization(f)
	f.Add([]byte("5 0.123456789 ST k12 v3"), []byte("\n6 1"))
	f.Add([]byte("a\x01b\x1f\x20c \"q q\"x"), []byte(""))
	f.Fuzz(func(t *testing.T, line, after []byte) {
		if bytes.IndexByte(line, '\n') >= 0 || (len(after) > 0 && after[0] != '\n') {
			return
		}
		checkFields(t, line, after)
	})
}

// FuzzDate checks the fast date parser against trace.ParseTime, which is
// exact: wherever the fast path answers, it answers the same.
func FuzzDate(f *testing.F) {
	readertest.BoundMinimization(f)
	for _, s := range []string{"0.123456789", "12.5", "-3.000000000000", "1.1234567891", "99999999999.1", "1.23456780", "1.2345678x", "+7.00000001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseDatePlain([]byte(s))
		if !ok || len(s) > 400 {
			return // trace.ParseTime refuses strings that long; dates may have any number of trailing zeros
		}
		want, err := trace.ParseTime(s)
		if err != nil || got != want {
			t.Fatalf("%q: fast %d, exact %d (%v)", s, got, want, err)
		}
	})
}

func TestEightDigits(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint64
		ok   bool
	}{{"12345678", 12345678, true}, {"00000000", 0, true}, {"99999999", 99999999, true}, {"1234567:", 0, false},
		{"/2345678", 0, false}, {"1234567\xb9", 0, false}, {"12 45678", 0, false}} {
		got, ok := eightDigits([]byte(c.in))
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("%q: %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// nineDecimals reads every date of its form, digits (at most 9e9), '.'
// and nine decimals, as trace.ParseTime does, and refuses every other:
// random dates of one to eleven whole digits, some with a byte changed.
func TestNineDecimals(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 43))
	odd := []byte("/:. -+e\x00\xb0a")
	for range 200_000 {
		b := make([]byte, 1+rng.IntN(11), 21)
		for i := range b {
			b[i] = '0' + byte(rng.IntN(10))
		}
		b = append(b, '.')
		for range 9 {
			b = append(b, '0'+byte(rng.IntN(10)))
		}
		if rng.IntN(3) == 0 {
			b[rng.IntN(len(b))] = odd[rng.IntN(len(odd))]
		}
		form := nineDecimalsForm(b)
		got, ok := nineDecimals(b)
		if ok != form {
			t.Fatalf("%q: ok %v, want %v", b, ok, form)
		}
		if want, err := trace.ParseTime(string(b)); ok && (err != nil || got != want) {
			t.Fatalf("%q: %d, ParseTime %d (%v)", b, got, want, err)
		}
	}
}

// nineDecimalsForm tells, a byte at a time, whether b is of the form
// nineDecimals reads.
func nineDecimalsForm(b []byte) bool {
	n := len(b)
	if n < 11 || n > 20 || b[n-10] != '.' {
		return false
	}
	var whole uint64
	for i, c := range b {
		switch {
		case i == n-10:
		case c < '0' || c > '9':
			return false
		case i < n-10:
			whole = whole*10 + uint64(c-'0')
		}
	}
	return whole <= 9e9
}
