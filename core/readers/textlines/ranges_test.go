package textlines

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
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

// FuzzRanges cuts a text into n ranges after first, with or without a
// rule on where a range may start (a line's first byte, or its length as
// cutBefore sees it, at most MaxLook bytes), and checks the cut against
// what Ranges promises, worked out from the text alone: the ranges cover
// [first, size) once, in order, none empty; each cut is the first line
// start the rule accepts after one of the n-1 evenly spaced points; so
// there are at most n. RangeParts makes a part of each range.
func FuzzRanges(f *testing.F) {
	readertest.BoundMinimization(f)
	f.Add([]byte("header\nab\ncdef\n\ng\nhijklmnop\nq"), uint16(7), uint8(3), uint8(0), uint16(0), uint16(0))
	f.Add([]byte("a\n b\n c\nd\n e\nf\n"), uint16(0), uint8(4), uint8(' '), uint16(0), uint16(0))
	f.Add([]byte("a\nbb\nccc\ndddd\n"), uint16(0), uint8(9), uint8(0x80|2), uint16(5000), uint16(3))
	f.Add([]byte("\n\n\n\n"), uint16(2), uint8(255), uint8(0x80), uint16(0), uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, first uint16, n, rule uint8, stretch, at uint16) {
		if len(data) > 8<<10 {
			return
		}
		if stretch > 0 {
			i := int(at) % (len(data) + 1)
			data = slices.Concat(data[:i], bytes.Repeat([]byte{'x'}, int(stretch)%(3*MaxLook)), data[i:])
		}
		size := int64(len(data))
		from := int64(first) % (size + 1)
		// line is the line at s as cutBefore sees it.
		line := func(s int64) []byte {
			l := data[s:min(s+MaxLook, size)]
			if j := bytes.IndexByte(l, '\n'); j >= 0 {
				l = l[:j]
			}
			return l
		}
		var accept func([]byte) bool
		switch {
		case rule == 0:
		case rule&0x80 == 0:
			accept = func(l []byte) bool { return len(l) == 0 || l[0] != rule }
		default:
			accept = func(l []byte) bool { return len(l)%5 != int(rule&0x7f)%5 }
		}
		var cutBefore func([]byte) bool
		if accept != nil {
			cutBefore = func(l []byte) bool {
				if len(l) > MaxLook || bytes.IndexByte(l, '\n') >= 0 {
					t.Fatalf("cutBefore given %d bytes, a newline in them: %v", len(l), bytes.IndexByte(l, '\n') >= 0)
				}
				return accept(l)
			}
		}
		got, err := Ranges(bytes.NewReader(data), from, size, int(n), cutBefore)
		if err != nil {
			t.Fatal(err)
		}

		// The cuts the ranges should have: after each point p, the
		// first line start s > p the rule accepts.
		var want [][2]int64
		start := from
		parts := max(int(n), 1)
		for i := 1; i < parts; i++ {
			p := from + (size-from)*int64(i)/int64(parts)
			s := p + 1
			for ; s < size; s++ {
				if data[s-1] == '\n' && (accept == nil || accept(line(s))) {
					break
				}
			}
			if s < size && s > start {
				want = append(want, [2]int64{start, s})
				start = s
			}
		}
		if start < size || len(want) == 0 {
			want = append(want, [2]int64{start, size})
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%d ranges of [%d, %d): %v, want %v", n, from, size, got, want)
		}

		parts2, err := RangeParts(func(string, int) ([][2]int64, error) { return got, nil }).Cut("x", int(n))
		if err != nil || len(parts2) != len(got) {
			t.Fatalf("RangeParts: %d parts, %v", len(parts2), err)
		}
		for i, p := range parts2 {
			if p.Options.Int("part_start") != int(got[i][0]) || p.Options.Int("part_end") != int(got[i][1]) {
				t.Fatalf("part %d: %v, range %v", i, p.Options, got[i])
			}
		}
	})
}
