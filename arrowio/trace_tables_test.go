package arrowio

import (
	"math"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// smallTrace holds one entity of each kind, and a link without value nor
// size, in a hierarchy machine m > processes p1, p2.
func smallTrace() *trace.Trace {
	t := trace.New("small")
	t.DefineType(trace.Type{Name: "Machine", Kind: trace.KindContainer, Parent: trace.None})                         // 0
	t.DefineType(trace.Type{Name: "Process", Alias: "P", Kind: trace.KindContainer, Parent: 0})                      // 1
	t.DefineType(trace.Type{Name: "State", Kind: trace.KindState, Parent: 1, Color: "1 0 0"})                        // 2
	t.DefineType(trace.Type{Name: "Load", Kind: trace.KindVariable, Parent: 1, Role: trace.RoleInstructions})        // 3
	t.DefineType(trace.Type{Name: "Mark", Kind: trace.KindEvent, Parent: 1})                                         // 4
	t.DefineType(trace.Type{Name: "Msg", Kind: trace.KindLink, Parent: 0, Start: 1, End: 1, Role: trace.RoleLaunch}) // 5
	t.DefineValue(trace.Value{Type: 2, Name: "run"})                                                                 // 0
	t.DefineValue(trace.Value{Type: 2, Name: "wait"})                                                                // 1
	t.DefineValue(trace.Value{Type: 4, Name: "checkpoint"})                                                          // 2
	t.DefineValue(trace.Value{Type: 5, Name: "tag 7"})                                                               // 3
	t.CreateContainer(trace.Container{Name: "m", Type: 0, Parent: 0})                                                // 1
	t.CreateContainer(trace.Container{Name: "p1", Type: 1, Parent: 1})                                               // 2
	t.CreateContainer(trace.Container{Name: "p2", Type: 1, Parent: 1})                                               // 3
	t.State(trace.State{Container: 2, Type: 2, Value: 0, Start: 0, End: 1_500_000_001})
	t.State(trace.State{Container: 3, Type: 2, Value: 1, Start: 1, End: 2, Depth: 1})
	t.Variable(trace.Variable{Container: 3, Type: 3, Start: 250_000_000, End: 3 * trace.Second, Value: 0.5})
	t.Event(trace.Event{Container: 2, Type: 4, Value: 2, Time: 2_000_000_007})
	t.Link(trace.Link{Container: 1, Type: 5, Value: 3, Start: trace.Second, End: 2 * trace.Second, From: 2, To: 3, Key: "k1", Size: 4096})
	t.Link(trace.Link{Container: 1, Type: 5, Value: trace.None, Start: 2 * trace.Second, End: 2 * trace.Second, From: 3, To: 2, Size: math.NaN()})
	t.Finish(0, 3*trace.Second)
	return t
}

// column returns the values of a column as Go values (nil for nulls).
func column(t *testing.T, rec arrow.RecordBatch, name string) []any {
	t.Helper()
	idx := rec.Schema().FieldIndices(name)
	if len(idx) != 1 {
		t.Fatalf("no column %q in %v", name, rec.Schema())
	}
	col := rec.Column(idx[0])
	out := make([]any, col.Len())
	for i := range out {
		if col.IsNull(i) {
			continue
		}
		switch a := col.(type) {
		case *array.Dictionary:
			out[i] = a.Dictionary().(*array.String).Value(a.GetValueIndex(i))
		case *array.String:
			out[i] = a.Value(i)
		case *array.Float64:
			out[i] = a.Value(i)
		case *array.Int64:
			out[i] = a.Value(i)
		case *array.Int32:
			out[i] = a.Value(i)
		default:
			t.Fatalf("column %q has type %v", name, col.DataType())
		}
	}
	return out
}

func expect(t *testing.T, rec arrow.RecordBatch, name string, want ...any) {
	t.Helper()
	if got := column(t, rec, name); !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %v, want %v", name, got, want)
	}
}

func TestTraceTables(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tr := smallTrace()

	v := VariablesTable(tr, mem)
	expect(t, v, "container", "m/p2")
	expect(t, v, "type", "Load")
	expect(t, v, "start", 0.25)
	expect(t, v, "end", 3.0)
	expect(t, v, "duration", 2.75)
	expect(t, v, "value", 0.5)
	expect(t, v, "start_ns", int64(250_000_000))
	expect(t, v, "end_ns", int64(3_000_000_000))
	v.Release()

	l := LinksTable(tr, mem)
	expect(t, l, "container", "m", "m")
	expect(t, l, "type", "Msg", "Msg")
	expect(t, l, "value", "tag 7", nil)
	expect(t, l, "source", "m/p1", "m/p2")
	expect(t, l, "destination", "m/p2", "m/p1")
	expect(t, l, "duration", 1.0, 0.0)
	expect(t, l, "key", "k1", nil)
	expect(t, l, "size", 4096.0, nil)
	expect(t, l, "start_ns", int64(1e9), int64(2e9))
	l.Release()

	e := EventsTable(tr, mem)
	expect(t, e, "container", "m/p1")
	expect(t, e, "type", "Mark")
	expect(t, e, "value", "checkpoint")
	expect(t, e, "time", 2.000000007)
	expect(t, e, "time_ns", int64(2_000_000_007))
	expect(t, e, "category", nil)
	expect(t, e, "args", nil)
	e.Release()

	s := StatesTable(tr, mem)
	expect(t, s, "value", "run", "wait")
	expect(t, s, "category", nil, nil)
	expect(t, s, "args", nil, nil)
	s.Release()

	ty := TypesTable(tr, mem)
	expect(t, ty, "name", "Machine", "Process", "State", "Load", "Mark", "Msg")
	expect(t, ty, "kind", "Container", "Container", "State", "Variable", "Event", "Link")
	expect(t, ty, "parent", nil, "Machine", "Process", "Process", "Process", "Machine")
	expect(t, ty, "alias", nil, "P", nil, nil, nil, nil)
	expect(t, ty, "color", nil, nil, "1 0 0", nil, nil, nil)
	expect(t, ty, "values", int64(0), int64(0), int64(2), int64(0), int64(1), int64(1))
	expect(t, ty, "source_type", nil, nil, nil, nil, nil, "Process")
	expect(t, ty, "destination_type", nil, nil, nil, nil, nil, "Process")
	expect(t, ty, "role", "", "", "", "instructions", "", "launch")
	ty.Release()
}

// TestCategoryAndArgsColumns checks the category of each entity's value
// and the arguments the reader gave, null where there are none (arguments
// past the end of StateArgs included).
func TestCategoryAndArgsColumns(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tr := trace.New("cats")
	tr.KeepArgs = true
	tr.DefineType(trace.Type{Name: "Thread", Kind: trace.KindContainer, Parent: trace.None})
	tr.DefineType(trace.Type{Name: "Slice", Kind: trace.KindState, Parent: 0})
	tr.DefineType(trace.Type{Name: "Instant", Kind: trace.KindEvent, Parent: 0})
	tr.DefineValue(trace.Value{Type: 1, Name: "copy", Category: "gpu_memcpy"})
	tr.DefineValue(trace.Value{Type: 1, Name: "copy", Category: "cuda_runtime"})
	tr.DefineValue(trace.Value{Type: 1, Name: "gemm"})
	tr.DefineValue(trace.Value{Type: 2, Name: "tick", Category: "gpu_memcpy"})
	tr.CreateContainer(trace.Container{Name: "t", Type: 0, Parent: 0})
	for i, v := range []int32{0, 1, 2, 1} {
		tr.State(trace.State{Container: 1, Type: 1, Value: v, Start: trace.Time(i), End: trace.Time(i + 1)})
	}
	tr.Args(trace.KindState, 1, `{"bytes":4}`)
	tr.Event(trace.Event{Container: 1, Type: 2, Value: 3, Time: 1})
	tr.Event(trace.Event{Container: 1, Type: 2, Value: trace.None, Time: 2})
	tr.Args(trace.KindEvent, 1, `{"n":1}`)
	tr.Finish(0, 4)

	s := StatesTable(tr, mem)
	expect(t, s, "value", "copy", "copy", "gemm", "copy")
	expect(t, s, "category", "gpu_memcpy", "cuda_runtime", nil, "cuda_runtime")
	expect(t, s, "args", nil, `{"bytes":4}`, nil, nil)
	s.Release()
	e := EventsTable(tr, mem)
	expect(t, e, "category", "gpu_memcpy", nil)
	expect(t, e, "args", nil, `{"n":1}`)
	e.Release()
}

// TestEmptyTraceTables: a trace without entities gives tables with their
// columns and no row.
func TestEmptyTraceTables(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tr := trace.New()
	tr.Finish(0, 0)
	for name, build := range map[string]func(*trace.Trace, memory.Allocator) arrow.RecordBatch{
		"variables": VariablesTable, "links": LinksTable, "events": EventsTable, "types": TypesTable,
	} {
		rec := build(tr, mem)
		if rec.NumRows() != 0 || rec.NumCols() < 5 {
			t.Errorf("%s: %d rows, %d columns", name, rec.NumRows(), rec.NumCols())
		}
		rec.Release()
	}
}
