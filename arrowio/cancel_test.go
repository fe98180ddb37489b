package arrowio

import (
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/trace/tracetest"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
)

// The conversions of long tables (a trace's states, links, variables and
// events; a model's long table and cells; an aggregation's rows) stop at
// their Cancel channel: closed, they return trace.ErrComputationCanceled
// and nothing, and release every buffer they allocated; open, they give
// the table built without one, row for row.
func TestTablesCanceled(t *testing.T) {
	tr := tracetest.Nested(8, 3*trace.StopEvery) // 393,216 states
	for i := range 2 * trace.StopEvery {
		c := int32(2 + i%8)
		tr.Link(trace.Link{Container: 1, Type: 2, From: c, To: c%8 + 2, Start: trace.Time(i), End: trace.Time(i + 5), Size: float64(i)})
		tr.Event(trace.Event{Container: c, Type: 2, Value: 0, Time: trace.Time(i)})
		tr.Variable(trace.Variable{Container: c, Type: 2, Start: trace.Time(i), End: trace.Time(i + 1), Value: float64(i)})
	}
	m := flatModel(64, 3*trace.StopEvery/64, 3) // 49,152 cells
	for i := range m.Values {
		if i%5 == 0 {
			m.Values[i] = 0
		}
	}
	parts := &aggregate.Partition{}
	for i := range 3 * trace.StopEvery {
		parts.Parts = append(parts.Parts, aggregate.Part{Node: int32(1 + i%64), First: int32(i / 64), Last: int32(i / 64)})
	}
	tables := []struct {
		name string
		make func(mem memory.Allocator, cancel <-chan struct{}) (arrow.RecordBatch, error)
	}{
		{"states", func(mem memory.Allocator, c <-chan struct{}) (arrow.RecordBatch, error) {
			return StatesTableCancel(tr, mem, c)
		}},
		{"links", func(mem memory.Allocator, c <-chan struct{}) (arrow.RecordBatch, error) {
			return LinksTableCancel(tr, mem, c)
		}},
		{"events", func(mem memory.Allocator, c <-chan struct{}) (arrow.RecordBatch, error) {
			return EventsTableCancel(tr, mem, c)
		}},
		{"variables", func(mem memory.Allocator, c <-chan struct{}) (arrow.RecordBatch, error) {
			return VariablesTableCancel(tr, mem, c)
		}},
		{"containers", func(mem memory.Allocator, c <-chan struct{}) (arrow.RecordBatch, error) {
			return ContainersTableCancel(tr, mem, c)
		}},
		{"types", func(mem memory.Allocator, c <-chan struct{}) (arrow.RecordBatch, error) {
			return TypesTableCancel(tr, mem, c)
		}},
		{"model", func(mem memory.Allocator, c <-chan struct{}) (arrow.RecordBatch, error) {
			return MicroTableCancel(m, mem, c)
		}},
		{"sparse model", func(mem memory.Allocator, c <-chan struct{}) (arrow.RecordBatch, error) {
			return MicroTableCancel(m.ToSparse(), mem, c)
		}},
		{"model in parts", func(mem memory.Allocator, c <-chan struct{}) (arrow.RecordBatch, error) {
			return microTable(m, mem, 3, c)
		}},
		{"cells", func(mem memory.Allocator, c <-chan struct{}) (arrow.RecordBatch, error) {
			return CellsTableCancel(m, mem, c)
		}},
		{"sparse cells", func(mem memory.Allocator, c <-chan struct{}) (arrow.RecordBatch, error) {
			return CellsTableCancel(m.ToSparse(), mem, c)
		}},
		{"partition", func(mem memory.Allocator, c <-chan struct{}) (arrow.RecordBatch, error) {
			return PartitionTableCancel(m, aggregate.Input{Tree: m.Tree, Slices: m.Slices, States: len(m.States), Values: m.Values}, parts, mem, c)
		}},
		{"aggregates' rows", func(mem memory.Allocator, c <-chan struct{}) (arrow.RecordBatch, error) {
			return PartRowsTableCancel(m, parts, mem, c)
		}},
	}
	for _, tb := range tables {
		t.Run(tb.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
			tracetest.Canceled(t, tb.name, func(cancel <-chan struct{}) (arrow.RecordBatch, error) {
				return tb.make(mem, cancel)
			}, func(got, want arrow.RecordBatch) bool {
				return got.NumRows() > 0 && array.RecordEqual(got, want) && got.Schema().Equal(want.Schema())
			})
			if mem.CurrentAlloc() == 0 {
				t.Fatalf("nothing allocated: the tables were released, or never built")
			}
			// The canceled conversion's buffers were released: once the
			// two complete tables are, nothing is left.
			mem = memory.NewCheckedAllocator(memory.DefaultAllocator)
			if rec, err := tb.make(mem, tracetest.Closed()); !errors.Is(err, trace.ErrComputationCanceled) || rec != nil {
				t.Fatalf("closed: %v", err)
			}
			mem.AssertSize(t, 0)
		})
	}
	// The tables without a channel are the ones with an open channel.
	if got, want := StatesTable(tr, memory.DefaultAllocator), must(StatesTableCancel(tr, memory.DefaultAllocator, make(chan struct{}))); !array.RecordEqual(got, want) {
		t.Errorf("StatesTable differs from StatesTableCancel with an open channel")
	}
	if got, want := CellsTable(m, memory.DefaultAllocator), must(CellsTableCancel(m, memory.DefaultAllocator, nil)); !array.RecordEqual(got, want) || got.NumRows() != int64(m.NonZero()) {
		t.Errorf("CellsTable differs from CellsTableCancel, or misses values")
	}
}

func must(rec arrow.RecordBatch, err error) arrow.RecordBatch {
	if err != nil {
		panic(err)
	}
	return rec
}
