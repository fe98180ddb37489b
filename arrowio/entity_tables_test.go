package arrowio

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestEntityTablesAcrossBlocks checks, row by row, that the tables of a
// trace's variables, links and events hold its entities, when their
// columns span more than one block and link keys are empty, unique or
// long.
func TestEntityTablesAcrossBlocks(t *testing.T) {
	const n = 40_000 // more than the 32,768 of a block
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tr := smallTrace()
	keys := make([]string, n)
	for i := range n {
		switch {
		case i%3 == 0:
		case i%997 == 1:
			keys[i] = strings.Repeat(fmt.Sprint(i), 100)
		default:
			keys[i] = fmt.Sprintf("k%d", i)
		}
		at := trace.Time(i) * 1000
		tr.Variable(trace.Variable{Container: 2 + int32(i%2), Type: 3, Start: at, End: at + 999, Value: float64(i) / 7})
		tr.Event(trace.Event{Container: 3 - int32(i%2), Type: 4, Value: 2 - 3*int32(i%2), Time: at + 1})
		size := float64(i)
		if i%5 == 0 {
			size = math.NaN()
		}
		tr.Link(trace.Link{Container: 1, Type: 5, Value: 3 - 4*int32(i%2), Start: at, End: at + trace.Time(i%9),
			From: 2 + int32(i%2), To: 3 - int32(i%2), Key: keys[i], Size: size})
	}
	names := namesOf(tr)
	orNil := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	valueOf := func(v int32) any {
		if v < 0 {
			return nil
		}
		return names.values[v]
	}
	check := func(table string, got map[string][]any, row int, want map[string]any) {
		t.Helper()
		for name, w := range want {
			if g := got[name][row]; g != w {
				t.Fatalf("%s row %d: %s = %v, the entity has %v", table, row, name, g, w)
			}
		}
	}
	v := VariablesTable(tr, mem)
	defer v.Release()
	if int(v.NumRows()) != tr.Variables.Len() {
		t.Fatalf("%d variable rows, %d pieces", v.NumRows(), tr.Variables.Len())
	}
	vc := map[string][]any{}
	for _, name := range []string{"container", "type", "start_ns", "end_ns", "value"} {
		vc[name] = column(t, v, name)
	}
	for i, x := range tr.Variables.All() {
		check("variables", vc, i, map[string]any{"container": names.paths[x.Container], "type": names.types[x.Type],
			"start_ns": int64(x.Start), "end_ns": int64(x.End), "value": x.Value})
	}

	e := EventsTable(tr, mem)
	defer e.Release()
	if int(e.NumRows()) != tr.Events.Len() {
		t.Fatalf("%d event rows, %d events", e.NumRows(), tr.Events.Len())
	}
	ec := map[string][]any{}
	for _, name := range []string{"container", "type", "value", "time_ns"} {
		ec[name] = column(t, e, name)
	}
	for i, x := range tr.Events.All() {
		check("events", ec, i, map[string]any{"container": names.paths[x.Container], "type": names.types[x.Type],
			"value": valueOf(x.Value), "time_ns": int64(x.Time)})
	}

	l := LinksTable(tr, mem)
	defer l.Release()
	if int(l.NumRows()) != tr.Links.Len() {
		t.Fatalf("%d link rows, %d links", l.NumRows(), tr.Links.Len())
	}
	lc := map[string][]any{}
	for _, name := range []string{"container", "type", "value", "source", "destination", "start_ns", "end_ns", "key", "size"} {
		lc[name] = column(t, l, name)
	}
	for i, x := range tr.Links.All() {
		var size any = x.Size
		if math.IsNaN(x.Size) {
			size = nil
		}
		check("links", lc, i, map[string]any{"container": names.paths[x.Container], "type": names.types[x.Type],
			"value": valueOf(x.Value), "source": names.paths[x.From], "destination": names.paths[x.To],
			"start_ns": int64(x.Start), "end_ns": int64(x.End), "key": orNil(x.Key), "size": size})
		if i >= 2 && x.Key != keys[i-2] { // the small trace's two links come first
			t.Fatalf("link %d has key %q, was given %q", i, x.Key, keys[i-2])
		}
	}
}
