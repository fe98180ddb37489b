package otf2

import (
	"reflect"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The window guessed from the clock properties is the read's when the
// records lie in their span; when they do not (records after the trace
// length), the model's read finds out and reads again: the model is the
// one of the trace in memory either way.
func TestWindowGuess(t *testing.T) {
	for _, tc := range []struct {
		name      string
		last      uint64 // tick of the last Leave
		wantEnd   trace.Time
		wantReads int
	}{
		{"in the span", 1090, 100, 1},
		{"beyond the span", 1150, 150, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l0, l1 := &enc{}, &enc{}
			evTime(l0, 1000)
			evRegion(l0, evEnter, regionMain)
			evTime(l0, 1010)
			evRegion(l0, evEnter, regionWork)
			evTime(l0, 1030)
			evRegion(l0, evLeave, regionWork)
			evTime(l0, tc.last)
			evRegion(l0, evLeave, regionMain)
			evTime(l1, 1005)
			evRegion(l1, evEnter, regionWork)
			evTime(l1, 1040)
			evRegion(l1, evLeave, regionWork)
			anchor := testArchive{defs: baseDefs(false).b, locations: map[uint64][]byte{
				0: chunked(false, 0, l0.b), 1: chunked(false, 0, l1.b),
			}}.write(t, t.TempDir())
			if s, e, ok := window(anchor, nil); !ok || s != 0 || e != 100 {
				t.Fatalf("window [%d, %d] %v, want [0, 100] (the clock properties)", s, e, ok)
			}
			tr, err := readFile(anchor)
			if err != nil {
				t.Fatal(err)
			}
			if tr.End != tc.wantEnd {
				t.Fatalf("the read ends at %d, want %d", tr.End, tc.wantEnd)
			}
			src, err := Format.Open(anchor, nil)
			if err != nil {
				t.Fatal(err)
			}
			opt := micro.Options{Slices: 7, Depth: micro.Innermost}
			m, sum, err := micro.FromSource(src, opt, trace.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			want, err := micro.Build(tr, opt)
			if err != nil {
				t.Fatal(err)
			}
			if sum.Passes != tc.wantReads || !reflect.DeepEqual(m.Values, want.Values) || m.End != want.End {
				t.Errorf("%d reads, values %v to %d; want %d reads, %v to %d", sum.Passes, m.Values, m.End, tc.wantReads, want.Values, want.End)
			}
		})
	}
}
