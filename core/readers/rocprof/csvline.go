package rocprof

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/readers/textlines"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// errQuote is the cause of a line whose quotes do not pair up.
var errQuote = errors.New("unbalanced double quote")

// splitCSV splits one CSV line (without its terminator) into fields,
// appended to dst: fields may be quoted, with "" for a quote inside, and
// quoted fields may hold commas (kernel signatures do). rocprof never
// writes a line break inside a field, so a record is a line.
func splitCSV(line []byte, dst [][]byte) ([][]byte, error) {
	dst = dst[:0]
	for i := 0; ; {
		if i < len(line) && line[i] == '"' {
			// Quoted: up to the closing quote, "" standing for one.
			i++
			start := i
			var field []byte
			copied := false
			for {
				j := bytes.IndexByte(line[i:], '"')
				if j < 0 {
					return dst, errQuote
				}
				if i+j+1 < len(line) && line[i+j+1] == '"' {
					if !copied {
						field = append([]byte(nil), line[start:i+j+1]...)
						copied = true
					} else {
						field = append(field, line[i:i+j+1]...)
					}
					i += j + 2
					continue
				}
				if copied {
					field = append(field, line[i:i+j]...)
				} else {
					field = line[start : i+j]
				}
				i += j + 1
				break
			}
			dst = append(dst, field)
			if i == len(line) {
				return dst, nil
			}
			if line[i] != ',' {
				return dst, errQuote
			}
			i++
			continue
		}
		j := bytes.IndexByte(line[i:], ',')
		if j < 0 {
			field := line[i:]
			if bytes.IndexByte(field, '"') >= 0 {
				return dst, errQuote
			}
			return append(dst, field), nil
		}
		field := line[i : i+j]
		if bytes.IndexByte(field, '"') >= 0 {
			return dst, errQuote
		}
		dst = append(dst, field)
		i += j + 1
	}
}

// trimEOL removes the line terminator.
func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

// header maps column names to their index.
type header map[string]int

func parseHeader(line []byte) (header, error) {
	fields, err := splitCSV(trimEOL(bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))), nil)
	if err != nil {
		return nil, err
	}
	h := header{}
	for i, f := range fields {
		h[strings.TrimSpace(string(f))] = i
	}
	return h, nil
}

// has reports whether every column is present.
func (h header) has(cols ...string) bool {
	for _, c := range cols {
		if _, ok := h[c]; !ok {
			return false
		}
	}
	return true
}

// col returns the index of the first of the names present, -1 if none.
func (h header) col(names ...string) int {
	for _, n := range names {
		if i, ok := h[n]; ok {
			return i
		}
	}
	return -1
}

// firstLine returns the first line of head.
func firstLine(head []byte) []byte {
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		return head[:i+1]
	}
	return head
}

// row is a parsed data line.
type row struct {
	fields [][]byte
}

func (r *row) str(i int) string {
	if i < 0 || i >= len(r.fields) {
		return ""
	}
	return string(r.fields[i])
}

// int parses field i as a decimal integer.
func (r *row) int(i int) (int64, error) {
	if i < 0 || i >= len(r.fields) {
		return 0, fmt.Errorf("missing column")
	}
	return strconv.ParseInt(string(bytes.TrimSpace(r.fields[i])), 10, 64)
}

// csvFile is a CSV file to read, and how.
type csvFile struct {
	path   string
	strict bool
	before int64 // bytes of the files read before, for progress
	total  int64
	data   []byte // the content, if given (tests); else read from path
}

// badRow describes why a row cannot be read.
func badRow(format string, args ...any) error { return fmt.Errorf(format, args...) }

// read reads the file: its header goes to head, which returns the row
// handler or an error, then each data row goes to that
// handler, which returns an error for a row it cannot read. Such rows are
// skipped and counted (as "<what> rows that cannot be read") or, with
// strict, make the read fail; a last line without its line break that
// cannot be read is a cut record: the trace is marked incomplete. It
// returns the number of rows read and the bytes of input.
func (f csvFile) read(opt trace.ReadOptions, what string,
	head func(h header) (func(r *row) error, error)) (rows int64, size int64, err error) {
	var in io.Reader
	if f.data == nil {
		if _, err := ingest.CheckPath(f.path); err != nil {
			return 0, 0, err
		}
		file, err := ingest.OpenFile(f.path)
		if err != nil {
			return 0, 0, err
		}
		defer file.Close()
		dec, release, err := ingest.Decompress(bufio.NewReaderSize(file, 1<<16), f.path, ingest.DefaultMaxDecompressed)
		if err != nil {
			return 0, 0, err
		}
		defer release()
		in = dec
	}
	var handle func(r *row) error
	var ncols int
	var skipped int64
	warned := false
	r := &row{}
	line := func(text []byte, n int) error {
		cut := text[len(text)-1] != '\n'
		if n == 1 {
			h, err := parseHeader(text)
			if err != nil || len(h) < 2 {
				return errs.Format(f.path, 1, "not a CSV header")
			}
			cols, _ := splitCSV(trimEOL(text), nil)
			ncols = len(cols)
			handle, err = head(h)
			return err
		}
		body := trimEOL(text)
		if len(bytes.TrimSpace(body)) == 0 {
			return nil
		}
		var err error
		r.fields, err = splitCSV(body, r.fields)
		if err == nil && len(r.fields) != ncols {
			err = fmt.Errorf("%d fields, the header has %d", len(r.fields), ncols)
		}
		if err == nil {
			err = handle(r)
			var ae *errs.ArgumentError
			if errors.As(err, &ae) {
				// Not a bad row: the memory budget refused what the rows
				// gathered. The read ends, placed at this line for the
				// front end to say (budget.Named).
				return &errs.FormatError{File: f.path, Line: n, Err: err}
			}
		}
		if err == nil {
			rows++
			return nil
		}
		if cut {
			opt.Incomplete("%s: the last line (%d) is cut", f.path, n)
			return nil
		}
		if f.strict {
			return errs.Format(f.path, n, "%v", err)
		}
		skipped++
		if !warned {
			opt.Warn("%s:%d: %v (row skipped)", f.path, n, err)
			warned = true
		}
		return nil
	}
	if in != nil {
		size, err = textlines.Scan(in, textlines.Input{Name: f.path, Before: f.before, Total: f.total}, opt, line)
	} else {
		size, err = scanBytes(f.data, line)
	}
	if err == nil && handle == nil {
		err = errs.Format(f.path, 0, "empty file: no CSV header")
	}
	opt.Skip(what+" rows that cannot be read", skipped)
	return rows, size, err
}

// scanBytes calls line for each line of data held in memory, as
// textlines.Scan does for a stream, without its large buffer.
func scanBytes(data []byte, line func(text []byte, n int) error) (int64, error) {
	size := int64(len(data))
	for n := 1; len(data) > 0; n++ {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			i = len(data) - 1
		}
		if err := line(data[:i+1], n); err != nil {
			return 0, err
		}
		data = data[i+1:]
	}
	return size, nil
}
