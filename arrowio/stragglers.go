package arrowio

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/core/views/stragglers"
)

// StragglersTable lists the resources by how often they arrived last:
// resource, times_last, instances (they took part in), share (times_last
// over instances), lateness (s, added up: their arrival minus the next
// latest), lateness_mean (s, per time last; NaN if never), wait_caused
// (s, added up: the others' waiting for them).
func StragglersTable(rows []stragglers.Resource, meta map[string]string, mem memory.Allocator) arrow.RecordBatch {
	n := len(rows)
	c := newColumns(mem, n)
	name := make([]string, n)
	last, inst := make([]int32, n), make([]int32, n)
	share, late, mean, caused := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i, r := range rows {
		name[i], last[i], inst[i], share[i] = r.Resource, int32(r.TimesLast), int32(r.Instances), r.Share
		late[i], caused[i] = r.Lateness.Seconds(), r.WaitCaused.Seconds()
		mean[i] = late[i] / float64(r.TimesLast)
	}
	c.strings("resource", name)
	c.int32s("times_last", last)
	c.int32s("instances", inst)
	c.float64s("share", share)
	c.float64s("lateness", late)
	c.float64s("lateness_mean", mean)
	c.float64s("wait_caused", caused)
	return c.batch(meta)
}

// StragglerInstancesTable lists the instances in order: instance (its
// number), name (the operation or state), group (the communicator; ""
// when unknown), members, last (the resource arriving last), time (its
// arrival, s), lateness (s: its arrival minus the next latest),
// wait_caused (s: the others' waiting for it), time_ns (its arrival, ns):
// time and time_ns on the trace's own clock, as every table keeps them.
func StragglerInstancesTable(r *stragglers.Result, meta map[string]string, mem memory.Allocator) arrow.RecordBatch {
	n := len(r.Instances)
	c := newColumns(mem, n)
	idx, members, last := make([]int32, n), make([]int32, n), make([]int32, n)
	at, late, caused := make([]float64, n), make([]float64, n), make([]float64, n)
	atNs := make([]int64, n)
	for i, in := range r.Instances {
		idx[i], members[i], last[i] = int32(i), int32(len(in.Members)), in.Last
		at[i], late[i], caused[i] = in.At.Seconds(), in.Lateness.Seconds(), in.WaitCaused.Seconds()
		atNs[i] = int64(in.At)
	}
	names, nameCodes := columnLabels(n, func(i int) string { return r.Instances[i].Name })
	groups, groupCodes := columnLabels(n, func(i int) string { return r.Instances[i].Group })
	c.int32s("instance", idx)
	c.categories("name", names, nameCodes)
	c.categories("group", groups, groupCodes)
	c.int32s("members", members)
	c.categories("last", r.Resources, last)
	c.float64s("time", at)
	c.float64s("lateness", late)
	c.float64s("wait_caused", caused)
	c.int64s("time_ns", atNs)
	return c.batch(meta)
}

// StragglerArrivalsTable lists every member's arrival at every instance:
// instance, resource, arrival (s), delay (s: after the first arrival of
// the instance), last (whether it arrived last), arrival_ns (arrival and
// arrival_ns on the trace's own clock).
func StragglerArrivalsTable(r *stragglers.Result, meta map[string]string, mem memory.Allocator) arrow.RecordBatch {
	var idx, res []int32
	var at, delay []float64
	var atNs []int64
	var last []bool
	for i, in := range r.Instances {
		first := in.Arrivals[0]
		for _, t := range in.Arrivals {
			first = min(first, t)
		}
		for k, m := range in.Members {
			idx, res = append(idx, int32(i)), append(res, m)
			at, delay = append(at, in.Arrivals[k].Seconds()), append(delay, (in.Arrivals[k]-first).Seconds())
			atNs = append(atNs, int64(in.Arrivals[k]))
			last = append(last, m == in.Last)
		}
	}
	c := newColumns(mem, len(idx))
	c.int32s("instance", idx)
	c.categories("resource", r.Resources, res)
	c.float64s("arrival", at)
	c.float64s("delay", delay)
	c.bools("last", last)
	c.int64s("arrival_ns", atNs)
	return c.batch(meta)
}
