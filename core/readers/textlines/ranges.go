package textlines

import (
	"bytes"
	"fmt"
	"io"

	"github.com/macroscope-hpc/macroscope/core/ingest"
)

// Ranges cuts the bytes [first, size) of a plain (uncompressed) text
// input into at most n ranges of about equal size, each starting at the
// beginning of a line and ending just after a newline (the last one at
// size): the line that holds a cut ends the range before it. Each range
// is [r[0], r[1]); together they cover [first, size) once, in order. A
// range is never empty, so there are fewer than n when lines are fewer
// (or longer than a range); [first, size) itself is the one range of an
// input with nothing after first.
//
// Readers of line-oriented traces whose records are whole lines (Paraver,
// pj_dump) read a range as a part of the trace, on a process of its own.
//
// cutBefore, if not nil, tells whether a range may start at a line (given
// without its newline, at most MaxLook bytes of it): a cut that falls
// before a line it refuses moves on to the next line it accepts (pj_dump
// keeps a nested state with the state that encloses it).
func Ranges(r io.ReaderAt, first, size int64, n int, cutBefore func(line []byte) bool) ([][2]int64, error) {
	n = max(n, 1)
	var out [][2]int64
	from := first
	buf := make([]byte, 64<<10)
	for i := 1; i <= n && from < size; i++ {
		to := size
		if i < n {
			var err error
			if to, err = nextLine(r, first+(size-first)*int64(i)/int64(n), size, buf); err != nil {
				return nil, err
			}
			for cutBefore != nil && to < size {
				k, err := r.ReadAt(buf[:min(MaxLook, size-to)], to)
				if err != nil && err != io.EOF {
					return nil, err
				}
				line := buf[:k]
				if j := bytes.IndexByte(line, '\n'); j >= 0 {
					line = line[:j]
				}
				if cutBefore(line) {
					break
				}
				if to, err = nextLine(r, to, size, buf); err != nil {
					return nil, err
				}
			}
		}
		if to > from {
			out = append(out, [2]int64{from, to})
			from = to
		}
	}
	if len(out) == 0 {
		out = append(out, [2]int64{first, size})
	}
	return out, nil
}

// MaxLook is how many bytes of a line Ranges gives its cutBefore.
const MaxLook = 4 << 10

// nextLine returns the offset just past the first newline at or after at
// (size if there is none).
func nextLine(r io.ReaderAt, at, size int64, buf []byte) (int64, error) {
	for at < size {
		n, err := r.ReadAt(buf[:min(int64(len(buf)), size-at)], at)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return at + int64(i) + 1, nil
		}
		at += int64(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	return size, nil
}

// RangeParts describes the parts of a distributed read of a format whose
// reader takes the options part_start and part_end, a byte range of whole
// lines: cut lists the ranges of the file at path (Ranges, with the
// format's rule on where a range may start; none for a file that cannot
// be cut), read one after the other.
func RangeParts(cut func(path string, n int) ([][2]int64, error)) *ingest.Parts {
	return &ingest.Parts{
		Cut: func(path string, n int) ([]ingest.Part, error) {
			ranges, err := cut(path, n)
			if err != nil {
				return nil, err
			}
			parts := make([]ingest.Part, len(ranges))
			for i, r := range ranges {
				parts[i] = ingest.Part{Options: ingest.Values{"part_start": int(r[0]), "part_end": int(r[1])},
					Label: fmt.Sprintf("bytes %d-%d", r[0], r[1])}
			}
			return parts, nil
		},
		IsPart: func(v ingest.Values) bool { return v.Int("part_end") > 0 },
	}
}
