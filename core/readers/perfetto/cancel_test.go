package perfetto

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// manySlices writes a trace of n pairs of nested slices on one thread,
// with interned names on an incremental clock, as the SDK writes them.
func manySlices(t testing.TB, n int) string {
	head := traceOf(
		pkt(trackDesc(1, threadDesc(1, 1, "t"))),
		pkt(seqID(1), flags(cleared), interned(map[uint64]string{1: "outer", 2: "inner"}, 1, 2),
			sub(59, vint(58, 64), sub(11, vint(11, 1))),
			sub(6, sub(1, vint(1, 6), vint(2, 0)), sub(1, vint(1, 64), vint(2, 0), vint(3, 1)))))
	pair := traceOf(
		pkt(seqID(1), flags(needs), ts(10), te(evType(begin), nameIID(1))),
		pkt(seqID(1), flags(needs), ts(10), te(evType(begin), nameIID(2))),
		pkt(seqID(1), flags(needs), ts(10), te(evType(end))),
		pkt(seqID(1), flags(needs), ts(10), te(evType(end))))
	path := filepath.Join(t.TempDir(), "many.pftrace")
	if err := os.WriteFile(path, cat(head, bytes.Repeat(pair, n)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCancel(t *testing.T) {
	for _, n := range []int{10, 150000} { // a file under and over the progress step
		path := manySlices(t, n)
		_, full, reports := readertest.Cancel(t, 2*n, func(sink trace.Sink, opt trace.ReadOptions) error {
			return Read(path, sink, opt)
		})
		if reports != 1 {
			t.Errorf("%d slices: %d progress reports after the cancel", n, reports)
		}
		last := full.States.At(full.States.Len() - 1)
		if last.Start != trace.Time(40*(n-1)+10) || last.End != trace.Time(40*n) || last.Depth != 0 {
			t.Errorf("%d slices: last state %+v", n, last)
		}
	}
}

// TestProgress checks that progress counts both passes over the file.
func TestProgress(t *testing.T) {
	path := manySlices(t, 150000)
	st, _ := os.Stat(path)
	var calls []int64
	err := Read(path, &trace.Counter{}, trace.ReadOptions{Progress: func(done, total int64) {
		if total != 2*st.Size() {
			t.Fatalf("total %d, want twice the size %d", total, st.Size())
		}
		calls = append(calls, done)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) < 4 || calls[len(calls)-1] != 2*st.Size() {
		t.Errorf("progress reports %v for a file of %d bytes", calls, st.Size())
	}
	for i := 1; i < len(calls); i++ {
		if calls[i] < calls[i-1] {
			t.Errorf("progress goes back: %v", calls)
		}
	}
}

func BenchmarkRead(b *testing.B) {
	path := manySlices(b, 150000)
	st, _ := os.Stat(path)
	b.SetBytes(st.Size())
	for b.Loop() {
		if err := Read(path, &trace.Counter{}, trace.ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
