package synth

import "github.com/macroscope-hpc/macroscope/core/trace"

// interval is one state of one core, [start, end).
type interval struct {
	core       int
	state      int
	start, end trace.Time
}

// generator produces the state intervals of every core in the order of
// their start (ties by core index), keeping one pending instant per core.
type generator struct {
	plan *plan
	rng  splitmix
	heap []pending // a binary min-heap by (at, core)
}

type pending struct {
	at   trace.Time
	core int32
}

func (a pending) less(b pending) bool {
	return a.at < b.at || (a.at == b.at && a.core < b.core)
}

func newGenerator(p *plan) *generator {
	n := p.cfg.NumCores()
	g := &generator{plan: p, rng: splitmix(p.cfg.Seed), heap: make([]pending, n)}
	for i := range g.heap {
		g.heap[i] = pending{0, int32(i)} // sorted, hence a heap
	}
	return g
}

// next returns the next interval; false once every core has reached the
// end of the trace.
func (g *generator) next() (interval, bool) {
	if len(g.heap) == 0 {
		return interval{}, false
	}
	top := g.heap[0]
	core := int(top.core)
	p := g.plan
	cum := p.cumulative[p.profile(core, top.at)]
	state := draw(cum, g.rng.float())
	half := p.mean / 2
	end := top.at + half + trace.Time(g.rng.next()%uint64(p.mean))
	if end >= p.duration {
		end = p.duration
		g.pop()
	} else {
		g.heap[0].at = end
		g.down(0)
	}
	return interval{core: core, state: state, start: top.at, end: end}, true
}

func (g *generator) pop() {
	n := len(g.heap) - 1
	g.heap[0] = g.heap[n]
	g.heap = g.heap[:n]
	if n > 0 {
		g.down(0)
	}
}

func (g *generator) down(i int) {
	h := g.heap
	n := len(h)
	x := h[i]
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h[c+1].less(h[c]) {
			c++
		}
		if !h[c].less(x) {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = x
}

// splitmix is the SplitMix64 generator: fast, 64 bits of state, and the
// same sequence on every platform and Go version.
type splitmix uint64

func (s *splitmix) next() uint64 {
	*s += 0x9e3779b97f4a7c15
	z := uint64(*s)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// float returns a number uniform in [0, 1) with 53 random bits.
func (s *splitmix) float() float64 {
	return float64(s.next()>>11) * (1.0 / (1 << 53))
}
