package textlines

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	macerrs "github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// mapSmall maps files of any size and gives pages back every 64 KiB
// (a multiple of any page size) for the test's time.
func mapSmall(t *testing.T) {
	oldMin, oldDrop := mapMin, dropEvery
	mapMin, dropEvery = 1, 64<<10
	t.Cleanup(func() { mapMin, dropEvery = oldMin, oldDrop })
}

// scanned is what a scan gave: its lines, the progress it reported last,
// its count of bytes and its error.
type scanned struct {
	lines    []string
	progress int64
	n        int64
	err      string
}

// scanFile scans the file at path, mapped if mapped, stopping with an
// error at line stop (0: never).
func scanFile(t *testing.T, path string, mapped bool, stop int) scanned {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	var s scanned
	opt := trace.ReadOptions{Progress: func(done, total int64) { s.progress = done }}
	s.n, err = Scan(f, Input{Name: path, Total: st.Size(), Map: mapped}, opt, func(text []byte, n int) error {
		if n != len(s.lines)+1 {
			t.Fatalf("line %d numbered %d", len(s.lines)+1, n)
		}
		s.lines = append(s.lines, string(text))
		if n == stop {
			return fmt.Errorf("stopped at line %d", n)
		}
		return nil
	})
	s.err = fmt.Sprint(err)
	return s
}

// A mapped file gives the lines, numbers, errors and last progress report
// that reading it gives, lines across the pages given back included.
func TestMappedAsRead(t *testing.T) {
	mapSmall(t)
	r := rand.New(rand.NewPCG(5, 6))
	var many strings.Builder
	for many.Len() < 1<<20 {
		many.WriteString(strings.Repeat("y", r.IntN(200)))
		many.WriteString([]string{"\n", "\r\n", "\n\n"}[r.IntN(3)])
	}
	dir := t.TempDir()
	for i, text := range []string{
		"a\n\nb c\r\n" + strings.Repeat("x", 3<<20) + "\nlast without newline",
		"one line\n",
		"\n",
		many.String(),
		many.String() + "cut",
	} {
		path := filepath.Join(dir, fmt.Sprintf("f%d.txt", i))
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, stop := range []int{0, 1, 3, 2000} {
			read, mapped := scanFile(t, path, false, stop), scanFile(t, path, true, stop)
			if !slices.Equal(read.lines, mapped.lines) || read.err != mapped.err || read.n != mapped.n && read.err == "<nil>" ||
				read.progress != mapped.progress && read.err == "<nil>" {
				t.Errorf("file %d, stop %d: mapped %d lines, %q, %d bytes, progress %d; read %d, %q, %d, %d", i, stop,
					len(mapped.lines), mapped.err, mapped.n, mapped.progress, len(read.lines), read.err, read.n, read.progress)
			}
		}
	}
}

// Compressed files, files not at their start and small files are read.
func TestMappedOnlyPlain(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.txt")
	os.WriteFile(plain, []byte(strings.Repeat("line\n", 1<<18)), 0o644)
	zipped := filepath.Join(dir, "zipped.txt.gz")
	os.WriteFile(zipped, gz(t, strings.Repeat("line\n", 1<<18)), 0o644)
	small := filepath.Join(dir, "small.txt")
	os.WriteFile(small, []byte("line\n"), 0o644)
	for _, c := range []struct {
		path   string
		skip   int64
		mapped bool
	}{{plain, 0, true}, {plain, 5, false}, {zipped, 0, false}, {small, 0, false}} {
		f, err := os.Open(c.path)
		if err != nil {
			t.Fatal(err)
		}
		f.Seek(c.skip, io.SeekStart)
		data, unmap, ok := ingest.MapPlain(f, mapMin)
		if ok != c.mapped || ok && len(data) != 5<<18 {
			t.Errorf("%s from %d: mapped %v, %d bytes", c.path, c.skip, ok, len(data))
		}
		if ok {
			unmap()
		}
		f.Close()
	}
}

// A line past MaxLine is refused as reading refuses it, with the same
// message: the bytes a read would have taken when it gave up.
func TestMappedLongLine(t *testing.T) {
	if testing.Short() {
		t.Skip("a file of 260 MiB")
	}
	for _, size := range []int64{MaxLine + 100, MaxLine + 4<<20} {
		path := filepath.Join(t.TempDir(), "long.txt")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("first\n")
		f.Truncate(size) // zeros: a sparse file, no end of line
		f.Close()
		read, mapped := scanFile(t, path, false, 0), scanFile(t, path, true, 0)
		if read.err != mapped.err || !strings.Contains(read.err, "runs past 256 MiB") || len(mapped.lines) != 1 {
			t.Errorf("%d bytes: mapped %q, read %q", size, mapped.err, read.err)
		}
	}
}

// A long mapped line is weighed against the memory budget as reading
// weighs the buffer it gathers the line in, growth by growth: under a
// budget it is refused with the budget's error where reading refuses it,
// and the reader holds nothing once the scan is over.
func TestMappedLongLineWeighed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "long.txt")
	text := "first\n" + strings.Repeat("x", 5<<20+3) + "\nlast\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	budget := errors.New("over budget")
	for _, limit := range []int64{-1, 16 << 20, 3 << 20} {
		var holds [2][]int64
		var errs [2]error
		for i, mapped := range []bool{false, true} {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			held := int64(0)
			opt := trace.ReadOptions{Hold: func(n int64) error {
				held += n
				holds[i] = append(holds[i], n)
				if limit >= 0 && held > limit {
					return budget
				}
				return nil
			}}
			_, errs[i] = Scan(f, Input{Name: path, Total: int64(len(text)), Map: mapped}, opt, func([]byte, int) error { return nil })
			f.Close()
			if held != 0 {
				t.Errorf("limit %d, mapped %v: %d bytes held after the scan", limit, mapped, held)
			}
		}
		if !slices.Equal(holds[0], holds[1]) || len(holds[0]) == 0 || fmt.Sprint(errs[0]) != fmt.Sprint(errs[1]) || (limit == 3<<20) != errors.Is(errs[0], budget) {
			t.Errorf("limit %d: mapped weighed %v (%v), read %v (%v)", limit, holds[1], errs[1], holds[0], errs[0])
		}
		// The budget's error is placed at the long line, for the front
		// end to say where the read outgrew it (budget.Named).
		for _, err := range errs {
			if fe := (*macerrs.FormatError)(nil); errors.Is(err, budget) && (!errors.As(err, &fe) || fe.File != path || fe.Line != 2 || fe.Offset != 6) {
				t.Errorf("limit %d: %v, want the budget's error at %s:2 byte 6", limit, err, path)
			}
		}
	}
}

// A mapped file cut short while it is read stops the scan with
// ingest.ErrFileShrank naming the file, not with a fault.
func TestMappedFileShrank(t *testing.T) {
	mapSmall(t)
	path := filepath.Join(t.TempDir(), "shrinks.txt")
	os.WriteFile(path, []byte(strings.Repeat("a line of the file\n", 1<<16)), 0o644)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = Scan(f, Input{Name: path, Map: true}, trace.ReadOptions{}, func(text []byte, n int) error {
		if n == 10 {
			return os.Truncate(path, 100)
		}
		if n > 10 && text[0] != 'a' {
			return errors.New("not a line of the file")
		}
		return nil
	})
	if !errors.Is(err, ingest.ErrFileShrank) || !strings.HasPrefix(err.Error(), path) {
		t.Errorf("%v", err)
	}
}
