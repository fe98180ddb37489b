package arrowio

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/core/views/commmatrix"
	"github.com/macroscope-hpc/macroscope/core/views/profile"
)

// stringLists adds a column of lists of strings.
func (c *columns) stringLists(name string, v [][]string) {
	b := array.NewListBuilder(c.mem, arrow.BinaryTypes.String)
	defer b.Release()
	vb := b.ValueBuilder().(*array.StringBuilder)
	for _, l := range v {
		b.Append(true)
		for _, s := range l {
			vb.Append(s)
		}
	}
	c.add(name, b.NewArray())
}

// FlatProfileTable lists a flat profile, one row per state name:
//
//	name, type                 the state's name and type
//	count                      states of that name
//	processes                  processes that have it
//	inclusive, exclusive       their times added up (s)
//	inclusive_ns, exclusive_ns the same exactly, in nanoseconds
//	inclusive_mean, exclusive_mean
//	                           the times over the processes that have the
//	                           name (s): pipit's flat profile
//	share                      exclusive over the exclusive time of all
func FlatProfileTable(rows []profile.FlatRow, meta map[string]string, mem memory.Allocator) arrow.RecordBatch {
	n := len(rows)
	c := newColumns(mem, n)
	names, types := make([]string, n), make([]string, n)
	count, incNs, excNs := make([]int64, n), make([]int64, n), make([]int64, n)
	procs := make([]int32, n)
	inc, exc, incMean, excMean, share := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i, r := range rows {
		names[i], types[i], count[i], procs[i] = r.Name.Name, r.Type, r.Count, int32(r.Processes)
		inc[i], exc[i], incNs[i], excNs[i] = r.Inclusive.Seconds(), r.Exclusive.Seconds(), int64(r.Inclusive), int64(r.Exclusive)
		incMean[i], excMean[i], share[i] = r.InclusiveMean, r.ExclusiveMean, r.Share
	}
	c.strings("name", names)
	c.strings("type", types)
	c.int64s("count", count)
	c.int32s("processes", procs)
	c.float64s("inclusive", inc)
	c.float64s("exclusive", exc)
	c.int64s("inclusive_ns", incNs)
	c.int64s("exclusive_ns", excNs)
	c.float64s("inclusive_mean", incMean)
	c.float64s("exclusive_mean", excMean)
	c.float64s("share", share)
	return c.batch(meta)
}

// ProfileByProcessTable lists a profile's sums by state name and process:
// name, type, process (path), count, inclusive, exclusive (s),
// inclusive_ns, exclusive_ns.
func ProfileByProcessTable(rows []profile.ProcessRow, meta map[string]string, mem memory.Allocator) arrow.RecordBatch {
	n := len(rows)
	c := newColumns(mem, n)
	nameLabels, nameCodes := columnLabels(n, func(i int) string { return rows[i].Name.Name })
	typeLabels, typeCodes := columnLabels(n, func(i int) string { return rows[i].Type })
	procLabels, procCodes := columnLabels(n, func(i int) string { return rows[i].Process })
	count, incNs, excNs := make([]int64, n), make([]int64, n), make([]int64, n)
	inc, exc := make([]float64, n), make([]float64, n)
	for i, r := range rows {
		count[i], incNs[i], excNs[i] = r.Count, int64(r.Inclusive), int64(r.Exclusive)
		inc[i], exc[i] = r.Inclusive.Seconds(), r.Exclusive.Seconds()
	}
	c.categories("name", nameLabels, nameCodes)
	c.categories("type", typeLabels, typeCodes)
	c.categories("process", procLabels, procCodes)
	c.int64s("count", count)
	c.float64s("inclusive", inc)
	c.float64s("exclusive", exc)
	c.int64s("inclusive_ns", incNs)
	c.int64s("exclusive_ns", excNs)
	return c.batch(meta)
}

// ImbalanceTable lists the load imbalance of every state name (times in
// seconds): name, type, processes (that have it), mean, max, min,
// imbalance (max / mean, pipit's), top (the processes of the largest
// times), saving (max - mean: what balance would save on the slowest
// process) and runtime_share (saving over the trace's duration).
func ImbalanceTable(rows []profile.ImbalanceRow, meta map[string]string, mem memory.Allocator) arrow.RecordBatch {
	n := len(rows)
	c := newColumns(mem, n)
	names, types := make([]string, n), make([]string, n)
	procs := make([]int32, n)
	mean, mx, mn, imb, saving, share := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	top := make([][]string, n)
	for i, r := range rows {
		names[i], types[i], procs[i] = r.Name.Name, r.Type, int32(r.Processes)
		mean[i], mx[i], mn[i], imb[i] = r.Mean, r.Max, r.Min, r.Imbalance
		top[i], saving[i], share[i] = r.Top, r.Saving, r.RuntimeShare
	}
	c.strings("name", names)
	c.strings("type", types)
	c.int32s("processes", procs)
	c.float64s("mean", mean)
	c.float64s("max", mx)
	c.float64s("min", mn)
	c.float64s("imbalance", imb)
	c.stringLists("top", top)
	c.float64s("saving", saving)
	c.float64s("runtime_share", share)
	return c.batch(meta)
}

// CommMatrixTable lists a communication matrix in long form: type (the
// link type), source, destination (paths), count, bytes (the sizes the
// trace gives, added up), sized (links with a size), bytes_min, bytes_max
// (NaN when none has one).
//
// Sources and destinations are categorical columns with the same
// categories: groups, in their order (the containers' order), then any
// other in the order of the rows.
func CommMatrixTable(rows []commmatrix.Row, groups []string, meta map[string]string, mem memory.Allocator) arrow.RecordBatch {
	n := len(rows)
	c := newColumns(mem, n)
	typeLabels, typeCodes := columnLabels(n, func(i int) string { return rows[i].Type })
	labels, index := []string(nil), map[string]int32{}
	code := func(s string) int32 {
		k, ok := index[s]
		if !ok {
			k = int32(len(labels))
			index[s] = k
			labels = append(labels, s)
		}
		return k
	}
	for _, g := range groups {
		code(g)
	}
	src, dst := make([]int32, n), make([]int32, n)
	count, sized := make([]int64, n), make([]int64, n)
	bytes, mn, mx := make([]float64, n), make([]float64, n), make([]float64, n)
	for i, r := range rows {
		src[i], dst[i] = code(r.Source), code(r.Destination)
		count[i], sized[i], bytes[i], mn[i], mx[i] = r.Count, r.Sized, r.Bytes, r.Min, r.Max
	}
	c.categories("type", typeLabels, typeCodes)
	c.categories("source", labels, src)
	c.categories("destination", labels, dst)
	c.int64s("count", count)
	c.float64s("bytes", bytes)
	c.int64s("sized", sized)
	c.float64s("bytes_min", mn)
	c.float64s("bytes_max", mx)
	return c.batch(meta)
}
