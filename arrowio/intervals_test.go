package arrowio

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/readers/intervals"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// table builds a one-batch reader of the given columns.
func table(t *testing.T, mem memory.Allocator, names []string, cols ...arrow.Array) array.RecordReader {
	t.Helper()
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: names[i], Type: c.DataType(), Nullable: true}
	}
	schema := arrow.NewSchema(fields, nil)
	rec := array.NewRecordBatch(schema, cols, int64(cols[0].Len()))
	for _, c := range cols {
		c.Release()
	}
	defer rec.Release()
	rdr, err := array.NewRecordReader(schema, []arrow.RecordBatch{rec})
	if err != nil {
		t.Fatal(err)
	}
	return rdr
}

func strs(mem memory.Allocator, v []string, valid []bool) arrow.Array {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.AppendValues(v, valid)
	return b.NewArray()
}

func dictStrs(mem memory.Allocator, v []string) arrow.Array {
	b := array.NewDictionaryBuilder(mem, &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}).(*array.BinaryDictionaryBuilder)
	defer b.Release()
	for _, s := range v {
		if err := b.AppendString(s); err != nil {
			panic(err)
		}
	}
	return b.NewArray()
}

func f64s(mem memory.Allocator, v []float64, valid []bool) arrow.Array {
	b := array.NewFloat64Builder(mem)
	defer b.Release()
	b.AppendValues(v, valid)
	return b.NewArray()
}

func i64s(mem memory.Allocator, v []int64) arrow.Array {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.AppendValues(v, nil)
	return b.NewArray()
}

func timestamps(mem memory.Allocator, unit arrow.TimeUnit, v []int64) arrow.Array {
	b := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: unit, TimeZone: "UTC"})
	defer b.Release()
	for _, x := range v {
		b.Append(arrow.Timestamp(x))
	}
	return b.NewArray()
}

func durations(mem memory.Allocator, unit arrow.TimeUnit, v []int64) arrow.Array {
	b := array.NewDurationBuilder(mem, &arrow.DurationType{Unit: unit})
	defer b.Release()
	for _, x := range v {
		b.Append(arrow.Duration(x))
	}
	return b.NewArray()
}

func readTable(rdr array.RecordReader, cols IntervalColumns) (*trace.Trace, error) {
	defer rdr.Release()
	b := intervals.NewBuilder(intervals.Options{})
	if err := ReadIntervals(rdr, cols, b); err != nil {
		return nil, err
	}
	tr := trace.New()
	return tr, b.Finish(tr)
}

var defaultCols = IntervalColumns{Resource: "resource", State: "state", Start: "start", End: "end"}

func TestReadIntervalsTimeTypes(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	res := []string{"n0/c0", "n0/c1"}
	cases := []struct {
		name       string
		start, end arrow.Array
		cols       IntervalColumns
		want       [2][2]trace.Time // start and end of both rows
	}{
		{"float seconds", f64s(mem, []float64{0.5, 1.25}, nil), f64s(mem, []float64{1.5, 2}, nil), defaultCols,
			[2][2]trace.Time{{5e8, 15e8}, {125e7, 2e9}}},
		{"integer nanoseconds", i64s(mem, []int64{7, 1_700_000_000_123_456_789}), i64s(mem, []int64{9, 1_700_000_000_123_456_790}), defaultCols,
			[2][2]trace.Time{{7, 9}, {1_700_000_000_123_456_789, 1_700_000_000_123_456_790}}},
		{"integer milliseconds", i64s(mem, []int64{1, 2}), i64s(mem, []int64{3, 4}), IntervalColumns{Resource: "resource", State: "state", Start: "start", End: "end", TimeUnit: "ms"},
			[2][2]trace.Time{{1e6, 3e6}, {2e6, 4e6}}},
		{"timestamps in microseconds", timestamps(mem, arrow.Microsecond, []int64{1_700_000_000_000_001, 1_700_000_000_000_002}),
			timestamps(mem, arrow.Microsecond, []int64{1_700_000_000_000_003, 1_700_000_000_000_004}), defaultCols,
			[2][2]trace.Time{{1_700_000_000_000_001_000, 1_700_000_000_000_003_000}, {1_700_000_000_000_002_000, 1_700_000_000_000_004_000}}},
		{"durations", timestamps(mem, arrow.Nanosecond, []int64{10, 20}), durations(mem, arrow.Millisecond, []int64{1, 2}),
			IntervalColumns{Resource: "resource", State: "state", Start: "start", Duration: "end"},
			[2][2]trace.Time{{10, 10 + 1e6}, {20, 20 + 2e6}}},
	}
	for _, c := range cases {
		rdr := table(t, mem, []string{"resource", "state", "start", "end"}, strs(mem, res, nil), dictStrs(mem, []string{"run", "wait"}), c.start, c.end)
		tr, err := readTable(rdr, c.cols)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		for i, s := range tr.States.All() {
			if s.Start != c.want[i][0] || s.End != c.want[i][1] || tr.ContainerPath(s.Container, "/") != res[i] {
				t.Errorf("%s: row %d became %+v", c.name, i, s)
			}
		}
		if tr.ValueName(tr.States.At(1).Value) != "wait" {
			t.Errorf("%s: dictionary-encoded state read as %q", c.name, tr.ValueName(tr.States.At(1).Value))
		}
	}
}

func TestReadIntervalsErrors(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	names := []string{"resource", "state", "start", "end"}
	res := func() arrow.Array { return strs(mem, []string{"a", "b", "c"}, nil) }
	st := func() arrow.Array { return strs(mem, []string{"x", "y", "z"}, nil) }
	f := func(v ...float64) arrow.Array { return f64s(mem, v, nil) }
	cases := []struct {
		name  string
		cols  []arrow.Array
		opt   IntervalColumns
		param string
		text  string
	}{
		{"NaN start", []arrow.Array{res(), st(), f(0, math.NaN(), 1), f(1, 2, 3)}, defaultCols, "start", `row 1: column "start" holds NaN`},
		{"null end", []arrow.Array{res(), st(), f(0, 1, 2), f64s(mem, []float64{1, 2, 3}, []bool{true, true, false})}, defaultCols, "end", `row 2: column "end" has no value (null)`},
		{"null resource", []arrow.Array{strs(mem, []string{"a", "", "c"}, []bool{true, false, true}), st(), f(0, 1, 2), f(1, 2, 3)}, defaultCols, "resource", `row 1: column "resource" has no value`},
		{"end before start", []arrow.Array{res(), st(), f(0, 1, 5), f(1, 2, 3)}, defaultCols, "end", "row 2: the state ends at 3.000000000 s, before it starts at 5.000000000 s"},
		{"negative duration", []arrow.Array{res(), st(), f(0, 1, 2), f(1, -2, 3)}, IntervalColumns{Resource: "resource", State: "state", Start: "start", Duration: "end"}, "duration", `row 1: column "end" holds a negative duration`},
		{"unknown column", []arrow.Array{res(), st(), f(0, 1, 2), f(1, 2, 3)}, IntervalColumns{Resource: "host", State: "state", Start: "start", End: "end"}, "resource", `no column "host" in the table (columns: [resource state start end])`},
		{"numeric state", []arrow.Array{res(), f(1, 2, 3), f(0, 1, 2), f(1, 2, 3)}, defaultCols, "state", `column "state" holds float64; it must hold strings`},
		{"string time", []arrow.Array{res(), st(), st(), f(1, 2, 3)}, defaultCols, "start", `column "start" holds utf8; times must be numbers`},
		{"infinite", []arrow.Array{res(), st(), f(0, 1, 2), f(1, math.Inf(1), 3)}, defaultCols, "end", `row 1: column "end" holds +Inf`},
		{"too large", []arrow.Array{res(), st(), f(0, 1, 2), f(1, 1e12, 3)}, defaultCols, "end", `row 1: column "end" holds 1e+12, out of range`},
		{"no end", []arrow.Array{res(), st(), f(0, 1, 2), f(1, 2, 3)}, IntervalColumns{Resource: "resource", State: "state", Start: "start"}, "end", "give either an end column or a duration column"},
		{"bad unit", []arrow.Array{res(), st(), f(0, 1, 2), f(1, 2, 3)}, IntervalColumns{Resource: "resource", State: "state", Start: "start", End: "end", TimeUnit: "h"}, "time_unit", `unknown unit "h"`},
	}
	for _, c := range cases {
		_, err := readTable(table(t, mem, names, c.cols...), c.opt)
		var ae *errs.ArgumentError
		if !errors.As(err, &ae) || ae.Name != c.param || !strings.Contains(ae.Reason, c.text) {
			t.Errorf("%s: error %v, want an ArgumentError on %s containing %q", c.name, err, c.param, c.text)
		}
	}
}

// TestReadIntervalsBatches: rows are numbered across batches, and strings
// kept by the trace do not point into the released batches.
func TestReadIntervalsBatches(t *testing.T) {
	mem := memory.NewCheckedAllocator(scribbler{memory.NewGoAllocator()})
	fields := []arrow.Field{{Name: "r", Type: arrow.BinaryTypes.String}, {Name: "s", Type: arrow.BinaryTypes.String},
		{Name: "t0", Type: arrow.PrimitiveTypes.Float64}, {Name: "t1", Type: arrow.PrimitiveTypes.Float64}}
	schema := arrow.NewSchema(fields, nil)
	batch := func(r, s string, t0, t1 float64) arrow.RecordBatch {
		cols := []arrow.Array{strs(mem, []string{r}, nil), strs(mem, []string{s}, nil), f64s(mem, []float64{t0}, nil), f64s(mem, []float64{t1}, nil)}
		rec := array.NewRecordBatch(schema, cols, 1)
		for _, c := range cols {
			c.Release()
		}
		return rec
	}
	b1, b2 := batch("h/c0", "run", 0, 1), batch("h/c1", "idle", 3, 2)
	rdr, err := array.NewRecordReader(schema, []arrow.RecordBatch{b1, b2})
	if err != nil {
		t.Fatal(err)
	}
	b1.Release()
	b2.Release()
	_, err = readTable(rdr, IntervalColumns{Resource: "r", State: "s", Start: "t0", End: "t1"})
	if err == nil || !strings.Contains(err.Error(), "row 1:") {
		t.Fatalf("error %v, want one naming row 1", err)
	}

	b1, b2 = batch("h/c0", "run", 0, 1), batch("h/c1", "idle", 2, 3)
	rdr, _ = array.NewRecordReader(schema, []arrow.RecordBatch{b1, b2})
	b1.Release()
	b2.Release()
	tr, err := readTable(rdr, IntervalColumns{Resource: "r", State: "s", Start: "t0", End: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	mem.AssertSize(t, 0) // every buffer is released: the trace holds copies
	if tr.ContainerPath(tr.States.At(1).Container, "/") != "h/c1" || tr.ValueName(tr.States.At(1).Value) != "idle" {
		t.Errorf("second batch's row became %+v", tr.States.At(1))
	}
}

// scribbler overwrites the memory it frees, so that a string still
// pointing into a released buffer shows.
type scribbler struct{ memory.Allocator }

func (s scribbler) Free(b []byte) {
	for i := range b {
		b[i] = 'X'
	}
	s.Allocator.Free(b)
}

// TestReadIntervalsRoles: a role column gives each row's value its role,
// by name; one name under two roles is two values (Kineto's annotation on
// the host and its copy on a stream), a step's number is read from its
// name, and a name no role has is refused naming its row.
func TestReadIntervalsRoles(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	names := []string{"resource", "state", "start", "end", "role"}
	cols := IntervalColumns{Resource: "resource", State: "state", Start: "start", End: "end", Role: "role"}
	tr, err := readTable(table(t, mem, names,
		strs(mem, []string{"host", "gpu", "host", "gpu"}, nil),
		strs(mem, []string{"ProfilerStep#7", "ProfilerStep#7", "aten::mm", "gemm"}, nil),
		i64s(mem, []int64{0, 1, 2, 3}), i64s(mem, []int64{10, 9, 5, 4}),
		strs(mem, []string{"step", "device annotation", "", ""}, []bool{true, true, true, false})), cols)
	if err != nil {
		t.Fatal(err)
	}
	type v struct {
		name string
		role trace.Role
		step int32
	}
	var got []v
	for _, x := range tr.Values {
		got = append(got, v{x.Name, x.Role, x.Step})
	}
	want := []v{{"ProfilerStep#7", trace.RoleStep, 7}, {"ProfilerStep#7", trace.RoleDeviceAnnotation, 0},
		{"aten::mm", trace.RoleNone, 0}, {"gemm", trace.RoleNone, 0}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("values %v, want %v", got, want)
	}
	if s := tr.States.At(1); tr.Values[s.Value].Role != trace.RoleDeviceAnnotation {
		t.Errorf("row 1 has the value %+v", tr.Values[s.Value])
	}
	_, err = readTable(table(t, mem, names, strs(mem, []string{"a", "b"}, nil), strs(mem, []string{"x", "y"}, nil),
		i64s(mem, []int64{0, 1}), i64s(mem, []int64{1, 2}), strs(mem, []string{"step", "Step"}, nil)), cols)
	var ae *errs.ArgumentError
	if !errors.As(err, &ae) || ae.Name != "role" || !strings.Contains(ae.Reason, `row 1: column "role" holds "Step", which is no role's name`) {
		t.Errorf("unknown role: %v", err)
	}
}
