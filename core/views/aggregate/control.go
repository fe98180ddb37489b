package aggregate

import (
	"math"
	"sync"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// ErrCanceled is the error of a search stopped by Control.Cancel: the
// error of every computation stopped by its Cancel channel.
var ErrCanceled = trace.ErrComputationCanceled

// Control lets a caller follow a search for the significant levels and
// stop it: a sweep of a large model solves the model hundreds of times,
// for minutes, and a notebook user must be able to see it advance and to
// interrupt it.
type Control struct {
	// Cancel, once closed, stops the search before its next solve: it
	// returns ErrCanceled and no levels (a solve under way finishes first).
	Cancel <-chan struct{}
	// Progress, if set, is called after every solve with the number of
	// solves so far and the part of [0, 1] whose levels are known, from 0
	// to 1 (the ranges of p the search no longer needs to look into). It
	// may be called from several goroutines, never concurrently.
	Progress func(solves int, covered float64)
}

// canceled reports whether the search must stop.
func (c *Control) canceled() bool {
	if c == nil || c.Cancel == nil {
		return false
	}
	select {
	case <-c.Cancel:
		return true
	default:
		return false
	}
}

// tracker counts a search's solves and the part of [0, 1] it has settled.
type tracker struct {
	ctl     *Control
	mu      sync.Mutex
	solves  int
	covered float64
}

func (t *tracker) solved() {
	if t == nil || t.ctl == nil || t.ctl.Progress == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.solves++
	t.ctl.Progress(t.solves, math.Min(t.covered, 1))
}

// settle records that the levels over [lo, hi] of p are known.
func (t *tracker) settle(lo, hi float64) {
	if t == nil || t.ctl == nil || t.ctl.Progress == nil || !(hi > lo) {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.covered += hi - lo
	t.ctl.Progress(t.solves, math.Min(t.covered, 1))
}
