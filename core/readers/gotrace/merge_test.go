package gotrace

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	xtrace "golang.org/x/exp/trace"
)

// mergeLine is what TestMergeAgainstParser compares of an event: its
// time and context (and, for the parser's generation marks, only that).
func mergeLine(time, m, p, g int64) string {
	return fmt.Sprintf("%d M=%d P=%d G=%d", time, m, p, g)
}

// checkMerge merges the trace at path and compares every event's time
// and context with the parser's events, in order.
func checkMerge(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	xr, err := xtrace.NewReader(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		t.Fatal(err)
	}
	g, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	br := bufio.NewReaderSize(g, 1<<20)
	head, _ := br.Peek(headerLen)
	ver, _ := version(head, path)
	br.Discard(headerLen)
	n := 0
	mg := newMergerEach(func(e *mergedEvent) error {
		want, err := xr.ReadEvent()
		if err != nil {
			return fmt.Errorf("event %d: the parser ends (%v) where the merge has more", n, err)
		}
		w := mergeLine(int64(want.Time()), int64(want.Thread()), int64(want.Proc()), int64(want.Goroutine()))
		got := mergeLine(e.time, int64(e.m), e.p, e.g)
		if got != w {
			return fmt.Errorf("event %d (%s, wire type %d): merged %s, the parser's %s %s", n, want.Kind(), e.typ, got, want.Kind(), w)
		}
		n++
		return nil
	})
	if err := decodeWire(br, ver, 0, mg.generation); err != nil {
		t.Fatal(err)
	}
	if err := mg.finish(); err != nil {
		t.Fatal(err)
	}
	if ev, err := xr.ReadEvent(); err != io.EOF {
		t.Fatalf("the parser has more events after %d: %v %v", n, ev, err)
	}
	return n
}

// TestMergeAgainstParser checks that the merge delivers the events of
// every binary trace of the generational format in the parser's order,
// at its times and in its contexts (goroutine, P and M).
func TestMergeAgainstParser(t *testing.T) {
	files := wireFiles(t)
	if big := os.Getenv("GOTRACE_BENCH"); big != "" {
		files = append(files, big)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Logf("%d events", checkMerge(t, path))
		})
	}
}

// TestMergedEventSize keeps a merged event to a cache line: the merge
// writes one per event for the builder to read on another core.
func TestMergedEventSize(t *testing.T) {
	if n := unsafe.Sizeof(mergedEvent{}); n != 64 {
		t.Fatalf("a merged event takes %d bytes, want 64", n)
	}
}
