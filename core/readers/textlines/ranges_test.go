package textlines

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// TestRanges checks the cuts against the newlines of the text: every
// range starts a line and ends one (the last at the end), the ranges
// cover the input after first once, and there are as many as asked when
// the lines allow it.
func TestRanges(t *testing.T) {
	text := "header\nab\ncdef\n\ng\nhijklmnop\nq" // last line without newline
	first := int64(len("header\n"))
	lineStarts := map[int64]bool{int64(len(text)): true}
	for i := range len(text) {
		if text[i] == '\n' {
			lineStarts[int64(i+1)] = true
		}
	}
	for _, n := range []int{1, 2, 3, 7, 50} {
		rs, err := Ranges(strings.NewReader(text), first, int64(len(text)), n, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) > n || len(rs) == 0 {
			t.Fatalf("n=%d: %d ranges", n, len(rs))
		}
		at := first
		for _, r := range rs {
			if r[0] != at || r[1] <= r[0] || !lineStarts[r[1]] {
				t.Fatalf("n=%d: ranges %v do not cut on lines from %d", n, rs, first)
			}
			at = r[1]
		}
		if at != int64(len(text)) {
			t.Fatalf("n=%d: ranges %v stop at %d", n, rs, at)
		}
	}
	// Six lines after the header: 50 parts give a range per line but for
	// the empty line, which a cut cannot fall in without also ending the
	// line before it... each range holds at least one line.
	rs, _ := Ranges(strings.NewReader(text), first, int64(len(text)), 50, nil)
	if len(rs) < 4 {
		t.Errorf("50 parts of 6 lines: %v", rs)
	}
	// Nothing after first: the one empty range.
	rs, err := Ranges(strings.NewReader("header\n"), first, first, 4, nil)
	if err != nil || fmt.Sprint(rs) != fmt.Sprintf("[[%d %d]]", first, first) {
		t.Errorf("empty input: %v, %v", rs, err)
	}
	// Lines longer than the read buffer.
	long := bytes.Repeat([]byte("x"), 200<<10)
	in := string(long) + "\n" + string(long) + "\n"
	rs, _ = Ranges(strings.NewReader(in), 0, int64(len(in)), 4, nil)
	if fmt.Sprint(rs) != fmt.Sprintf("[[0 %d] [%d %d]]", len(long)+1, len(long)+1, len(in)) {
		t.Errorf("long lines: %v", rs)
	}
}

// A cut moves past the lines cutBefore refuses.
func TestRangesCutBefore(t *testing.T) {
	text := "a\n-b\n-c\nd\ne\n-f\n"
	noDash := func(line []byte) bool { return !strings.HasPrefix(string(line), "-") }
	rs, err := Ranges(strings.NewReader(text), 0, int64(len(text)), 6, noDash)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if text[r[0]] == '-' {
			t.Fatalf("a range starts at a refused line: %v", rs)
		}
	}
	if fmt.Sprint(rs) != "[[0 8] [8 15]]" {
		t.Fatalf("ranges %v", rs)
	}
}
