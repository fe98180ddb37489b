package perfetto

import (
	"sort"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// counterWindow is how many samples of a counter track wait, sorted by
// time, before the oldest is placed: a sample may come up to that many
// samples late and still be placed. Chromium writes V8's heap counters
// (GlobalConsumedBytes...) from several threads, hundreds of
// milliseconds out of order; trace processor sorts the whole trace.
const counterWindow = 1024

// counterSample is one value of a counter, from at on.
type counterSample struct {
	at    trace.Time
	value float64
}

// counterTrack is the state of a counter track: each sample holds until
// the next one in time. The latest samples wait in pending, sorted by
// time (samples of one time in arrival order), so that late ones find
// their place.
type counterTrack struct {
	cont, typ int32
	pending   []counterSample
	placed    bool       // a piece was handed to the sink
	floor     trace.Time // the end of the last piece placed
}

// add records a sample; false, and nothing recorded, when it is earlier
// than a piece already placed.
func (c *counterTrack) add(d *decoder, t trace.Time, v float64) bool {
	if c.placed && t < c.floor {
		return false
	}
	n := len(c.pending)
	if n == 0 || t >= c.pending[n-1].at { // in order: the common case
		c.pending = append(c.pending, counterSample{t, v})
	} else {
		i := sort.Search(n, func(i int) bool { return c.pending[i].at > t })
		c.pending = append(c.pending, counterSample{})
		copy(c.pending[i+1:], c.pending[i:n])
		c.pending[i] = counterSample{t, v}
	}
	if len(c.pending) > counterWindow {
		c.place(d, c.pending[1].at)
		c.pending = c.pending[1:]
	}
	return true
}

// place hands the oldest pending sample to the sink, up to end.
func (c *counterTrack) place(d *decoder, end trace.Time) {
	s := c.pending[0]
	d.m.sink.Variable(trace.Variable{Container: c.cont, Type: c.typ, Start: s.at, End: end, Value: s.value})
	c.placed, c.floor = true, end
}

// flush places every pending sample, the last one up to end.
func (c *counterTrack) flush(d *decoder, end trace.Time) {
	for len(c.pending) > 1 {
		c.place(d, c.pending[1].at)
		c.pending = c.pending[1:]
	}
	if len(c.pending) == 1 {
		if end < c.pending[0].at {
			end = c.pending[0].at
		}
		c.place(d, end)
		c.pending = nil
	}
}
