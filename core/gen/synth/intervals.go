package synth

import (
	"strconv"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Interval is one state interval of a synthetic trace.
type Interval struct {
	Core       [4]int // the core's site, cluster, machine and core indices
	State      string
	Start, End trace.Time
}

// Each calls yield with every state interval of the trace c describes, in
// the order of their start (ties by core), without keeping them, and
// returns the trace's statistics (Bytes left 0: nothing is written). It
// stops at the first error yield returns. Writers of other formats than
// Pajé (Parquet, in package arrowio) are built on it.
func Each(c Config, yield func(Interval) error) (Stats, error) {
	if err := c.Validate(); err != nil {
		return Stats{}, err
	}
	p := newPlan(&c)
	st := Stats{Containers: c.NumContainers(), Duration: p.duration}
	g := newGenerator(p)
	for {
		iv, ok := g.next()
		if !ok {
			return st, nil
		}
		if err := yield(Interval{Core: p.indices(iv.core), State: p.names[iv.state], Start: iv.start, End: iv.end}); err != nil {
			return st, err
		}
		st.States++
		if err := c.tick(st.States); err != nil {
			return st, err
		}
	}
}

// indices returns the site, cluster, machine and core indices of a core.
func (p *plan) indices(core int) [4]int {
	return [4]int{core / p.perSite, core % p.perSite / p.perCluster,
		core % p.perCluster / p.perMachine, core % p.perMachine}
}

// AppendPath appends the path of the core at idx
// ("site-0/cluster-1/machine-0/core-3"), with the separator of the
// containers' paths in the trace tables.
func AppendPath(b []byte, idx [4]int) []byte {
	for l, x := range idx {
		if l > 0 {
			b = append(b, '/')
		}
		b = append(b, levelNames[l]...)
		b = append(b, '-')
		b = strconv.AppendInt(b, int64(x), 10)
	}
	return b
}
