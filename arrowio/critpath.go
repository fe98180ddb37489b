package arrowio

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/core/views/critpath"
)

// CritPathSegmentsTable lists the segments of a critical path, in time
// order: resource, start, end, duration (s), start_ns, end_ns (start and
// end on the trace's own clock, as every table keeps them), via (how
// the path arrived: "start", "late sender", "late receiver",
// "collective") and from (the resource it came from; null for the first).
// A GPU or task path (Semantics other than critpath.Scalasca) has, instead
// of via, kind (the edge: "compute", "kernel", "launch", "kernel-kernel",
// "sync wait", "dependency") and name (the event its time is attributed
// to, empty for none), and from only where the edge joins two resources;
// an HTA path also bound_by (critpath.BoundBy: "cpu_bound",
// "gpu_compute_bound"...).
func CritPathSegmentsTable(r *critpath.Result, meta map[string]string, mem memory.Allocator) arrow.RecordBatch {
	n := len(r.Segments)
	c := newColumns(mem, n)
	res, from := make([]int32, n), make([]int32, n)
	valid := make([]bool, n)
	start, end, dur := make([]float64, n), make([]float64, n), make([]float64, n)
	startNs, endNs := make([]int64, n), make([]int64, n)
	via := make([]string, n)
	for i, s := range r.Segments {
		res[i], from[i], valid[i] = s.Resource, max(s.From, 0), s.From >= 0
		start[i], end[i], dur[i] = s.Start.Seconds(), s.End.Seconds(), (s.End - s.Start).Seconds()
		startNs[i], endNs[i], via[i] = int64(s.Start), int64(s.End), s.Via
	}
	c.categories("resource", r.Resources, res)
	c.float64s("start", start)
	c.float64s("end", end)
	c.float64s("duration", dur)
	c.int64s("start_ns", startNs)
	c.int64s("end_ns", endNs)
	if r.Semantics == critpath.Scalasca {
		c.strings("via", via)
	} else {
		names, codes := columnLabels(n, func(i int) string { return r.Segments[i].Name })
		kinds, kindCodes := columnLabels(n, func(i int) string { return r.Segments[i].Via })
		c.categories("kind", kinds, kindCodes)
		c.categories("name", names, codes)
		if r.Semantics == critpath.HTA {
			bound, boundCodes := columnLabels(n, func(i int) string { return critpath.BoundBy(r.Segments[i]) })
			c.categories("bound_by", bound, boundCodes)
		}
	}
	c.dictionary("from", r.Resources, from, valid)
	return c.batch(meta)
}

// CritPathPiecesTable lists the path cut where its resources' activity
// changes: resource, start, end, duration (s), state (the MPI call, else
// the innermost state, else "(no state)").
func CritPathPiecesTable(r *critpath.Result, a *critpath.Attribution, meta map[string]string, mem memory.Allocator) arrow.RecordBatch {
	n := len(a.Pieces)
	c := newColumns(mem, n)
	res := make([]int32, n)
	start, end, dur := make([]float64, n), make([]float64, n), make([]float64, n)
	for i, p := range a.Pieces {
		res[i], start[i], end[i], dur[i] = p.Resource, p.Start.Seconds(), p.End.Seconds(), (p.End - p.Start).Seconds()
	}
	states, codes := columnLabels(n, func(i int) string { return a.Pieces[i].State })
	c.categories("resource", r.Resources, res)
	c.float64s("start", start)
	c.float64s("end", end)
	c.float64s("duration", dur)
	c.categories("state", states, codes)
	return c.batch(meta)
}

// CritPathByStateTable lists what the path's time was spent on: state,
// on_path (s), share (of the path), total (s, on all resources within the
// path's extent), imbalance (Scalasca's critical-path imbalance: on_path
// minus the mean per resource, when positive; s).
func CritPathByStateTable(a *critpath.Attribution, meta map[string]string, mem memory.Allocator) arrow.RecordBatch {
	n := len(a.ByState)
	c := newColumns(mem, n)
	name := make([]string, n)
	on, share, total, imb := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i, s := range a.ByState {
		name[i], on[i], share[i], total[i], imb[i] = s.State, s.OnPath.Seconds(), s.Share, s.Total.Seconds(), s.Imbalance.Seconds()
	}
	c.strings("state", name)
	c.float64s("on_path", on)
	c.float64s("share", share)
	c.float64s("total", total)
	c.float64s("imbalance", imb)
	return c.batch(meta)
}

// CritPathByResourceTable lists each resource's time on the path:
// resource, on_path (s), share, segments.
func CritPathByResourceTable(a *critpath.Attribution, meta map[string]string, mem memory.Allocator) arrow.RecordBatch {
	n := len(a.ByResource)
	c := newColumns(mem, n)
	name := make([]string, n)
	on, share := make([]float64, n), make([]float64, n)
	segs := make([]int32, n)
	for i, s := range a.ByResource {
		name[i], on[i], share[i], segs[i] = s.Resource, s.OnPath.Seconds(), s.Share, int32(s.Segments)
	}
	c.strings("resource", name)
	c.float64s("on_path", on)
	c.float64s("share", share)
	c.int32s("segments", segs)
	return c.batch(meta)
}

// WaitStatesTable lists the wait states: resource, call (its name), enter
// (s), wait (s), kind ("late sender", "late receiver", "collective"),
// cause (the resource waited for) and cause_time (s: when the wait ended
// there).
func WaitStatesTable(r *critpath.Result, meta map[string]string, mem memory.Allocator) arrow.RecordBatch {
	n := len(r.Waits)
	c := newColumns(mem, n)
	res, cause := make([]int32, n), make([]int32, n)
	enter, wait, at := make([]float64, n), make([]float64, n), make([]float64, n)
	kind := make([]string, n)
	calls := make([]string, n)
	i := 0
	for w, call := range r.WaitCalls() {
		res[i], cause[i] = w.Call.Resource, w.Cause.Resource
		enter[i], wait[i], at[i] = call.Enter.Seconds(), w.Wait.Seconds(), w.At.Seconds()
		kind[i], calls[i] = w.Kind.String(), r.Names[call.Name]
		i++
	}
	callLabels, callCodes := columnLabels(n, func(i int) string { return calls[i] })
	kindLabels, kindCodes := columnLabels(n, func(i int) string { return kind[i] })
	c.categories("resource", r.Resources, res)
	c.categories("call", callLabels, callCodes)
	c.float64s("enter", enter)
	c.float64s("wait", wait)
	c.categories("kind", kindLabels, kindCodes)
	c.categories("cause", r.Resources, cause)
	c.float64s("cause_time", at)
	return c.batch(meta)
}

// DelayCostsTable lists the delay costs of the wait states (Scalasca's
// root causes): resource, state (where the delay was: the MPI call, else
// the innermost state), kind (of the wait states it caused: "late
// sender", "late receiver", "collective"), short_term (s: the waiting it
// caused directly), long_term (s: through the wait states it caused in
// turn) and total (s), the largest first.
func DelayCostsTable(r *critpath.Result, d *critpath.Delays, meta map[string]string, mem memory.Allocator) arrow.RecordBatch {
	if d == nil {
		d = &critpath.Delays{} // a GPU or task path has no wait states
	}
	n := len(d.Costs)
	c := newColumns(mem, n)
	res := make([]int32, n)
	short, long, total := make([]float64, n), make([]float64, n), make([]float64, n)
	for i, x := range d.Costs {
		res[i], short[i], long[i], total[i] = x.Resource, x.ShortTerm/1e9, x.LongTerm/1e9, (x.ShortTerm+x.LongTerm)/1e9
	}
	states, codes := columnLabels(n, func(i int) string { return d.Costs[i].State })
	kinds, kindCodes := columnLabels(n, func(i int) string { return d.Costs[i].Kind.String() })
	c.categories("resource", r.Resources, res)
	c.categories("state", states, codes)
	c.categories("kind", kinds, kindCodes)
	c.float64s("short_term", short)
	c.float64s("long_term", long)
	c.float64s("total", total)
	return c.batch(meta)
}
