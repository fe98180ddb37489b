package arrowio

import (
	"fmt"
	"syscall"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/memory/mallocator"
	"github.com/macroscope-hpc/macroscope/arrowio/cmem"
	"github.com/macroscope-hpc/macroscope/core/hier"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// flatModel is a model of leaves resources under one root, with values
// numbered by cell (none zero) so that every row of its table is
// recognisable.
func flatModel(leaves, slices, states int) *micro.Model {
	b := hier.NewBuilder("root")
	for i := range leaves {
		b.Add(0, fmt.Sprintf("r%d", i))
	}
	tree, _ := b.Build()
	names := make([]string, states)
	for x := range names {
		names[x] = fmt.Sprintf("s%d", x)
	}
	values := make([]float64, leaves*slices*states)
	for i := range values {
		values[i] = float64(i+1) / float64(len(values))
	}
	return &micro.Model{Tree: tree, States: names, Slices: slices, Start: 0, End: trace.Time(slices) * trace.Second, Values: values}
}

// The index width of a dictionary column is the one pandas picks for a
// Categorical of that many categories, so that pandas takes the codes as
// they are: int8 under 127 categories, int16 under 32,767, int32 beyond.
func TestMicroTableIndexWidths(t *testing.T) {
	for _, tc := range []struct {
		leaves int
		want   arrow.Type
	}{{126, arrow.INT8}, {127, arrow.INT16}, {32766, arrow.INT16}, {32767, arrow.INT32}} {
		m := flatModel(tc.leaves, 1, 2)
		rec := MicroTable(m, memory.DefaultAllocator)
		col := rec.Column(0).(*array.Dictionary)
		if got := col.Indices().DataType().ID(); got != tc.want {
			t.Errorf("%d resources: index type %v, want %v", tc.leaves, got, tc.want)
		}
		state := rec.Column(4).(*array.Dictionary)
		if got := state.Indices().DataType().ID(); got != arrow.INT8 {
			t.Errorf("2 states: index type %v, want int8", got)
		}
		// Every row names its own resource and state.
		dict := col.Dictionary().(*array.String)
		for i := 0; i < col.Len(); i++ {
			leaf, x := i/2, i%2
			if got := dict.Value(col.GetValueIndex(i)); got != fmt.Sprintf("r%d", leaf) {
				t.Fatalf("%d resources: row %d resource %q, want r%d", tc.leaves, i, got, leaf)
			}
			if got := state.GetValueIndex(i); got != x {
				t.Fatalf("%d resources: row %d state code %d, want %d", tc.leaves, i, got, x)
			}
		}
		rec.Release()
	}
}

// Rows run leaf by leaf, slice by slice, state by state; durations are
// proportions times the slice length.
func TestMicroTableRows(t *testing.T) {
	m := flatModel(3, 4, 5)
	rec := MicroTable(m, memory.DefaultAllocator)
	defer rec.Release()
	slice := rec.Column(1).(*array.Int32).Int32Values()
	start := rec.Column(2).(*array.Float64).Float64Values()
	end := rec.Column(3).(*array.Float64).Float64Values()
	duration := rec.Column(5).(*array.Float64).Float64Values()
	proportion := rec.Column(6).(*array.Float64).Float64Values()
	for i, v := range m.Dense() {
		k := (i / 5) % 4
		if slice[i] != int32(k) || start[i] != float64(k) || end[i] != float64(k+1) {
			t.Fatalf("row %d: slice %d [%g, %g], want %d [%d, %d]", i, slice[i], start[i], end[i], k, k, k+1)
		}
		if proportion[i] != v || duration[i] != v {
			t.Fatalf("row %d: proportion %g duration %g, want %g (1 s slices)", i, proportion[i], duration[i], v)
		}
	}
}

// The table lists the values that are not zero, of dense and sparse
// models alike, in the order of the cells.
func TestMicroTableOmitsZeros(t *testing.T) {
	m := flatModel(3, 4, 5)
	for i := range m.Values {
		if i%3 != 0 {
			m.Values[i] = 0
		}
	}
	for _, form := range []*micro.Model{m, m.ToSparse()} {
		rec := MicroTable(form, memory.DefaultAllocator)
		if rec.NumRows() != int64(m.NonZero()) || m.NonZero() != 20 {
			t.Fatalf("sparse %v: %d rows for %d values that are not zero", form.IsSparse(), rec.NumRows(), m.NonZero())
		}
		slice := rec.Column(1).(*array.Int32).Int32Values()
		state := rec.Column(4).(*array.Dictionary)
		proportion := rec.Column(6).(*array.Float64).Float64Values()
		for r := range int(rec.NumRows()) {
			i := 3 * r // the r-th value that is not zero
			if slice[r] != int32(i/5%4) || state.GetValueIndex(r) != i%5 || proportion[r] != m.Values[i] {
				t.Fatalf("sparse %v, row %d: slice %d state %d proportion %v, want value %d", form.IsSparse(), r, slice[r], state.GetValueIndex(r), proportion[r], i)
			}
		}
		rec.Release()
	}
}

// A table written in parts, one goroutine each, is the bytes of the table
// written in one: the same rows, whatever cells each part starts and ends
// at (parts may hold no cell, or no value that is not zero).
func TestMicroTableParts(t *testing.T) {
	m := flatModel(130, 6, 4) // 130 resources: int16 codes
	for i := range m.Values {
		if i%7 < 3 || (i >= 400 && i < 900) {
			m.Values[i] = 0
		}
	}
	metric := *m
	metric.Metric = micro.EventCount
	for name, form := range map[string]*micro.Model{"dense": m, "sparse": m.ToSparse(), "metric": &metric} {
		one, _ := microTable(form, memory.DefaultAllocator, 1, nil)
		for _, parts := range []int{2, 3, 7, 1000} {
			rec, _ := microTable(form, memory.DefaultAllocator, parts, nil)
			for j, col := range one.Columns() {
				if !sameBytes(col, rec.Column(j)) {
					t.Errorf("%s, %d parts: column %s differs from the table written in one part", name, parts, one.ColumnName(j))
				}
			}
			rec.Release()
		}
		if one.NumRows() != int64(m.NonZero()) {
			t.Errorf("%s: %d rows for %d values that are not zero", name, one.NumRows(), m.NonZero())
		}
		one.Release()
	}
}

// sameBytes tells whether arrays a and b hold the same buffers, byte for
// byte, their dictionaries' included.
func sameBytes(a, b arrow.Array) bool {
	if da, ok := a.(*array.Dictionary); ok {
		db, ok := b.(*array.Dictionary)
		return ok && sameBytes(da.Indices(), db.Indices()) && sameBytes(da.Dictionary(), db.Dictionary())
	}
	x, y := a.Data().Buffers(), b.Data().Buffers()
	if !arrow.TypeEqual(a.DataType(), b.DataType()) || a.Len() != b.Len() || len(x) != len(y) {
		return false
	}
	for i := range x {
		if (x[i] == nil) != (y[i] == nil) || x[i] != nil && string(x[i].Bytes()) != string(y[i].Bytes()) {
			return false
		}
	}
	return true
}

// CellsTable numbers the values that are not zero by row, slice and
// state, whatever the form of the model.
func TestCellsTable(t *testing.T) {
	m := flatModel(2, 3, 4)
	m.Values[5], m.Values[17] = 0, 0
	for _, form := range []*micro.Model{m, m.ToSparse()} {
		rec := CellsTable(form, memory.DefaultAllocator)
		row := rec.Column(0).(*array.Int32).Int32Values()
		slice := rec.Column(1).(*array.Int32).Int32Values()
		state := rec.Column(2).(*array.Int32).Int32Values()
		value := rec.Column(3).(*array.Float64).Float64Values()
		got := make([]float64, len(m.Values))
		for i := range row {
			got[(int(row[i])*3+int(slice[i]))*4+int(state[i])] = value[i]
		}
		if len(row) != 22 || fmt.Sprint(got) != fmt.Sprint(m.Values) {
			t.Errorf("sparse %v: %d rows give %v, want %v", form.IsSparse(), len(row), got, m.Values)
		}
		rec.Release()
	}
}

// Null categories hold the code -1, pandas' code for a missing value.
func TestOptionalCategoriesNullCode(t *testing.T) {
	c := newColumns(memory.DefaultAllocator, 4)
	c.optionalCategories("mode", []string{"a", "b", "a"}, []int32{0, -1, 1, 2})
	rec := c.batch(nil)
	defer rec.Release()
	col := rec.Column(0).(*array.Dictionary)
	codes := col.Indices().(*array.Int8).Int8Values()
	if want := []int8{0, -1, 1, 0}; fmt.Sprint(codes) != fmt.Sprint(want) {
		t.Errorf("codes %v, want %v (equal labels merged, null as -1)", codes, want)
	}
	if col.NullN() != 1 || col.IsValid(1) {
		t.Errorf("nulls %d, row 1 valid %v; want 1 null at row 1", col.NullN(), col.IsValid(1))
	}
}

// The model table of 10 million rows (1,000 resources x 1,000 slices x 10
// states), written in place in memory outside the Go heap as the Python
// bridge does (cmem), and in malloc'ed memory. Most of its time is the
// kernel's: the first write of every fresh page faults, and the kernel
// zeroes the page; the CPU time per table and the page faults are reported
// with the wall time, which the other work of a shared machine inflates.
func BenchmarkMicroTable10M(b *testing.B) {
	m := flatModel(1000, 1000, 10)
	for _, mem := range []struct {
		name string
		a    memory.Allocator
	}{{"cmem", cmem.New()}, {"malloc", mallocator.NewMallocator()}} {
		b.Run(mem.name, func(b *testing.B) {
			before := rusage()
			for b.Loop() {
				MicroTable(m, mem.a).Release()
			}
			reportRusage(b, before, rusage())
		})
	}
}

func rusage() syscall.Rusage {
	var r syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r)
	return r
}

// reportRusage reports the user and system CPU time and the minor page
// faults per operation between two measurements.
func reportRusage(b *testing.B, before, after syscall.Rusage) {
	ms := func(a, b syscall.Timeval) float64 {
		return float64(syscall.TimevalToNsec(b)-syscall.TimevalToNsec(a)) / 1e6
	}
	n := float64(b.N)
	b.ReportMetric(ms(before.Utime, after.Utime)/n, "user-ms/op")
	b.ReportMetric(ms(before.Stime, after.Stime)/n, "sys-ms/op")
	b.ReportMetric(float64(after.Minflt-before.Minflt)/n, "faults/op")
}
