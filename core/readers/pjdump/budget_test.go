package pjdump

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/budget"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// writeGzip writes a gzip file of head, then n bytes of fill, then tail.
func writeGzip(t *testing.T, head string, fill byte, n int, tail string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "long.csv.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	z := gzip.NewWriter(f)
	z.Write([]byte(head))
	chunk := bytes.Repeat([]byte{fill}, 1<<20)
	for range n >> 20 {
		z.Write(chunk)
	}
	z.Write([]byte(tail))
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return path
}

const containerLine = "Container, 0, 0, 0.000000, 1.000000, 1.000000, 0\n"

// readUnder opens path through the door and reads it under a budget of
// limit bytes, returning the bytes allocated from the open to the end of
// the read, the meter's error and the read's.
func readUnder(t *testing.T, path string, limit int64) (allocated uint64, over, err error) {
	t.Helper()
	return readUnderWith(t, path, ingest.Values{}, limit)
}

// readUnderWith is readUnder with the door's options v.
func readUnderWith(t *testing.T, path string, v ingest.Values, limit int64) (allocated uint64, over, err error) {
	t.Helper()
	stop := make(chan struct{})
	meter := budget.NewMeter(limit, func() { close(stop) })
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	src, err := Format.Open(path, v)
	if err == nil {
		err = src.Read(trace.New(), trace.ReadOptions{Hold: meter.Hold, Cancel: stop})
	}
	runtime.ReadMemStats(&after)
	if meter.Held() != 0 {
		t.Errorf("%d bytes still held after the read", meter.Held())
	}
	return after.TotalAlloc - before.TotalAlloc, meter.Err(), err
}

func isBudget(err error, limit string) bool {
	var ae *errs.ArgumentError
	return errors.As(err, &ae) && ae.Name == "memory_budget" && strings.Contains(ae.Reason, "more than the memory budget of "+limit)
}

// The scan for StarPU's container types (time_unit auto) reads a
// compressed file's lines as the read does, a line of 64 MiB with no end
// too: it is weighed against the read's budget, where the door's Open
// made it without one, then the read made it again.
func TestTimeUnitScanWeighed(t *testing.T) {
	path := writeGzip(t, containerLine+"State, 0, S, 0.0, 1.0, 1.0, 0, ", 'x', 64<<20, "")
	allocated, over, err := readUnder(t, path, 8<<20)
	if !isBudget(over, "8 MiB") || err == nil {
		t.Errorf("read: %v; meter: %v", err, over)
	}
	// A few buffers of the budget's size; the 64 MiB line, once or
	// twice, before.
	if allocated > 48<<20 {
		t.Errorf("%d MiB allocated under a budget of 8 MiB", allocated>>20)
	}
}

// A line of 8 MiB of commas splits into 8 Mi fields of 32 bytes: 256 MiB
// held for a line that the budget of 64 MiB holds, weighed before they
// are made.
func TestManyFieldsWeighed(t *testing.T) {
	path := writeGzip(t, containerLine+"State, 0, S, 0.0, 1.0, 1.0, 0", ',', 8<<20, "\n")
	allocated, over, err := readUnder(t, path, 64<<20)
	var fe *errs.FormatError
	if !isBudget(over, "64 MiB") || !errors.Is(err, over) || !errors.As(err, &fe) || fe.File != path || fe.Line != 2 {
		t.Errorf("read: %v; meter: %v", err, over)
	}
	if allocated > 128<<20 {
		t.Errorf("%d MiB allocated under a budget of 64 MiB", allocated>>20)
	}
	// Under a budget they fit in, the line is read, and refused as the
	// short line of the same fields is.
	_, over, err = readUnder(t, path, 1<<30)
	short := filepath.Join(t.TempDir(), "short.csv")
	os.WriteFile(short, []byte(containerLine+"State, 0, S, 0.0, 1.0, 1.0, 0"+strings.Repeat(",", 100)+"\n"), 0o644)
	_, _, want := readUnder(t, short, 1<<30)
	if over != nil || (err == nil) != (want == nil) {
		t.Errorf("long: %v (meter %v); short: %v", err, over, want)
	}
}

// writeSparse writes head, then a line of n zero bytes (a hole: no disk
// taken) and its end, then tail, and returns the path and where tail
// starts.
func writeSparse(t *testing.T, head string, n int64, tail string) (string, int64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "long.csv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString(head)
	at := int64(len(head)) + n
	if _, err := f.WriteAt([]byte("\n"+tail), at); err != nil {
		t.Fatal(err)
	}
	return path, at + 1
}

// A part of a plain file reads the container lines before its range by
// blocks; a line longer than a block grows it. The bigger block is
// weighed against the budget before it is made, where it doubled without
// a bound: a line of 40 MiB took blocks of 64 MiB under a budget of 8
// MiB. The error says where.
func TestPartScanWeighed(t *testing.T) {
	tail := "State, 0, S, 0.0, 1.0, 1.0, 0, s\n"
	path, from := writeSparse(t, containerLine+"State, 0, S, 0.0, 1.0, 1.0, 0, x", 40<<20, tail)
	v := ingest.Values{"part_start": int(from), "part_end": int(from) + len(tail)}
	allocated, over, err := readUnderWith(t, path, v, 8<<20)
	var fe *errs.FormatError
	if !isBudget(over, "8 MiB") || !errors.Is(err, over) || !errors.As(err, &fe) || fe.File != path || fe.Line != 2 {
		t.Errorf("read: %v; meter: %v", err, over)
	}
	if allocated > 24<<20 {
		t.Errorf("%d MiB allocated under a budget of 8 MiB", allocated>>20)
	}
	// Under a budget it fits in, the part is read.
	if _, over, err := readUnderWith(t, path, v, 1<<30); over != nil || err != nil {
		t.Errorf("under 1 GiB: %v; meter: %v", err, over)
	}
}

// Without a budget (the scan for StarPU's types when a part is opened,
// or a read with none), a line of the scan stops at the longest line a
// read takes, with the reads' error naming the file and line, where the
// block doubled past it: a line of 300 MiB took a block of 512 MiB, and
// 1 GiB allocated in all.
func TestPartScanLineLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 300 MiB (of a hole) twice")
	}
	// "Memory Node" is named: the scan at the part's open reads the
	// container lines.
	tail := "State, 0, S, 0.0, 1.0, 1.0, 0, s\nContainer, 0, Memory Node, 0, 1, 1, m\n"
	path, from := writeSparse(t, containerLine+"State, 0, S, 0.0, 1.0, 1.0, 0, x", 300<<20, tail)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	src, err := Format.Open(path, ingest.Values{"part_start": int(from), "part_end": int(from) + len(tail)})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	// Blocks of 4 to 256 MiB, the one before alive while the next is
	// made.
	if got := after.TotalAlloc - before.TotalAlloc; got > 600<<20 {
		t.Errorf("the open allocated %d MiB", got>>20)
	}
	err = src.Read(trace.New(), trace.ReadOptions{})
	var fe *errs.FormatError
	if !errors.As(err, &fe) || fe.File != path || fe.Line != 2 || !strings.Contains(err.Error(), "runs past 256 MiB") {
		t.Errorf("read: %v", err)
	}
}
