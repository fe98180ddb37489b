package pjdump

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"testing"
	"unicode/utf8"
)

// checkSplit compares the splitter of lines without quotes with the
// byte-at-a-time one, which reads every line.
func checkSplit(t *testing.T, line []byte) {
	got, plain, ascii := splitPlain(line, nil)
	want, err := splitQuoted(line, nil)
	if !plain {
		if !slices.Contains(line, '"') {
			t.Fatalf("%q: splitPlain refuses a line without quotes", line)
		}
		return
	}
	if err != nil || len(got) != len(want) {
		t.Fatalf("%q: splitPlain %v, splitQuoted %v, %v", line, got, want, err)
	}
	for i := range got {
		if string(got[i].text) != string(want[i].text) || got[i].quoted != want[i].quoted {
			t.Fatalf("%q: field %d is %q, want %q", line, i, got[i].text, want[i].text)
		}
	}
	if isASCII := !slices.ContainsFunc(line, func(c byte) bool { return c >= 0x80 }); ascii != isASCII {
		t.Fatalf("%q: splitPlain says ASCII %v", line, ascii)
	} else if ascii && !utf8.Valid(line) {
		t.Fatalf("%q: ASCII but not UTF-8", line)
	}
}

func TestSplitPlain(t *testing.T) {
	for _, l := range []string{
		"", ",", ",,", " , ", "State, core-7, State, 1.003865, 1.004839, 0.000974, 0.000000, Compute",
		"Container, 0, 0, 0, 1.954, 1.954, 0", "a\t,\tb ,c\t", "état, ü,", "a,b,c,d,e,f,g,h,i", "x, \"q, r\", y",
		"12345678,12345678,", "\x80\xff,\xc3", "  ,  ,  ,  ,  ,  ,  ,  ,  ",
	} {
		checkSplit(t, []byte(l))
	}
}

func FuzzSplit(f *testing.F) {
	f.Add([]byte("State, core-7, State, 1.003865, 1.004839, 0.000974, 0.000000, Compute"))
	f.Add([]byte("Link, 0, L, 1, 2, 1, \"v, w\", a, b, k"))
	f.Add([]byte("\t a ,b\t,\xe9t\xc3\xa9,"))
	f.Fuzz(func(t *testing.T, line []byte) { checkSplit(t, line) })
}

// FuzzDepth compares the imbrication read without strconv with the
// reading through strconv.ParseFloat it replaces.
func FuzzDepth(f *testing.F) {
	for _, s := range []string{"0", "0.000000", "3.000000", "12", "1.5", "-1", "1e3", "999999999", "1000000000.0", "00.0", ".0", "0.", "2147483648",
		"9.000000", "x.000000", "0.000001", "0.00000 ", "/.000000", ":.000000", "10.00000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := plainDepth([]byte(s))
		if !ok {
			return
		}
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || x < 0 || x != math.Trunc(x) || x > math.MaxInt32 || int32(x) != n {
			t.Fatalf("plainDepth(%q) = %d; strconv: %v, %v", s, n, x, err)
		}
	})
}

// blankLine is bytes.TrimSpace's test of an empty line, for every first
// byte.
func TestBlankLine(t *testing.T) {
	for c := range 256 {
		for _, rest := range []string{"", " ", "x", "\u00a0", "\xa0"} {
			line := append([]byte{byte(c)}, rest...)
			if got, want := blankLine(line), len(bytes.TrimSpace(line)) == 0; got != want {
				t.Errorf("blankLine(%q) = %v", line, got)
			}
		}
	}
	if !blankLine(nil) || !blankLine([]byte("\u00a0 \t\u2003")) {
		t.Error("a line of white space is not blank")
	}
}
