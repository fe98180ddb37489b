package critpath

import (
	"cmp"
	"slices"

	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/mpi"
)

// Delays are the delay costs of a run's wait states: where the time was
// spent that made others wait, as Scalasca's root-cause analysis defines
// it (Böhme, Geimer, Wolf, Arnold, "Identifying the root causes of wait
// states in large-scale parallel applications", ICPP 2010; TOPC 2016;
// Scalasca 2.x, Delay.MPI.pattern).
//
// A wait state (a call of resource W that waited y for resource D) has a
// synchronisation interval on each side: from the end of the previous
// call at which the two synchronised (a wait state between them, or a
// collective that synchronised both; else MPI_Init's end, else the trace's
// start) to the entry of the calls that synchronise now. In it, the time
// of D and W per state (an MPI call, else the innermost state), less the
// wait states inside (which D itself suffered: they propagate), gives the
// delay of each state, d_s = max(0, t_D(s) - t_W(s)). With Σd the delays
// added up and Σw the waiting inside D's interval, the short-term cost of
// state s on D is d_s × min(1, y / (Σd + Σw)): the waiting the delay
// caused directly. The long-term cost spreads the costs of W's wait state
// itself (what later waits it caused in turn) the same way, c × d_s / (Σd
// + Σw), and hands (min(1, y / (Σd + Σw)) + c / (Σd + Σw)) × w to each wait
// state w inside D's interval: the wait states are visited from the last
// to the first (a backward replay), so that each has its cost when its
// own causes are visited. Costs are classed by the kind of the wait state
// they ultimately caused.
type Delays struct {
	// Costs are by resource, state and kind of wait state caused, the
	// largest short-term cost first.
	Costs []DelayCost
	// Waiting is the waiting time of all wait states, for comparison: the
	// short-term costs add up to at most this.
	Waiting trace.Time
}

// DelayCost is the delay cost of one state on one resource.
type DelayCost struct {
	Resource int32 // index in Result.Resources
	State    string
	Kind     WaitKind // the kind of the wait states it caused
	// ShortTerm is the waiting it caused directly, LongTerm through the
	// wait states it caused in turn (nanoseconds, fractional).
	ShortTerm, LongTerm float64
}

// syncPoints are the calls at which a resource synchronised with others:
// the partners of call k are partners[calls[k].first:calls[k+1].first],
// each a resource (>= 0) or every member of collective -(partner+1), the
// collectives first; calls[k].prev is the last call before k that has
// partners, -1 for none. A call's two numbers side by side take one read
// from memory, and its previous synchronisation's most often the same.
type syncPoints struct {
	calls    []syncCall // one more than the resource's calls
	partners []int32
}

// syncCall is where a call's partners begin, and the last call before
// it with partners.
type syncCall struct{ first, prev int32 }

// before returns the last call before call j with partners, or -1.
func (s *syncPoints) before(j int32) int32 {
	if j <= 0 {
		return -1
	}
	return s.calls[j].prev
}

// of returns the partners of call k.
func (s *syncPoints) of(k int32) []int32 { return s.partners[s.calls[k].first:s.calls[k+1].first] }

// newSyncPoints finds the synchronisation points of every resource: the
// two calls of every wait state (each with the other's resource), and the
// calls of the collectives that synchronised all their members.
func newSyncPoints(r *Result) []syncPoints {
	run := r.run
	out := make([]syncPoints, len(run.Resources))
	for i := range out {
		out[i].calls = make([]syncCall, run.count(int32(i))+1)
	}
	synced := run.synced
	// each visits the collectives last: the partners are placed from the
	// end of each call's, so that a collective comes first there. The
	// last call of a collective's last entrant has a wait state with
	// each other member, and previous looks for a partner among them.
	each := func(f func(res, call, partner int32)) {
		for _, w := range r.Waits {
			f(w.Call.Resource, w.Call.Call, w.Cause.Resource)
			f(w.Cause.Resource, w.Cause.Call, w.Call.Resource)
		}
		for _, ci := range synced {
			for _, m := range run.Collectives[ci].Members {
				f(m.Resource, m.Call, -ci-1)
			}
		}
	}
	// calls[k].first counts call k's partners, then becomes their end,
	// then, as they are placed from there, their beginning.
	each(func(res, call, _ int32) { out[res].calls[call].first++ })
	for i := range out {
		s := &out[i]
		calls := s.calls[:len(s.calls)-1]
		last, end := int32(-1), int32(0)
		for k := range calls {
			c := &calls[k]
			c.prev = last
			if c.first > 0 {
				last = int32(k)
			}
			end += c.first
			c.first = end
		}
		s.calls[len(calls)] = syncCall{first: end, prev: last}
		s.partners = make([]int32, end)
	}
	each(func(res, call, partner int32) {
		s := &out[res]
		s.calls[call].first--
		s.partners[s.calls[call].first] = partner
	})
	return out
}

// delayCosts computes the delay costs of the path's wait states from what
// each resource did (acts).
func delayCosts(r *Result, acts []activity, callName []int32, names []string, cancel <-chan struct{}) (*Delays, error) {
	look := trace.Looker{Cancel: cancel}
	if err := look.Stopped(0); err != nil {
		return nil, err
	}
	run := r.run
	ops := operations(run)
	n := len(run.Resources)
	rd := run.reader()
	syncs := newSyncPoints(r)
	lastInit := run.lastInits(ops)
	// previous returns where the synchronisation interval of resource res
	// with partner begins, before its call j, and the index of the call
	// it begins after (-1 for none).
	previous := func(res int32, j int32, partner int32) (trace.Time, int32) {
		sp := &syncs[res]
		for k := sp.before(j); k >= 0; k = sp.before(k) {
			for _, p := range sp.of(k) {
				if p == partner || p < 0 && member(run, -p-1, partner) {
					return rd.call(mpi.CallRef{Resource: res, Call: k}).Leave, k
				}
			}
		}
		if i := lastInit[res]; i >= 0 && i < j {
			return rd.call(mpi.CallRef{Resource: res, Call: i}).Leave, i
		}
		return run.Start, -1
	}
	dmap, wmap := make([]trace.Time, len(names)), make([]trace.Time, len(names))
	var dTouched, wTouched []int32
	// interval fills into with the times of resource res per name from
	// the end of call after to the entry of call j, less the wait states
	// inside, and returns their waiting. A name's time stops at zero, as
	// only a time above zero counts: so every name whose time is not zero
	// is one times touched, and is cleared after. (A wait state's call
	// whose time the activity gave to a call overlapping it has none of
	// its own: its name, taken below zero, would keep that into later
	// intervals.)
	var inside []int32
	hints := make([]int32, n) // where each resource's wait states were found last
	interval := func(res, after, j int32, from trace.Time, into []trace.Time, touched *[]int32) (waited trace.Time) {
		acts[res].times(from, rd.call(mpi.CallRef{Resource: res, Call: j}).Enter, into, touched)
		inside = inside[:0]
		first, end := r.waitsAfter(res, after, &hints[res])
		for wi := first; wi < end && r.Waits[wi].Call.Call < j; wi++ {
			w := r.Waits[wi].Wait
			n := callName[rd.call(r.Waits[wi].Call).Name]
			into[n] = max(into[n]-w, 0)
			waited += w
			inside = append(inside, wi)
		}
		return waited
	}
	// Costs handed to each wait state, by the kind of wait they come from.
	costs := make([][3]float64, len(r.Waits))
	// The costs by resource and state (a key of both, hashed faster than
	// a struct), each by kind of wait state caused, nil until added to.
	sums := map[uint64]*[3]*DelayCost{}
	costsOf := func(res, name int32) *[3]*DelayCost {
		k := uint64(uint32(res))<<32 | uint64(uint32(name))
		c := sums[k]
		if c == nil {
			c = new([3]*DelayCost)
			sums[k] = c
		}
		return c
	}
	add := func(c *[3]*DelayCost, res, name int32, kind WaitKind, short, long float64) {
		d := c[kind-1]
		if d == nil {
			d = &DelayCost{Resource: res, State: names[name], Kind: kind}
			c[kind-1] = d
		}
		d.ShortTerm += short
		d.LongTerm += long
	}
	order := newBackwardOrder(r, rd)
	var d []trace.Time
	out := &Delays{}
	// The delayer's interval is the same for the waits one call caused
	// since the same synchronisation (the members of a collective): it is
	// computed once for them.
	type delayer struct {
		res, after, call int32
		from             trace.Time
	}
	last := delayer{res: -1}
	var prop []int32
	var waited trace.Time
	for wi, ok := order.next(); ok; wi, ok = order.next() {
		if err := look.Stopped(1); err != nil {
			return nil, err
		}
		w := &r.Waits[wi]
		out.Waiting += w.Wait
		wres, dres := w.Call.Resource, w.Cause.Resource
		from, after := previous(dres, w.Cause.Call, wres)
		if cur := (delayer{dres, after, w.Cause.Call, from}); cur != last {
			for _, s := range dTouched {
				dmap[s] = 0
			}
			dTouched = dTouched[:0]
			waited = interval(dres, after, w.Cause.Call, from, dmap, &dTouched)
			prop = append(prop[:0], inside...)
			last = cur
		}
		from, after = previous(wres, w.Call.Call, dres)
		interval(wres, after, w.Call.Call, from, wmap, &wTouched)
		d = d[:0]
		var dsum trace.Time
		for _, s := range dTouched {
			x := dmap[s] - wmap[s]
			d = append(d, max(x, 0))
			dsum += max(x, 0)
		}
		if total := float64(dsum + waited); total > 0 {
			direct := min(float64(w.Wait)/total, 1)
			var later [3]float64
			for k, c := range costs[wi] {
				later[k] = c / total
			}
			for i, s := range dTouched {
				if d[i] == 0 {
					continue
				}
				x := float64(d[i])
				c := costsOf(dres, s)
				add(c, dres, s, w.Kind, direct*x, 0)
				for k, l := range later {
					if l > 0 {
						add(c, dres, s, WaitKind(k+1), 0, l*x)
					}
				}
			}
			for _, y := range prop {
				yw := float64(r.Waits[y].Wait)
				costs[y][w.Kind-1] += direct * yw
				for k, l := range later {
					costs[y][k] += l * yw
				}
			}
		}
		for _, s := range wTouched {
			wmap[s] = 0
		}
		wTouched = wTouched[:0]
	}
	for _, byKind := range sums {
		for _, c := range byKind {
			if c != nil {
				out.Costs = append(out.Costs, *c)
			}
		}
	}
	slices.SortFunc(out.Costs, func(x, y DelayCost) int {
		return cmp.Or(cmp.Compare(y.ShortTerm+y.LongTerm, x.ShortTerm+x.LongTerm), cmp.Compare(x.Resource, y.Resource),
			cmp.Compare(x.State, y.State), cmp.Compare(x.Kind, y.Kind))
	})
	return out, nil
}

// synchronisedCollectives returns the collectives of run that
// synchronised all their members (synchronising).
func synchronisedCollectives(run *run, rd *callReader) []int32 {
	var synced []int32
	var buf []callTimes
	off := 0
	for ci := range run.Collectives {
		coll := &run.Collectives[ci]
		if synchronising(coll, run.membersTimes(rd, coll.Members, off, &buf)) {
			synced = append(synced, int32(ci))
		}
		off += len(coll.Members)
	}
	return synced
}

// synchronising tells whether a collective synchronised all its members,
// as Scalasca counts it: one whose members all wait for all (every
// collective whose root the trace does not name) and none of which left
// before the last entered (t are the times of its members' calls).
func synchronising(coll *mpi.Collective, t []callTimes) bool {
	if coll.Root >= 0 && coll.Class != mpi.AllToAll || coll.Class == mpi.Scan || len(coll.Members) < 2 {
		return false
	}
	latest, earliestEnd := t[0].enter, t[0].leave
	for _, c := range t[1:] {
		latest, earliestEnd = max(latest, c.enter), min(earliestEnd, c.leave)
	}
	return earliestEnd >= latest
}

// member tells whether resource res takes part in collective coll.
func member(run *run, coll, res int32) bool {
	if len(run.Collectives[coll].Members) == len(run.Resources) {
		return true
	}
	_, ok := slices.BinarySearchFunc(run.Collectives[coll].Members, res, func(m mpi.CallRef, r int32) int {
		return cmp.Compare(m.Resource, r)
	})
	return ok
}

// backwardOrder yields the indices of the wait states from the one that
// ended last to the one that ended first, the latest left first among
// those ending together: every wait state a wait state w passes costs on
// to (those of its delayer before the call w waited for) ends no later
// than w's (but where w's wait was cut short by the end of its call). The
// wait states of each resource end in the order of its calls (one ends
// before the next call begins): the resources' sequences are merged, a
// wait state at a time as the delay costs visit them, so that the wait
// state and its call are still in the cache when they do.
type backwardOrder struct {
	r  *Result
	rd *callReader
	h  []orderHead // a heap, the next to go first
}

// orderHead is a resource's next wait state, going back, with when it
// ended (at) and its call's leave.
type orderHead struct {
	at, leave trace.Time
	wait      int32 // the next wait state of its resource, going back
	stop      int32 // the first wait state of its resource
}

// before tells whether x goes before y.
func (x *orderHead) before(y *orderHead) bool {
	return x.at > y.at || x.at == y.at && (x.leave > y.leave || x.leave == y.leave && x.wait > y.wait)
}

func newBackwardOrder(r *Result, rd *callReader) *backwardOrder {
	o := &backwardOrder{r: r, rd: rd}
	for i := 0; i < len(r.Waits); {
		j := i
		for j < len(r.Waits) && r.Waits[j].Call.Resource == r.Waits[i].Call.Resource {
			j++
		}
		o.h = append(o.h, orderHead{wait: int32(j - 1), stop: int32(i)})
		o.set(&o.h[len(o.h)-1])
		i = j
	}
	for i := len(o.h)/2 - 1; i >= 0; i-- {
		o.down(i)
	}
	return o
}

// set sets when h's wait state ended and its call's leave.
func (o *backwardOrder) set(h *orderHead) {
	w := &o.r.Waits[h.wait]
	c := o.rd.call(w.Call)
	h.at, h.leave = c.Enter+w.Wait, c.Leave
}

// down moves the head at i down the heap to its place.
func (o *backwardOrder) down(i int) {
	h := o.h
	for {
		k := 2*i + 1
		if k >= len(h) {
			return
		}
		if k+1 < len(h) && h[k+1].before(&h[k]) {
			k++
		}
		if !h[k].before(&h[i]) {
			return
		}
		h[i], h[k] = h[k], h[i]
		i = k
	}
}

// next returns the next wait state's index, false after the first.
func (o *backwardOrder) next() (int32, bool) {
	if len(o.h) == 0 {
		return 0, false
	}
	top := &o.h[0]
	wi := top.wait
	if top.wait == top.stop {
		o.h[0] = o.h[len(o.h)-1]
		o.h = o.h[:len(o.h)-1]
	} else {
		top.wait--
		o.set(top)
	}
	o.down(0)
	return wi, true
}
