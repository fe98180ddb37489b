// Package bsp generates traces of a bulk-synchronous parallel program,
// for the tests and benchmarks of run comparison: ranks grouped by node
// compute, then wait in a collective until the slowest has computed, for
// a number of iterations. Computation varies from rank to rank and
// iteration to iteration (Noise), and some ranks can be slowed (Slow,
// Slowdown), the perturbation a comparison must find: every other rank
// then waits longer, and changes more than the slowed one.
//
// Traces are streamed into a trace.Sink one iteration at a time: memory
// grows with the ranks, not the iterations.
package bsp

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The states of a rank.
const (
	Compute = "Compute"
	Wait    = "MPI_Wait"
)

// Scenario describes a run.
type Scenario struct {
	Ranks      int // ranks in all
	PerNode    int // ranks per node (0: all on one node)
	Iterations int
	// Compute is the mean computation of an iteration (0: 1 ms); Collective
	// the time the collective takes after the slowest rank joins (0:
	// Compute/4).
	Compute, Collective trace.Time
	// Noise is the relative standard deviation of a rank's computation in
	// an iteration (normal, at least half the mean).
	Noise float64
	// Slow lists the ranks whose computation is multiplied by 1 +
	// Slowdown, from iteration SlowFrom to SlowTo (exclusive; 0: to the
	// end).
	Slow             []int
	Slowdown         float64
	SlowFrom, SlowTo int
	// Missing lists ranks the run does not have (a run on fewer processes).
	Missing []int
	Seed    uint64
}

func (sc *Scenario) validate() error {
	if sc.Ranks < 1 || sc.Iterations < 1 {
		return errs.Argument("scenario", "needs ranks and iterations, got %d and %d", sc.Ranks, sc.Iterations)
	}
	if sc.PerNode < 0 || sc.Noise < 0 || sc.Slowdown <= -1 || sc.Compute < 0 || sc.Collective < 0 {
		return errs.Argument("scenario", "negative ranks per node, noise or times, or a slowdown of -100%% or less")
	}
	for _, s := range append(append([]int(nil), sc.Slow...), sc.Missing...) {
		if s < 0 || s >= sc.Ranks {
			return errs.Argument("scenario", "rank %d is not among the %d ranks", s, sc.Ranks)
		}
	}
	return nil
}

func (sc *Scenario) defaults() (perNode int, compute, collective trace.Time) {
	perNode, compute, collective = sc.PerNode, sc.Compute, sc.Collective
	if perNode == 0 {
		perNode = sc.Ranks
	}
	if compute == 0 {
		compute = trace.Second / 1000
	}
	if collective == 0 {
		collective = compute / 4
	}
	return
}

// Read streams the run into sink: containers node-<g>/rank-<s> (types
// "Node" and "Rank"), states of type "State" valued Compute and
// MPI_Wait, from time 0.
func (sc Scenario) Read(sink trace.Sink) error {
	if err := sc.validate(); err != nil {
		return err
	}
	perNode, compute, collective := sc.defaults()
	sink.DefineType(trace.Type{Name: "Node", Kind: trace.KindContainer, Parent: trace.None, Start: trace.None, End: trace.None})
	sink.DefineType(trace.Type{Name: "Rank", Kind: trace.KindContainer, Parent: 0, Start: trace.None, End: trace.None})
	sink.DefineType(trace.Type{Name: "State", Kind: trace.KindState, Parent: 1, Start: trace.None, End: trace.None})
	sink.DefineValue(trace.Value{Type: 2, Name: Compute, Color: "0.2 0.4 0.8"})
	sink.DefineValue(trace.Value{Type: 2, Name: Wait, Color: "0.9 0.3 0.2"})
	missing := map[int]bool{}
	for _, s := range sc.Missing {
		missing[s] = true
	}
	slow := map[int]bool{}
	for _, s := range sc.Slow {
		slow[s] = true
	}
	container := make([]int32, sc.Ranks)
	next := int32(1)
	node := int32(-1)
	for s := 0; s < sc.Ranks; s++ {
		if s%perNode == 0 {
			sink.CreateContainer(trace.Container{Name: fmt.Sprintf("node-%d", s/perNode), Type: 0, Parent: 0})
			node = next
			next++
		}
		container[s] = -1
		if missing[s] {
			continue
		}
		sink.CreateContainer(trace.Container{Name: fmt.Sprintf("rank-%d", s), Type: 1, Parent: node})
		container[s] = next
		next++
	}
	rng := rand.New(rand.NewPCG(sc.Seed, 0x627370))
	work := make([]trace.Time, sc.Ranks)
	var t trace.Time
	to := sc.SlowTo
	if to == 0 {
		to = sc.Iterations
	}
	for k := 0; k < sc.Iterations; k++ {
		var longest trace.Time
		for s := range work {
			f := 1 + sc.Noise*rng.NormFloat64()
			f = math.Max(f, 0.5)
			if slow[s] && k >= sc.SlowFrom && k < to {
				f *= 1 + sc.Slowdown
			}
			work[s] = trace.Time(math.Round(float64(compute) * f))
			if container[s] >= 0 {
				longest = max(longest, work[s])
			}
		}
		end := t + longest + collective
		for s, c := range container {
			if c < 0 {
				continue
			}
			sink.State(trace.State{Container: c, Type: 2, Value: 0, Start: t, End: t + work[s], Order: int32(2 * k)})
			sink.State(trace.State{Container: c, Type: 2, Value: 1, Start: t + work[s], End: end, Order: int32(2*k + 1)})
		}
		t = end
	}
	sink.Finish(0, t)
	return nil
}

// Trace returns the run as a trace in memory.
func (sc Scenario) Trace() (*trace.Trace, error) {
	t := trace.New()
	if err := sc.Read(t); err != nil {
		return nil, err
	}
	return t, nil
}

// Source returns the run as a source to read (ingest.Source): each read
// generates it again.
func (sc Scenario) Source() *ingest.Source {
	return &ingest.Source{Read: func(sink trace.Sink, _ trace.ReadOptions) error { return sc.Read(sink) }}
}
