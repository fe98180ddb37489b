package perfetto

import (
	"github.com/macroscope-hpc/macroscope/core/readers/pbwalk"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Timestamps. Perfetto's trace clock is boot time: packet timestamps with
// no clock id (and no default clock on their sequence) or with the
// BOOTTIME id are taken as they are, in nanoseconds. Other clocks are
// related to boot time by ClockSnapshot packets, each giving the values
// of several clocks at one instant:
//
//   - clocks with ids from 64 on are scoped to their sequence and may be
//     incremental (each timestamp a delta from the previous one) and have
//     a unit multiplier; the Perfetto SDK writes its timestamps so. They
//     are converted through the latest snapshot of their sequence.
//   - the other built-in clocks (monotonic, realtime...) are converted
//     through the latest snapshot holding them and boot time, anywhere in
//     the trace; without one, their values are used as they are, and a
//     warning says how many packets were.
//
// Trace processor interpolates between all snapshots; using the latest one
// before a packet is exact while the clocks do not drift between
// snapshots.

// clock relates a clock to boot time: boot time ref nanoseconds was
// the value at (in the clock's units).
type clock struct {
	at, ref     int64
	mult        int64
	incremental bool
	last        int64 // incremental clocks: the value of the previous timestamp
}

func (c *clock) toBoot(v int64) trace.Time {
	return trace.Time(c.ref + (v-c.at)*c.mult)
}

// timestamp converts a packet's timestamp to boot time; false when the
// packet's clock is a sequence-scoped one with no snapshot.
func (d *decoder) timestamp(seq *sequence, p *packetHead) (trace.Time, bool) {
	id := p.clock
	if !p.hasClock {
		id = seq.defClock
	}
	v := int64(p.ts)
	switch {
	case id == 0 || id == clockBoottime:
		return trace.Time(v), true
	case id >= firstSequenceScopedClk:
		c := seq.clocks[id]
		if c == nil {
			return 0, false
		}
		if c.incremental {
			c.last += v
			v = c.last
		}
		return c.toBoot(v), true
	}
	if c := d.global[id]; c != nil {
		return c.toBoot(v), true
	}
	d.unconverted[id]++
	return trace.Time(v), true
}

// clockSnapshot records how the clocks of a snapshot relate to boot time,
// directly or through another built-in clock of the snapshot that an
// earlier one relates to boot time. A snapshot with neither boot time nor
// a built-in clock relates nothing.
func (d *decoder) clockSnapshot(seq *sequence, f field) error {
	type entry struct {
		id          uint32
		ts          int64
		incremental bool
		mult        int64
	}
	var all []entry
	var boot int64
	hasBoot := false
	err := pbwalk.Each(f.B, f.Off, func(g field) error {
		if g.Num != csClocks || !g.IsBytes() {
			return nil
		}
		e := entry{mult: 1}
		err := pbwalk.Each(g.B, g.Off, func(h field) error {
			switch h.Num {
			case clkID:
				e.id = uint32(h.U)
			case clkTimestamp:
				e.ts = int64(h.U)
			case clkIncremental:
				e.incremental = h.Bool()
			case clkUnitMultNS:
				if h.U > 0 {
					e.mult = int64(h.U)
				}
			}
			return nil
		})
		if e.id == clockBoottime {
			boot, hasBoot = e.ts, true
		}
		all = append(all, e)
		return err
	})
	if err != nil {
		return err
	}
	refID := uint32(clockBoottime)
	if !hasBoot {
		// Without boot time, the snapshot relates its clocks to a
		// built-in one that an earlier snapshot relates to boot time:
		// Chrome's per-sequence snapshots relate its incremental
		// microsecond clocks to MONOTONIC only, and the tracing
		// service's snapshots relate MONOTONIC to boot time. With none
		// such, a built-in clock's values are taken as boot time, as
		// packets on it would be.
		for _, e := range all {
			if e.id == 0 || e.id >= firstSequenceScopedClk {
				continue
			}
			if c := d.global[e.id]; c != nil {
				refID, boot, hasBoot = e.id, int64(c.toBoot(e.ts)), true
				break
			}
		}
		for _, e := range all {
			if hasBoot {
				break
			}
			if e.id != 0 && e.id < firstSequenceScopedClk {
				refID, boot, hasBoot = e.id, e.ts, true
				d.unconverted[e.id]++
			}
		}
		if !hasBoot {
			return nil
		}
	}
	d.saw(trace.Time(boot))
	for _, e := range all {
		if e.id == refID {
			continue
		}
		c := &clock{at: e.ts, ref: boot, mult: e.mult, incremental: e.incremental, last: e.ts}
		if e.id >= firstSequenceScopedClk {
			seq.clocks[e.id] = c
		} else {
			c.incremental = false
			d.global[e.id] = c
		}
	}
	return nil
}
