package nesting

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// iv is a slice of a test: [start, end].
type iv struct{ start, end trace.Time }

// place places in (in the order of Compare) with t and returns the
// placements, or the index of the first slice that did not fit.
func place(t *Tracker, in []iv) ([]Placement, int) {
	out := make([]Placement, len(in))
	for i, s := range in {
		p, ok := t.Place(s.start, s.end)
		if !ok {
			return out[:i], i
		}
		out[i] = p
	}
	return out, -1
}

// completed returns the slices of all lanes in the order of delivery:
// lane by lane, each lane's as they complete.
func completed(t *Tracker) []int32 {
	var all []int32
	for l := range t.Lanes() {
		all = append(all, t.Completed(l)...)
	}
	return all
}

func TestPlace(t *testing.T) {
	p := func(lane, depth, order int32) Placement { return Placement{Lane: lane, Depth: depth, Order: order} }
	tests := []struct {
		name     string
		c        Containment
		max      int
		in       []iv // in the order of Compare, ties in file order
		want     []Placement
		complete []int32
	}{
		{name: "call stack", in: []iv{{0, 10}, {1, 4}, {2, 3}, {5, 9}},
			want: []Placement{p(0, 0, 0), p(0, 1, 1), p(0, 2, 2), p(0, 1, 3)}, complete: []int32{2, 1, 3, 0}},
		{name: "siblings that touch", in: []iv{{0, 5}, {5, 10}},
			want: []Placement{p(0, 0, 0), p(0, 0, 1)}, complete: []int32{0, 1}},
		{name: "closed: zero-length at the end is a child", in: []iv{{0, 10}, {10, 10}},
			want: []Placement{p(0, 0, 0), p(0, 1, 1)}, complete: []int32{1, 0}},
		{name: "half-open: zero-length at the end comes after", c: HalfOpen, in: []iv{{0, 10}, {10, 10}},
			want: []Placement{p(0, 0, 0), p(0, 0, 1)}, complete: []int32{0, 1}},
		{name: "zero-length at the start is a child", in: []iv{{0, 10}, {0, 0}},
			want: []Placement{p(0, 0, 0), p(0, 1, 1)}, complete: []int32{1, 0}},
		{name: "half-open: zero-length at the start is a child", c: HalfOpen, in: []iv{{0, 10}, {0, 0}},
			want: []Placement{p(0, 0, 0), p(0, 1, 1)}, complete: []int32{1, 0}},
		{name: "identical: the first is the parent", in: []iv{{3, 8}, {3, 8}, {3, 8}},
			want: []Placement{p(0, 0, 0), p(0, 1, 1), p(0, 2, 2)}, complete: []int32{2, 1, 0}},
		{name: "half-open: identical, the first is the parent", c: HalfOpen, in: []iv{{3, 8}, {3, 8}},
			want: []Placement{p(0, 0, 0), p(0, 1, 1)}, complete: []int32{1, 0}},
		{name: "closed: identical zero-length slices nest", in: []iv{{4, 4}, {4, 4}},
			want: []Placement{p(0, 0, 0), p(0, 1, 1)}, complete: []int32{1, 0}},
		{name: "half-open: identical zero-length slices are siblings", c: HalfOpen, in: []iv{{4, 4}, {4, 4}},
			want: []Placement{p(0, 0, 0), p(0, 0, 1)}, complete: []int32{0, 1}},
		{name: "same start: the longer is the parent", in: []iv{{0, 9}, {0, 5}, {0, 2}},
			want: []Placement{p(0, 0, 0), p(0, 1, 1), p(0, 2, 2)}, complete: []int32{2, 1, 0}},
		{name: "same end: a child", in: []iv{{0, 9}, {4, 9}},
			want: []Placement{p(0, 0, 0), p(0, 1, 1)}, complete: []int32{1, 0}},
		{name: "overlap goes to a new lane", in: []iv{{0, 10}, {5, 15}},
			want: []Placement{p(0, 0, 0), p(1, 0, 0)}, complete: []int32{0, 1}},
		{name: "a child of the overlapping slice follows it", in: []iv{{0, 10}, {5, 15}, {6, 8}},
			want: []Placement{p(0, 0, 0), p(1, 0, 0), p(1, 1, 1)}, complete: []int32{0, 2, 1}},
		{name: "the innermost open slice is the latest started", in: []iv{{0, 20}, {5, 30}, {10, 12}, {12, 18}},
			want: []Placement{p(0, 0, 0), p(1, 0, 0), p(1, 1, 1), p(1, 1, 2)}, complete: []int32{0, 2, 3, 1}},
		{name: "within its lane, an enclosing slice that started earlier", in: []iv{{0, 20}, {5, 30}, {21, 25}},
			want: []Placement{p(0, 0, 0), p(1, 0, 0), p(1, 1, 1)}, complete: []int32{0, 2, 1}},
		{name: "the first lane with nothing open", in: []iv{{0, 10}, {5, 15}, {12, 14}},
			want: []Placement{p(0, 0, 0), p(1, 0, 0), p(1, 1, 1)}, complete: []int32{0, 2, 1}},
		{name: "lane 0 again once free", in: []iv{{0, 10}, {5, 15}, {11, 20}},
			want: []Placement{p(0, 0, 0), p(1, 0, 0), p(0, 0, 1)}, complete: []int32{0, 2, 1}},
		{name: "a lane blocked by an overlapping slice", in: []iv{{0, 10}, {5, 15}, {8, 12}},
			want: []Placement{p(0, 0, 0), p(1, 0, 0), p(1, 1, 1)}, complete: []int32{0, 2, 1}},
		{name: "three lanes", in: []iv{{0, 10}, {2, 12}, {4, 14}},
			want: []Placement{p(0, 0, 0), p(1, 0, 0), p(2, 0, 0)}, complete: []int32{0, 1, 2}},
		{name: "bound on lanes", max: 2, in: []iv{{0, 10}, {2, 12}, {4, 14}},
			want: []Placement{p(0, 0, 0), p(1, 0, 0)}},
		{name: "one lane: the overlap does not fit", c: HalfOpen, max: 1, in: []iv{{0, 10}, {1, 3}, {5, 15}},
			want: []Placement{p(0, 0, 0), p(0, 1, 1)}},
		{
			// A' ends when B' starts; B is zero-length at B's start, so
			// nested in B' (Compare puts B' first, and B' ends A'). A'
			// completes first, though B is deeper and ends at A's end.
			name: "completion: a sibling's zero-length child comes after", in: []iv{{0, 10}, {10, 20}, {10, 10}},
			want: []Placement{p(0, 0, 0), p(0, 0, 1), p(0, 1, 2)}, complete: []int32{0, 2, 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := &Tracker{Containment: tt.c, MaxLanes: tt.max, KeepCompletion: true}
			got, failed := place(tr, tt.in)
			if !slices.Equal(got, tt.want) {
				t.Errorf("placements %v, want %v", got, tt.want)
			}
			if tt.complete == nil {
				if failed != len(tt.want) {
					t.Errorf("slice %d did not fit, want %d", failed, len(tt.want))
				}
				return
			}
			if failed >= 0 {
				t.Fatalf("slice %d did not fit", failed)
			}
			if c := completed(tr); !slices.Equal(c, tt.complete) {
				t.Errorf("completed %v, want %v", c, tt.complete)
			}
		})
	}
}

func TestInnermost(t *testing.T) {
	tests := []struct {
		name string
		c    Containment
		in   []iv
		at   trace.Time
		want int // -1 for none
	}{
		{name: "inside", in: []iv{{0, 10}, {2, 5}}, at: 3, want: 1},
		{name: "after the child", in: []iv{{0, 10}, {2, 5}}, at: 7, want: 0},
		{name: "closed: at the child's end", in: []iv{{0, 10}, {2, 5}}, at: 5, want: 1},
		{name: "half-open: at the child's end", c: HalfOpen, in: []iv{{0, 10}, {2, 5}}, at: 5, want: 0},
		{name: "closed: at the very end", in: []iv{{0, 10}}, at: 10, want: 0},
		{name: "half-open: at the very end", c: HalfOpen, in: []iv{{0, 10}}, at: 10, want: -1},
		{name: "nothing open", in: []iv{{0, 10}}, at: 11, want: -1},
		{name: "empty", at: 3, want: -1},
		{name: "at a start", in: []iv{{0, 10}, {4, 6}}, at: 4, want: 1},
		{name: "across lanes: the latest started", in: []iv{{0, 10}, {5, 15}}, at: 7, want: 1},
		{name: "across lanes: the one still open", in: []iv{{0, 10}, {5, 15}}, at: 12, want: 1},
		{name: "across lanes: deeper on lane 0", in: []iv{{0, 10}, {5, 15}, {6, 9}}, at: 7, want: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := &Tracker{Containment: tt.c}
			if _, failed := place(tr, tt.in); failed >= 0 {
				t.Fatalf("slice %d did not fit", failed)
			}
			got, ok := tr.Innermost(tt.at)
			if !ok {
				got = -1
			}
			if got != tt.want {
				t.Errorf("Innermost(%d) = %d, want %d", tt.at, got, tt.want)
			}
		})
	}
}

func TestOutOfOrder(t *testing.T) {
	tests := []struct {
		name string
		do   func(tr *Tracker)
	}{
		{"earlier start", func(tr *Tracker) { tr.Place(5, 6); tr.Place(4, 6) }},
		{"same start, longer", func(tr *Tracker) { tr.Place(5, 6); tr.Place(5, 7) }},
		{"ends before it starts", func(tr *Tracker) { tr.Place(5, 4) }},
		{"before an instant bound", func(tr *Tracker) { tr.Place(5, 9); tr.Innermost(7); tr.Place(6, 7) }},
		{"an instant before a start", func(tr *Tracker) { tr.Place(5, 9); tr.Innermost(4) }},
		{"completion not kept", func(tr *Tracker) { tr.KeepCompletion = false; tr.Place(5, 9); tr.Completed(0) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			tt.do(&Tracker{KeepCompletion: true})
		})
	}
	// In order: equal starts shorter after, an instant then a slice
	// starting there, a negative first instant.
	tr := &Tracker{}
	tr.Innermost(-5)
	tr.Place(-5, 3)
	tr.Place(-5, 3)
	tr.Place(-5, 1)
	tr.Innermost(0)
	tr.Place(0, 100)
	tr.Innermost(0)
	tr.Place(0, 0)
}

func TestReset(t *testing.T) {
	tr := Tracker{KeepCompletion: true}
	tr.Grow(2)
	place(&tr, []iv{{0, 10}, {5, 15}, {6, 7}})
	completed(&tr)
	tr.Reset()
	tr.Grow(100)
	if tr.Lanes() != 1 || len(tr.stacks) != 0 {
		t.Errorf("Grow put lanes in use")
	}
	got, _ := place(&tr, []iv{{-3, 1}, {-2, 0}})
	if want := []Placement{{0, 0, 0}, {0, 1, 1}}; !slices.Equal(got, want) || tr.Lanes() != 1 {
		t.Errorf("after Reset: %v on %d lanes, want %v on 1", got, tr.Lanes(), want)
	}
	if c := completed(&tr); !slices.Equal(c, []int32{1, 0}) {
		t.Errorf("completed %v", c)
	}
}

// over tells whether open slice p is over once slice q, placed after it,
// has come: q starts after p ends, or where p ends unless (Closed) q is a
// zero-length slice at p's very end.
func over(c Containment, p, q iv) bool {
	return p.end < q.start || p.end == q.start && (c == HalfOpen || q.end > p.end)
}

// reference places in as the package documentation says, from scratch
// for each slice: the open slices of a lane are the slices placed on it
// that no slice placed after them made over. It returns the placements of
// the slices that fit.
func reference(c Containment, maxLanes int, in []iv) []Placement {
	var out []Placement
	lanes := 0
	openOn := func(l, i int) []int {
		var open []int
		for j := range i {
			if int(out[j].Lane) != l {
				continue
			}
			alive := true
			for k := j + 1; k <= i && alive; k++ {
				alive = !over(c, in[j], in[k])
			}
			if alive {
				open = append(open, j)
			}
		}
		return open
	}
	for i, s := range in {
		best, empty, bestOpen := -1, -1, 0
		for l := range lanes {
			open := openOn(l, i)
			if len(open) == 0 {
				if empty < 0 {
					empty = l
				}
				continue
			}
			top := in[open[len(open)-1]]
			if s.end > top.end {
				continue
			}
			if b := in[bestOpen]; best < 0 || top.start > b.start || top.start == b.start && len(open) > int(out[bestOpen].Depth)+1 {
				best, bestOpen = l, open[len(open)-1]
			}
		}
		switch {
		case best >= 0:
		case empty >= 0:
			best = empty
		case lanes < maxLanes:
			best = lanes
			lanes++
		default:
			return out
		}
		order := 0
		for j := range i {
			if int(out[j].Lane) == best {
				order++
			}
		}
		out = append(out, Placement{Lane: int32(best), Depth: int32(len(openOn(best, i))), Order: int32(order)})
	}
	return out
}

// referenceInnermost is Innermost from scratch, once the slices in[:n]
// are placed at out.
func referenceInnermost(c Containment, in []iv, out []Placement, n int, at trace.Time) int {
	best := -1
	for j := range n {
		p := in[j]
		if p.start > at || p.end < at || c == HalfOpen && p.end == at {
			continue
		}
		alive := true
		for k := j + 1; k < n && alive; k++ {
			alive = !over(c, p, in[k])
		}
		if alive && (best < 0 || p.start > in[best].start || p.start == in[best].start && out[j].Depth > out[best].Depth) {
			best = j
		}
	}
	return best
}

// completion derives the order of completion from the lanes and depths
// alone: on each lane, a slice completes when the next slice at its depth
// or shallower starts, or at the end.
func completion(out []Placement) []int32 {
	var all []int32
	for lane := int32(0); ; lane++ {
		var stack, done []int32
		found := false
		for i, p := range out {
			if p.Lane != lane {
				continue
			}
			found = true
			for len(stack) > 0 && out[stack[len(stack)-1]].Depth >= p.Depth {
				done = append(done, stack[len(stack)-1])
				stack = stack[:len(stack)-1]
			}
			stack = append(stack, int32(i))
		}
		if !found {
			return all
		}
		for len(stack) > 0 {
			done = append(done, stack[len(stack)-1])
			stack = stack[:len(stack)-1]
		}
		all = append(all, done...)
	}
}

// checkNests checks what the placements mean: on each lane a slice at
// depth d > 0 lies in the slice at depth d-1 open before it, and the
// slices at one depth under one parent follow each other.
func checkNests(c Containment, in []iv, out []Placement) error {
	last := map[[2]int32]int{} // (lane, depth) -> the latest slice there
	for i, p := range out {
		s := in[i]
		if p.Depth > 0 {
			j, ok := last[[2]int32{p.Lane, p.Depth - 1}]
			if !ok || in[j].start > s.start || in[j].end < s.end || c == HalfOpen && s.start >= in[j].end {
				return fmt.Errorf("slice %d %v at depth %d is not in its parent", i, s, p.Depth)
			}
			if k, ok := last[[2]int32{p.Lane, p.Depth}]; ok && k > j && in[k].end > s.start {
				return fmt.Errorf("slice %d %v overlaps its sibling %d %v", i, s, k, in[k])
			}
		} else if k, ok := last[[2]int32{p.Lane, 0}]; ok && in[k].end > s.start {
			return fmt.Errorf("slice %d %v overlaps %d %v at depth 0", i, s, k, in[k])
		}
		last[[2]int32{p.Lane, p.Depth}] = i
	}
	return nil
}

// randomSlices returns up to n slices with starts in [0, span) and
// lengths in [0, 6), many of them tied, in the order of Compare.
func randomSlices(rng *rand.Rand, n, span int) []iv {
	in := make([]iv, rng.IntN(n+1))
	for i := range in {
		s := trace.Time(rng.IntN(span))
		in[i] = iv{s, s + trace.Time(rng.IntN(6))}
	}
	slices.SortStableFunc(in, func(a, b iv) int { return Compare(a.start, a.end, b.start, b.end) })
	return in
}

// checkAgainstReference places in with a Tracker, binding an instant
// before each slice where bind says, and compares everything with the
// reference.
func checkAgainstReference(c Containment, maxLanes int, in []iv, bind func(i int) (trace.Time, bool)) error {
	want := reference(c, maxLanes, in)
	tr := &Tracker{Containment: c, MaxLanes: maxLanes, KeepCompletion: true}
	got := make([]Placement, 0, len(in))
	for i, s := range in {
		if at, ok := bind(i); ok {
			j, ok := tr.Innermost(at)
			if !ok {
				j = -1
			}
			if w := referenceInnermost(c, in, got, i, at); j != w {
				return fmt.Errorf("%v: Innermost(%d) before slice %d = %d, want %d", in, at, i, j, w)
			}
		}
		p, ok := tr.Place(s.start, s.end)
		if !ok {
			break
		}
		got = append(got, p)
	}
	if !slices.Equal(got, want) {
		return fmt.Errorf("%v (containment %d, %d lanes):\nplaced    %v\nreference %v", in, c, maxLanes, got, want)
	}
	if len(got) < len(in) {
		return nil
	}
	if err := checkNests(c, in, got); err != nil {
		return err
	}
	lanes := 1
	for _, p := range got {
		lanes = max(lanes, int(p.Lane)+1)
	}
	if tr.Lanes() != lanes {
		return fmt.Errorf("%v: Lanes() = %d, placements use %d", in, tr.Lanes(), lanes)
	}
	if c, w := completed(tr), completion(got); !slices.Equal(c, w) {
		return fmt.Errorf("%v: completed %v, from the depths %v", in, c, w)
	}
	return nil
}

func TestAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		in := randomSlices(rng, 14, 10)
		c := Containment(rng.IntN(2))
		maxLanes := []int{1, 2, 3, DefaultMaxLanes}[rng.IntN(4)]
		points := map[int]trace.Time{}
		for i := range in {
			if rng.IntN(3) == 0 {
				lo := in[max(i-1, 0)].start
				points[i] = lo + trace.Time(rng.IntN(int(in[i].start-lo)+1))
			}
		}
		if err := checkAgainstReference(c, maxLanes, in, func(i int) (trace.Time, bool) { at, ok := points[i]; return at, ok }); err != nil {
			t.Fatal(err)
		}
	}
}

// FuzzTracker compares the Tracker with the reference on slices decoded
// from the input, 2 bytes each: a start in [0, 32) and a length in
// [0, 8); the first byte chooses the containment and the bound on lanes.
func FuzzTracker(f *testing.F) {
	f.Add([]byte{0, 0, 10, 5, 2, 10, 3})
	f.Add([]byte{1, 0, 40, 3, 40, 5, 1, 5, 0, 9, 0, 30, 10})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 || len(b) > 64 {
			return
		}
		c, maxLanes := Containment(b[0]&1), int(b[0]>>1&3)+1
		var in []iv
		for i := 1; i+2 <= len(b); i += 2 {
			s := trace.Time(b[i] & 31)
			in = append(in, iv{s, s + trace.Time(b[i+1]&7)})
		}
		slices.SortStableFunc(in, func(a, b iv) int { return Compare(a.start, a.end, b.start, b.end) })
		if err := checkAgainstReference(c, maxLanes, in, func(int) (trace.Time, bool) { return 0, false }); err != nil {
			t.Fatal(err)
		}
	})
}

// TestNoTieAcrossLanes checks what the package documentation says of the
// rule for ties: in the order of Compare, open slices on different lanes
// never start at the same instant, so the latest started open slice is
// never in doubt.
func TestNoTieAcrossLanes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		in := randomSlices(rng, 16, 6)
		tr := &Tracker{Containment: Containment(rng.IntN(2))}
		for _, s := range in {
			tr.Place(s.start, s.end)
			lane := map[trace.Time]int{}
			for l, stack := range tr.stacks {
				for _, o := range stack {
					if m, ok := lane[o.start]; ok && m != l {
						t.Fatalf("%v: open slices starting at %d on lanes %d and %d", in, o.start, m, l)
					}
					lane[o.start] = l
				}
			}
		}
	}
}
