package critpath

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// A random trace of threads of nested states joined by flows, as the
// tests' gpuTrace writes it, kept for the oracle.
type flowCase struct {
	threads []string
	states  map[string][]flowState // by thread, in start order, outermost first
	flows   []flowRec
}

type flowState struct {
	name       string
	start, end trace.Time
	depth      int
}

type flowRec struct {
	from, to   string
	start, end trace.Time
}

// randomFlowCase makes threads of top-level states, some nested two deep,
// some of no duration, on a coarse grid of instants so that flows often
// meet a nested state's start or end, and flows between instants inside
// states, forward in time.
func randomFlowCase(rng *rand.Rand) *flowCase {
	c := &flowCase{states: map[string][]flowState{}}
	for th := range 2 + rng.Intn(2) {
		name := fmt.Sprintf("t%d", th)
		c.threads = append(c.threads, name)
		at := trace.Time(rng.Intn(3))
		for k := 0; k < 1+rng.Intn(3) && at < 60; k++ {
			s, e := at, at+trace.Time(rng.Intn(25))
			c.nest(name, fmt.Sprintf("%s.%d", name, k), s, e, 0, rng)
			at = e + trace.Time(rng.Intn(3)*rng.Intn(4))
		}
	}
	for range rng.Intn(6) {
		a, b := c.threads[rng.Intn(len(c.threads))], c.threads[rng.Intn(len(c.threads))]
		ta := trace.Time(rng.Intn(70))
		tb := ta + trace.Time(rng.Intn(20))
		if a != b && tb == ta {
			tb++ // one instant on two threads could loop both ways
		}
		c.flows = append(c.flows, flowRec{a, b, ta, tb})
	}
	return c
}

func (c *flowCase) nest(th, name string, s, e trace.Time, depth int, rng *rand.Rand) {
	c.states[th] = append(c.states[th], flowState{name, s, e, depth})
	if depth == 2 || e-s < 2 {
		return
	}
	at := s + trace.Time(rng.Intn(3))
	for k := 0; k < rng.Intn(3); k++ {
		cs := at
		ce := cs + trace.Time(rng.Intn(int(e-s)/2+1))
		if ce > e {
			break
		}
		c.nest(th, fmt.Sprintf("%s.%d", name, k), cs, ce, depth+1, rng)
		at = ce + trace.Time(rng.Intn(2))
	}
}

// innermost is the state of thread th a flow's end at t is bound to, as
// the graph finds it: the innermost starting at t, else the innermost
// holding t (or, for a flow's source, ending at t).
func (c *flowCase) innermost(th string, t trace.Time, source bool) (flowState, bool) {
	var best flowState
	found := false
	deeper := func(s flowState) bool {
		return !found || s.start > best.start || s.start == best.start && s.end < best.end
	}
	for _, s := range c.states[th] {
		if s.end > s.start && s.start == t && deeper(s) {
			best, found = s, true
		}
	}
	if found {
		return best, true
	}
	for _, s := range c.states[th] {
		if s.end > s.start && s.start < t && (s.end > t || source && s.end == t) && deeper(s) {
			best, found = s, true
		}
	}
	return best, found
}

// longest is the oracle: the longest path over instants of the threads,
// where time inside a top-level state counts, a thread passes from one
// top-level state to the next for nothing, and a flow leaves its source
// state's end if that comes before its destination state's start, else
// its own start, and arrives at its destination's start if that comes
// after, else at its own end, weighing the time between.
func (c *flowCase) longest() trace.Time {
	type pos struct {
		th string
		t  trace.Time
	}
	type hop struct {
		to pos
		w  trace.Time
	}
	times := map[string][]trace.Time{}
	hops := map[pos][]hop{}
	for _, f := range c.flows {
		src, ok1 := c.innermost(f.from, f.start, true)
		dst, ok2 := c.innermost(f.to, f.end, false)
		if !ok1 || !ok2 {
			continue
		}
		leave := min(max(f.start, src.start), src.end)
		if src.end <= dst.start {
			leave = src.end
		}
		arrive := min(max(f.end, dst.start), dst.end)
		if dst.start > leave {
			arrive = dst.start
		}
		from, to := pos{f.from, leave}, pos{f.to, arrive}
		hops[from] = append(hops[from], hop{to, max(arrive-leave, 0)})
		times[f.from] = append(times[f.from], leave)
		times[f.to] = append(times[f.to], arrive)
	}
	for _, th := range c.threads {
		for _, s := range c.states[th] {
			times[th] = append(times[th], s.start, s.end)
		}
		ts := slices.Compact(slices.Sorted(slices.Values(times[th])))
		times[th] = ts
		for i := 1; i < len(ts); i++ {
			w := trace.Time(0)
			for _, s := range c.states[th] {
				if s.depth == 0 && s.start <= ts[i-1] && ts[i] <= s.end {
					w = ts[i] - ts[i-1]
				}
			}
			from := pos{th, ts[i-1]}
			hops[from] = append(hops[from], hop{pos{th, ts[i]}, w})
		}
	}
	// Every hop goes forward in time, or stays at an instant between
	// threads one way: relax until nothing changes.
	dist := map[pos]trace.Time{}
	for th, ts := range times {
		for _, t := range ts {
			dist[pos{th, t}] = 0
		}
	}
	best := trace.Time(0)
	for changed := true; changed; {
		changed = false
		for p, hs := range hops {
			for _, h := range hs {
				if d := dist[p] + h.w; d > dist[h.to] {
					dist[h.to], changed = d, true
				}
			}
		}
	}
	for _, d := range dist {
		best = max(best, d)
	}
	return best
}

func (c *flowCase) trace() *gpuTrace {
	g := newGPUTrace(c.threads...)
	for _, th := range c.threads {
		for _, s := range c.states[th] {
			g.state(th, s.name, s.start, s.end, int32(s.depth))
		}
	}
	for _, f := range c.flows {
		g.flow(f.from, f.start, f.to, f.end)
	}
	return g
}

func (c *flowCase) String() string {
	s := ""
	for _, th := range c.threads {
		for _, st := range c.states[th] {
			s += fmt.Sprintf("g.state(%q, %q, %d, %d, %d)\n", th, st.name, st.start, st.end, st.depth)
		}
	}
	for _, f := range c.flows {
		s += fmt.Sprintf("g.flow(%q, %d, %q, %d)\n", f.from, f.start, f.to, f.end)
	}
	return s
}

// TestFlowsAgainstBruteForce holds the path of random threads of nested
// states joined by flows (many leaving or arriving inside states, at a
// nested state's start or end, several into one state, some from a state
// to itself) to the longest path over instants (longest), and each
// compute segment's name to the innermost state throughout its stretch.
func TestFlowsAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	compared := 0
	for i := 0; i < 4000 && !t.Failed(); i++ {
		c := randomFlowCase(rng)
		g := c.trace()
		g.t.Finish(0, 1000)
		r, err := Compute(g.t, Options{})
		if err != nil {
			continue // no flow joins two states: the trace has no links to follow
		}
		compared++
		if want := c.longest(); r.Semantics != Dependencies || r.Length() != want {
			t.Fatalf("case %d: %s path of length %d, the longest is %d\n%s%s", i, r.Semantics, r.Length(), want, c, r)
		}
		for _, s := range r.Segments {
			if s.Via != EdgeCompute {
				continue
			}
			th := r.Resources[s.Resource]
			for u := s.Start; u < s.End; u++ {
				if in := c.innermostAt(th, u); in != s.Name {
					t.Fatalf("case %d: segment on %s [%d, %d] named %q, the innermost state at %d is %q\n%s%s", i, th, s.Start, s.End, s.Name, u, in, c, r)
				}
			}
		}
	}
	if compared < 3000 {
		t.Fatalf("%d cases of 4000 had a path", compared)
	}
}

// innermostAt names the innermost state of th holding [u, u+1], "" for
// none.
func (c *flowCase) innermostAt(th string, u trace.Time) string {
	name, depth := "", -1
	for _, s := range c.states[th] {
		if s.start <= u && u+1 <= s.end && s.depth > depth {
			name, depth = s.name, s.depth
		}
	}
	return name
}
