package paje

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/budget"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The simulator's tables of types and values weigh against the read's
// memory budget as types are defined (trace.ReadOptions.Hold): 300,000
// state types, each a line, under a budget of 8 MiB stop the read with
// the budget's error at a definition's line, in the pipeline and line by
// line, where the budget never heard of the tables (they hold about three
// times the trace's types). Under a budget they fit, the read completes
// and gives back what it held.
func TestTypeTablesWeighed(t *testing.T) {
	const types = 300_000
	var b bytes.Buffer
	b.WriteString(miniHeader + "0 CT 0 CT\n")
	header := strings.Count(b.String(), "\n")
	for i := range types {
		fmt.Fprintf(&b, "2 S%d CT state%d\n", i, i)
	}
	text := b.Bytes()
	for _, serial := range []bool{false, true} {
		meter := budget.NewMeter(8<<20, nil)
		d := newDecoder(trace.New(), Options{ReadOptions: trace.ReadOptions{Hold: meter.Hold}}, 0)
		d.serial = serial
		err := d.decode(bytes.NewReader(text), "types.trace")
		d.sim.release()
		var fe *errs.FormatError
		if meter.Err() == nil || !errors.As(err, &fe) || fe.File != "types.trace" || !errors.Is(err, meter.Err()) {
			t.Fatalf("serial %v: %v (meter %v), want the budget's error placed in types.trace", serial, err, meter.Err())
		}
		if fe.Line <= header || fe.Line > header+types {
			t.Errorf("serial %v: placed at line %d, want a type's (%d to %d)", serial, fe.Line, header+1, header+types)
		}
		want := fmt.Sprintf("reading types.trace, line %d: the read holds", fe.Line)
		if named := budget.Named(meter.Err(), err, "types.trace").Error(); !strings.Contains(named, want) {
			t.Errorf("serial %v: %s\nwant %q", serial, named, want)
		}
		if meter.Held() != 0 {
			t.Errorf("serial %v: %d bytes still held after the read", serial, meter.Held())
		}
	}
	meter := budget.NewMeter(1<<30, nil)
	tr := trace.New()
	if err := Decode(bytes.NewReader(text), "types.trace", 0, tr, Options{ReadOptions: trace.ReadOptions{Hold: meter.Hold}}); err != nil {
		t.Fatal(err)
	}
	if len(tr.Types) < types || meter.Held() != 0 {
		t.Errorf("%d types, %d bytes still held after the read", len(tr.Types), meter.Held())
	}
}
