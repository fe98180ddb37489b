package arrowio

import (
	"math"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/moments"
)

// momentsTrace: a node holding two processes, one busy [1, 3) in "a" and
// [5, 6) in "b", the other busy [2, 4) in "a"; the clock starts near 1e9 s.
func momentsTrace() *trace.Trace {
	const base = trace.Time(1_700_000_000) * trace.Second
	t := trace.New("test.trace")
	t.DefineType(trace.Type{Name: "Node", Kind: trace.KindContainer, Parent: trace.None})
	t.DefineType(trace.Type{Name: "Proc", Kind: trace.KindContainer, Parent: 0})
	t.DefineType(trace.Type{Name: "S", Kind: trace.KindState, Parent: 1})
	t.DefineValue(trace.Value{Name: "a", Type: 2})
	t.DefineValue(trace.Value{Name: "b", Type: 2})
	t.CreateContainer(trace.Container{Name: "n", Type: 0, Parent: 0, Start: base})
	t.CreateContainer(trace.Container{Name: "p", Type: 1, Parent: 1, Start: base})
	t.CreateContainer(trace.Container{Name: "q", Type: 1, Parent: 1, Start: base})
	s := func(c, v int32, a, b trace.Time) {
		t.State(trace.State{Container: c, Type: 2, Value: v, Start: base + a*trace.Second, End: base + b*trace.Second})
	}
	s(2, 0, 1, 3)
	s(3, 0, 2, 4)
	s(2, 1, 5, 6)
	t.Finish(base, base+8*trace.Second)
	return t
}

func momentColumn[T any](t *testing.T, rec arrow.RecordBatch, name string) []T {
	t.Helper()
	idx := rec.Schema().FieldIndices(name)
	if len(idx) != 1 {
		t.Fatalf("no column %q in %v", name, rec.Schema())
	}
	col := rec.Column(idx[0])
	if d, ok := col.(*array.Dictionary); ok {
		dict := d.Dictionary().(*array.String)
		out := make([]any, d.Len())
		for i := range out {
			out[i] = dict.Value(d.GetValueIndex(i))
		}
		return momentsAs[T](t, out)
	}
	switch a := col.(type) {
	case *array.Float64:
		return momentsAs[T](t, momentsAny(a.Float64Values()))
	case *array.Int64:
		return momentsAs[T](t, momentsAny(a.Int64Values()))
	case *array.Int32:
		return momentsAs[T](t, momentsAny(a.Int32Values()))
	}
	t.Fatalf("column %q has type %v", name, col.DataType())
	return nil
}

func momentsAny[T any](v []T) []any {
	out := make([]any, len(v))
	for i, x := range v {
		out[i] = x
	}
	return out
}

func momentsAs[T any](t *testing.T, v []any) []T {
	t.Helper()
	out := make([]T, len(v))
	for i, x := range v {
		y, ok := x.(T)
		if !ok {
			t.Fatalf("value %v is a %T", x, x)
		}
		out[i] = y
	}
	return out
}

func momentsRows(t *testing.T, by moments.By) []moments.Row {
	t.Helper()
	r, err := moments.Compute(momentsTrace(), moments.Options{ByState: by == moments.ByState})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := r.Rows(by)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestMomentsTableByResource(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	rows := momentsRows(t, moments.ByResource)
	rec := MomentsTable(rows, MomentsColumnsFor(moments.ByResource), map[string]string{"macroscope.by": "resource"}, mem)
	defer rec.Release()
	var names []string
	for _, f := range rec.Schema().Fields() {
		names = append(names, f.Name)
	}
	want := []string{"resource", "m0", "m1", "m2", "m3", "busy_ns", "P0", "P1", "P2", "P3", "origin", "origin_ns"}
	if !slices.Equal(names, want) {
		t.Fatalf("columns %v, want %v", names, want)
	}
	if got := momentColumn[string](t, rec, "resource"); !slices.Equal(got, []string{"n/p", "n/q"}) {
		t.Errorf("resources %v", got)
	}
	const base = 1_700_000_000.0
	// p: busy [1, 3) and [5, 6): m0 = 3, m1 = (2*2 + 1*5.5)/3.
	m0 := momentColumn[float64](t, rec, "m0")
	m1 := momentColumn[float64](t, rec, "m1")
	m2 := momentColumn[float64](t, rec, "m2")
	m3 := momentColumn[float64](t, rec, "m3")
	if m0[0] != 3 || m0[1] != 2 {
		t.Errorf("m0 %v", m0)
	}
	if math.Abs(m1[0]-(base+9.5/3)) > 1e-6 || m1[1] != base+3 {
		t.Errorf("m1 %v", m1)
	}
	// q is one unbroken bar: m2 = m0/2, m3 = 0.
	if math.Abs(m2[1]-1) > 1e-15 || math.Abs(m3[1]) > 1e-9 {
		t.Errorf("q: m2 = %v, m3 = %v, want 1 and 0", m2[1], m3[1])
	}
	if got := momentColumn[int64](t, rec, "busy_ns"); !slices.Equal(got, []int64{3e9, 2e9}) {
		t.Errorf("busy_ns %v", got)
	}
	// The power sums are measured from the start of each row's first
	// busy interval: p from base+1, q from base+2.
	origin := momentColumn[int64](t, rec, "origin_ns")
	if origin[0] != (1_700_000_001)*1e9 || origin[1] != 1_700_000_002*1e9 {
		t.Errorf("origin_ns %v", origin)
	}
	// p about base+1: [0, 2) and [4, 5): P1 = 2 + 4.5, P2 = 8/3 + 61/3, P3 = 4 + 369/4.
	p := [4][]float64{momentColumn[float64](t, rec, "P0"), momentColumn[float64](t, rec, "P1"), momentColumn[float64](t, rec, "P2"), momentColumn[float64](t, rec, "P3")}
	for k, want := range []float64{3, 6.5, 23, 96.25} {
		if math.Abs(p[k][0]-want) > 1e-12*want {
			t.Errorf("P%d = %v, want %v", k, p[k][0], want)
		}
	}
	if rec.Schema().Metadata().FindKey("macroscope.by") < 0 {
		t.Error("metadata lost")
	}
}

func TestMomentsTableByStateAndNode(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	rec := MomentsTable(momentsRows(t, moments.ByState), MomentsColumnsFor(moments.ByState), nil, mem)
	defer rec.Release()
	if got := momentColumn[string](t, rec, "resource"); !slices.Equal(got, []string{"n/p", "n/p", "n/q"}) {
		t.Errorf("resources %v", got)
	}
	if got := momentColumn[string](t, rec, "state"); !slices.Equal(got, []string{"a", "b", "a"}) {
		t.Errorf("states %v", got)
	}
	if got := momentColumn[string](t, rec, "type"); !slices.Equal(got, []string{"S", "S", "S"}) {
		t.Errorf("types %v", got)
	}
	if got := momentColumn[int64](t, rec, "busy_ns"); !slices.Equal(got, []int64{2e9, 1e9, 2e9}) {
		t.Errorf("busy_ns %v", got)
	}

	nodes := MomentsTable(momentsRows(t, moments.ByNode), MomentsColumnsFor(moments.ByNode), nil, mem)
	defer nodes.Release()
	if got := momentColumn[string](t, nodes, "node"); !slices.Equal(got, []string{"", "n", "n/p", "n/q"}) {
		t.Errorf("nodes %v", got)
	}
	if got := momentColumn[int32](t, nodes, "resources"); !slices.Equal(got, []int32{2, 2, 1, 1}) {
		t.Errorf("resources %v", got)
	}
	if got := momentColumn[int64](t, nodes, "busy_ns"); !slices.Equal(got, []int64{5e9, 5e9, 3e9, 2e9}) {
		t.Errorf("busy_ns %v", got)
	}
}

func TestMomentsTableWindowsAndIndex(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	rows := momentsRows(t, moments.ByNode)[:2]
	cols := MomentsColumns{Key: "node", Index: "aggregate", Indices: []int32{7, 9}, Window: true, Resources: true}
	rec := MomentsTable(rows, cols, nil, mem)
	defer rec.Release()
	if got := momentColumn[int32](t, rec, "aggregate"); !slices.Equal(got, []int32{7, 9}) {
		t.Errorf("aggregate %v", got)
	}
	if got := momentColumn[float64](t, rec, "end"); got[0] != 1_700_000_008 {
		t.Errorf("end %v", got)
	}
	// A row without busy time has NaN moments but zero sums.
	empty := []moments.Row{{Path: "x", Resources: 1}}
	e := MomentsTable(empty, MomentsColumnsFor(moments.ByResource), nil, mem)
	defer e.Release()
	if m1 := momentColumn[float64](t, e, "m1"); !math.IsNaN(m1[0]) {
		t.Errorf("m1 of an idle row: %v", m1)
	}
	if m0 := momentColumn[float64](t, e, "m0"); m0[0] != 0 {
		t.Errorf("m0 of an idle row: %v", m0)
	}
}
