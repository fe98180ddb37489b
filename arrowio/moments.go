package arrowio

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/core/views/moments"
)

// MomentsColumns chooses the columns of a table of moments besides the
// moments themselves.
type MomentsColumns struct {
	// Key names the path column: "resource" or "node".
	Key string
	// Index, when not empty, names a first column holding Indices (one
	// per row), such as the aggregate each row belongs to ("aggregate_id").
	Index   string
	Indices []int32
	// Window adds each row's window, start and end in seconds.
	Window bool
	// Resources adds the number of resources each row adds up.
	Resources bool
	// States adds the state value and state type of each row.
	States bool
}

// MomentsColumnsFor returns the columns of a table of rows of kind by.
func MomentsColumnsFor(by moments.By) MomentsColumns {
	switch by {
	case moments.ByState:
		return MomentsColumns{Key: "resource", States: true}
	case moments.ByNode:
		return MomentsColumns{Key: "node", Resources: true}
	}
	return MomentsColumns{Key: "resource"}
}

// MomentsTable lists moments of utilization, one row per element of rows:
// the columns cols asks for, then
//
//	m0, m1, m2, m3   the scaled moments in seconds, m1 on the trace clock
//	                 (NaN for m1..m3 when m0 is 0)
//	busy_ns          m0 exactly, in integer nanoseconds
//	P0 .. P3         the raw power sums ∫ (t - origin)^k g(t) dt in s^(k+1)
//	origin           their origin in seconds, and exactly as origin_ns
//
// The power sums add up: the moments of a union of rows are those of the
// sums of their power sums, once shifted to a common origin.
func MomentsTable(rows []moments.Row, cols MomentsColumns, meta map[string]string, mem memory.Allocator) arrow.RecordBatch {
	n := len(rows)
	paths, pathCodes := columnLabels(n, func(i int) string { return rows[i].Path })
	c := newColumns(mem, n)
	if cols.Index != "" {
		c.int32s(cols.Index, cols.Indices)
	}
	c.categories(cols.Key, paths, pathCodes)
	if cols.Window {
		start, end := make([]float64, n), make([]float64, n)
		for i, r := range rows {
			start[i], end[i] = r.Start.Seconds(), r.End.Seconds()
		}
		c.float64s("start", start)
		c.float64s("end", end)
	}
	if cols.Resources {
		res := make([]int32, n)
		for i, r := range rows {
			res[i] = int32(r.Resources)
		}
		c.int32s("resources", res)
	}
	if cols.States {
		states, stateCodes := columnLabels(n, func(i int) string { return rows[i].State })
		types, typeCodes := columnLabels(n, func(i int) string { return rows[i].StateType })
		c.categories("state", states, stateCodes)
		c.categories("type", types, typeCodes)
	}
	var m [4][]float64
	var p [4][]float64
	for k := range 4 {
		m[k], p[k] = make([]float64, n), make([]float64, n)
	}
	busy, originNs := make([]int64, n), make([]int64, n)
	origin := make([]float64, n)
	for i, r := range rows {
		mo := r.Sums.Moments()
		m[0][i], m[1][i], m[2][i], m[3][i] = mo.M0, mo.M1, mo.M2, mo.M3
		for k := range 4 {
			p[k][i] = r.Sums.Power(k)
		}
		busy[i] = int64(r.Sums.Busy())
		originNs[i] = int64(r.Sums.Origin())
		origin[i] = r.Sums.Origin().Seconds()
	}
	for k, name := range []string{"m0", "m1", "m2", "m3"} {
		c.float64s(name, m[k])
	}
	c.int64s("busy_ns", busy)
	for k, name := range []string{"P0", "P1", "P2", "P3"} {
		c.float64s(name, p[k])
	}
	c.float64s("origin", origin)
	c.int64s("origin_ns", originNs)
	return c.batch(meta)
}

// columnLabels numbers the distinct strings of a column in order of
// appearance, for a dictionary column.
func columnLabels(n int, at func(int) string) (dict []string, codes []int32) {
	index := map[string]int32{}
	codes = make([]int32, n)
	for i := range n {
		s := at(i)
		k, ok := index[s]
		if !ok {
			k = int32(len(dict))
			index[s] = k
			dict = append(dict, s)
		}
		codes[i] = k
	}
	return dict, codes
}
