package textlines

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// fuzzScan is what one scan of FuzzScan gave.
type fuzzScan struct {
	lines    [][]byte
	progress int64
	n        int64
	err      error
	holds    []int64
	held     int64 // still held once the scan returned
}

// FuzzScan scans the same text three ways: a plain file read, the same
// file mapped, and its compressed stream (gzip, zstd or bzip2). Each input also stretches one place
// of the text into a long line, sets Input.Total (below 1 MiB, it sizes
// the text buffer: lines of a few kilobytes then take the long-line
// paths, a buffer of its own in Scan, holdLongLine in the mapped scan),
// lowers the line limit (maxLine) to at least that buffer, as MaxLine
// is, sets a memory budget and a line at which the caller stops. The three scans
// must agree (lines, numbers, error, bytes and progress of a complete
// scan, what they weigh against the budget), hold nothing once done,
// give the text back whole when they succeed, never pass on a line
// longer than the limit, and refuse a longer one, or one the budget
// cannot hold, with an error naming the file, line and byte.
func FuzzScan(f *testing.F) {
	readertest.BoundMinimization(f)
	f.Add([]byte("a\n\nb c\r\nlast without newline"), uint16(0), uint16(0), uint16(0), uint8(1), uint8(0), uint8(0))
	f.Add([]byte("first\nsecond\n"), uint16(5000), uint16(3), uint16(0), uint8(42), uint8(0), uint8(0))
	f.Add([]byte("first\nsecond\n"), uint16(20000), uint16(8), uint16(0), uint8(42), uint8(0), uint8(0))
	f.Add([]byte("x\ny\nz\n"), uint16(9000), uint16(2), uint16(5000), uint8(3), uint8(2), uint8(2))
	f.Add([]byte("x\ny\nz\n"), uint16(30000), uint16(4), uint16(0), uint8(200), uint8(7), uint8(0))
	f.Add([]byte("\n\n\n"), uint16(8192), uint16(1), uint16(0), uint8(0), uint8(0), uint8(0))
	oldMin, oldDrop, oldMax := mapMin, dropEvery, maxLine
	f.Cleanup(func() { mapMin, dropEvery, maxLine = oldMin, oldDrop, oldMax })
	// Every file is mapped, and pages are given back every 8 KiB.
	mapMin, dropEvery = 1, 8<<10
	dir := readertest.FuzzDir(f)
	f.Fuzz(func(t *testing.T, data []byte, stretch, at, total uint16, limit, budget, stop uint8) {
		if len(data) > 4<<10 {
			return
		}
		// The long line: stretch bytes of 'x' at at.
		if stretch > 0 {
			i := int(at) % (len(data) + 1)
			data = slices.Concat(data[:i], bytes.Repeat([]byte{'x'}, int(stretch)), data[i:])
		}
		in := Input{Total: 1 + int64(total)%12000}
		_, textSize := bufferSizes(in.Total)
		maxLine = textSize + int(limit)*97
		// budget 0 is none, else a budget of so many text buffers.
		capacity := int64(budget) * int64(textSize)

		path := filepath.Join(dir, "fuzz.txt")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(path)
		// The compressed stream: gzip, zstd or bzip2, by the high part
		// of total (its low part, modulo 12000, is Input.Total).
		kind := compressions[int(total)/12000%len(compressions)]
		zipped := compress(t, data, kind)

		scan := func(how string) fuzzScan {
			var s fuzzScan
			opt := trace.ReadOptions{
				Progress: func(done, total int64) { s.progress = done },
				Hold: func(n int64) error {
					s.holds = append(s.holds, n)
					s.held += n
					if capacity > 0 && n > 0 && s.held > capacity {
						return errOverBudget
					}
					return nil
				},
			}
			in := in
			in.Name = path
			line := func(text []byte, n int) error {
				if n != len(s.lines)+1 {
					t.Fatalf("%s: line %d numbered %d", how, len(s.lines)+1, n)
				}
				s.lines = append(s.lines, bytes.Clone(text))
				if n == int(stop) {
					return errStopped
				}
				return nil
			}
			switch how {
			case "stream":
				// Allowed to expand to the text exactly.
				in.MaxDecompressed = int64(max(1, len(data)))
				s.n, s.err = Scan(bytes.NewReader(zipped), in, opt, line)
			case "bomb":
				// A byte short of the text.
				in.MaxDecompressed = int64(len(data)) - 1
				s.n, s.err = Scan(bytes.NewReader(zipped), in, opt, line)
			default:
				file, err := os.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				defer file.Close()
				in.Map = how == "mapped"
				s.n, s.err = Scan(file, in, opt, line)
			}
			return s
		}
		read, mapped, zip := scan("read"), scan("mapped"), scan("stream")
		zipName := kind
		if len(data) > 1 {
			// Never more lines than the limit on what decompresses
			// allows, and the limit's error if the scan gets that far.
			bomb := scan("bomb")
			joined := bytes.Join(bomb.lines, nil)
			if len(joined) >= len(data) || !bytes.HasPrefix(data, joined) || bomb.held != 0 {
				t.Fatalf("bomb: %d bytes of lines past a limit of %d (%v), %d held", len(joined), len(data)-1, bomb.err, bomb.held)
			}
			var fe *errs.FormatError
			if !errors.Is(bomb.err, errStopped) && (!errors.As(bomb.err, &fe) || fe.File != path) {
				t.Fatalf("bomb: %v, not an error naming the file", bomb.err)
			}
			if read.err == nil && !strings.Contains(bomb.err.Error(), "a decompression bomb") {
				t.Fatalf("bomb: %v, not the limit's error", bomb.err)
			}
		}

		for _, c := range []struct {
			how string
			s   fuzzScan
		}{{"read", read}, {"mapped", mapped}, {zipName, zip}} {
			s := c.s
			if s.held != 0 {
				t.Fatalf("%s: %d bytes still held after the scan (%v)", c.how, s.held, s.holds)
			}
			joined := bytes.Join(s.lines, nil)
			if !bytes.HasPrefix(data, joined) || s.err == nil && len(joined) != len(data) {
				t.Fatalf("%s: the lines are not the text (%d of %d bytes, %v)", c.how, len(joined), len(data), s.err)
			}
			for i, l := range s.lines {
				if len(l) > maxLine || i < len(s.lines)-1 && l[len(l)-1] != '\n' {
					t.Fatalf("%s: line %d of %d bytes (limit %d) %q", c.how, i+1, len(l), maxLine, l[max(0, len(l)-5):])
				}
			}
			if s.err == nil || errors.Is(s.err, errStopped) {
				continue
			}
			// Refused: a line too long, or over budget, placed at the
			// first line not passed on.
			var fe *errs.FormatError
			if !errors.As(s.err, &fe) || fe.File != path || fe.Line != len(s.lines)+1 || !fe.AtOffset || fe.Offset != int64(len(joined)) {
				t.Fatalf("%s: %v (%d lines passed on, %d bytes): not placed at the next line", c.how, s.err, len(s.lines), len(joined))
			}
			if !errors.Is(s.err, errOverBudget) {
				rest := data[len(joined):]
				if end := bytes.IndexByte(rest, '\n') + 1; end > 0 && end <= maxLine || end == 0 && len(rest) <= maxLine {
					t.Fatalf("%s: a line of %d bytes refused under a limit of %d: %v", c.how, max(end, len(rest)), maxLine, s.err)
				}
			}
		}
		for _, c := range []struct {
			how string
			s   fuzzScan
		}{{"mapped", mapped}, {zipName, zip}} {
			s := c.s
			if !slices.EqualFunc(s.lines, read.lines, bytes.Equal) || fmt.Sprint(s.err) != fmt.Sprint(read.err) || !slices.Equal(s.holds, read.holds) {
				t.Fatalf("%s: %d lines, %v, weighed %v; read: %d lines, %v, weighed %v", c.how,
					len(s.lines), s.err, s.holds, len(read.lines), read.err, read.holds)
			}
			if c.how == "mapped" && s.err == nil && (s.n != read.n || s.progress != read.progress) {
				t.Fatalf("mapped: %d bytes, progress %d; read: %d, %d", s.n, s.progress, read.n, read.progress)
			}
		}
	})
}

// compressions are the compressed streams FuzzScan scans.
var compressions = []string{"gzip", "zstd", "bzip2"}

// zstdWriter is one encoder for the process: a new one allocates
// megabytes of tables, far more than a scan.
var zstdWriter, _ = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))

// compress compresses data with kind. Go writes no bzip2: the bzip2
// command does, or, where it is not installed, gzip stands in.
func compress(t *testing.T, data []byte, kind string) []byte {
	switch kind {
	case "zstd":
		return zstdWriter.EncodeAll(data, nil)
	case "bzip2":
		if _, err := exec.LookPath("bzip2"); err == nil {
			return readertest.Compress(t, data, "bzip2")
		}
	}
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(data)
	zw.Close()
	return b.Bytes()
}

var (
	errOverBudget = errors.New("over budget")
	errStopped    = errors.New("stopped by the caller")
)
