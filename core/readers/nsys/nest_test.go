package nsys

import (
	"slices"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/nesting"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
)

// spansOf decodes fuzz input into at most 64 spans, 3 bytes each: a
// start in [0, 1024) and a length in [0, 64), so that they overlap often.
func spansOf(b []byte) []span {
	var sp []span
	for i := 0; i+3 <= len(b) && len(sp) < 64; i += 3 {
		start := int64(b[i]) | int64(b[i+1]&3)<<8
		sp = append(sp, span{start: start, end: start + int64(b[i+2]&63), seq: int32(len(sp))})
	}
	return sp
}

// laminar tells whether every two spans nest or are disjoint (touching
// counts as disjoint).
func laminar(sp []span) bool {
	for _, a := range sp {
		for _, b := range sp {
			if a.start < b.start && b.start < a.end && a.end < b.end {
				return false
			}
		}
	}
	return true
}

// checkLanes verifies nest's result: on each lane, the spans at one
// depth do not overlap, each span at depth d > 0 lies in the latest
// started span at depth d-1, and order ranks the spans by start.
func checkLanes(t *testing.T, sp []span, lanes int32) {
	byLane := map[int32][]span{}
	for _, s := range sp {
		if s.lane < 0 || s.lane >= lanes {
			t.Fatalf("lane %d of %d", s.lane, lanes)
		}
		byLane[s.lane] = append(byLane[s.lane], s)
	}
	for l, list := range byLane {
		slices.SortFunc(list, func(a, b span) int { return int(a.order - b.order) })
		var open []span // the stack, outermost first
		for i, s := range list {
			if s.order != int32(i) {
				t.Fatalf("lane %d: orders %v", l, list)
			}
			if i > 0 && s.start < list[i-1].start {
				t.Fatalf("lane %d: order %d starts before order %d", l, i, i-1)
			}
			for len(open) > 0 && open[len(open)-1].end < s.end && open[len(open)-1].end <= s.start {
				open = open[:len(open)-1]
			}
			if int(s.depth) != len(open) {
				t.Fatalf("lane %d: %+v at depth %d, %d open: %+v", l, s, s.depth, len(open), open)
			}
			if len(open) > 0 && open[len(open)-1].end < s.end {
				t.Fatalf("lane %d: %+v overlaps %+v without nesting", l, s, open[len(open)-1])
			}
			open = append(open, s)
		}
	}
}

// checkDelivery verifies the ranks of delivery nest gives: every span
// its own, lane by lane, and on each lane as they complete: a span comes
// right after its last child, else after a span that ended before it
// started.
func checkDelivery(t *testing.T, sp []span) {
	delivery := make([]int32, len(sp))
	seen := make([]bool, len(sp))
	for i, s := range sp {
		if s.delivery < 0 || int(s.delivery) >= len(sp) || seen[s.delivery] {
			t.Fatalf("span %d ranked %d", i, s.delivery)
		}
		seen[s.delivery] = true
		delivery[s.delivery] = int32(i)
	}
	for k, i := range delivery {
		if k == 0 {
			continue
		}
		prev, s := sp[delivery[k-1]], sp[i]
		switch {
		case prev.lane > s.lane:
			t.Fatalf("lane %d delivered after lane %d", s.lane, prev.lane)
		case prev.lane < s.lane:
		case prev.depth > s.depth:
			if prev.depth != s.depth+1 || prev.start < s.start || prev.end > s.end {
				t.Fatalf("%+v delivered after %+v, deeper but not its child", s, prev)
			}
		case prev.end > s.start:
			t.Fatalf("%+v delivered after %+v, which ends after it starts", s, prev)
		}
	}
}

func FuzzNest(f *testing.F) {
	readertest.BoundMinimization(f)
	f.Add([]byte{})
	f.Add([]byte{0, 0, 10, 5, 0, 10, 2, 0, 3})
	f.Add([]byte{1, 0, 40, 3, 0, 40, 5, 0, 1, 5, 0, 0, 9, 0, 20, 30, 0, 10})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<12 {
			return
		}
		sp := spansOf(b)
		lam := laminar(sp)
		tr := nesting.Tracker{KeepCompletion: true}
		lanes, ok := nest(&tr, sp)
		if !ok {
			t.Fatal("too many lanes")
		}
		checkLanes(t, sp, lanes)
		checkDelivery(t, sp)
		if lam != (lanes == 1) && len(sp) > 0 {
			t.Fatalf("laminar %v but %d lanes", lam, lanes)
		}
	})
}
