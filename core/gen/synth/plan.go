package synth

import (
	"math"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// plan is a validated configuration resolved for generation: weights as
// cumulative sums, anomalies as ranges of core indices and instants.
type plan struct {
	cfg        *Config
	names      []string
	cumulative [][]float64 // by profile: 0 the baseline, i+1 anomaly i
	anomalies  []window
	perSite    int // cores per site, cluster and machine
	perCluster int
	perMachine int
	duration   trace.Time
	mean       trace.Time
}

// window is where and when an anomaly applies: cores [lo, hi), states
// drawn in [from, to).
type window struct {
	lo, hi   int
	from, to trace.Time
}

func newPlan(c *Config) *plan {
	states := c.states()
	p := &plan{cfg: c, duration: c.Duration(), mean: c.mean()}
	p.perMachine = c.Cores
	p.perCluster = c.Machines * p.perMachine
	p.perSite = c.Clusters * p.perCluster
	base := make([]float64, len(states))
	for i, s := range states {
		p.names = append(p.names, s.Name)
		base[i] = s.Weight
	}
	p.cumulative = append(p.cumulative, cumulate(base))
	for _, a := range c.Anomalies {
		w := append([]float64(nil), base...)
		for i, n := range p.names {
			if x, ok := a.Weights[n]; ok {
				w[i] = x
			}
		}
		p.cumulative = append(p.cumulative, cumulate(w))
		size := []int{p.perSite, p.perCluster, p.perMachine, 1}[a.Level]
		lo := 0
		for i, k := range a.At {
			lo += k * []int{p.perSite, p.perCluster, p.perMachine, 1}[i]
		}
		from, to := a.window()
		p.anomalies = append(p.anomalies, window{lo: lo, hi: lo + size,
			from: fraction(p.duration, from), to: fraction(p.duration, to)})
	}
	return p
}

// cumulate returns the running sums of w divided by its total, the last
// forced to exactly 1 so that every draw in [0, 1) finds a state.
func cumulate(w []float64) []float64 {
	sum := 0.0
	for _, x := range w {
		sum += x
	}
	out := make([]float64, len(w))
	acc := 0.0
	for i, x := range w {
		acc += x
		out[i] = acc / sum
	}
	if sum > 0 {
		// States of weight zero at the end keep their share of zero.
		last := len(w) - 1
		for last > 0 && w[last] == 0 {
			last--
		}
		for i := last; i < len(w); i++ {
			out[i] = 1
		}
	}
	return out
}

func fraction(d trace.Time, f float64) trace.Time {
	return trace.Time(math.Round(float64(d) * f))
}

func (p *plan) coreIndex(s, c, m, k int) int {
	return s*p.perSite + c*p.perCluster + m*p.perMachine + k
}

// profile returns the weights in force for core at instant at.
func (p *plan) profile(core int, at trace.Time) int {
	for i := len(p.anomalies) - 1; i >= 0; i-- {
		a := &p.anomalies[i]
		if core >= a.lo && core < a.hi && at >= a.from && at < a.to {
			return i + 1
		}
	}
	return 0
}

// draw picks a state with the cumulative weights cum for u in [0, 1).
func draw(cum []float64, u float64) int {
	for i, c := range cum {
		if u < c {
			return i
		}
	}
	return len(cum) - 1
}
