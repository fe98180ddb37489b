package paje

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/budget"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// zeros is an endless line: a file of zero bytes, or a bomb of them.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	if z.n <= 0 {
		return 0, io.EOF
	}
	n := min(int64(len(p)), z.n)
	clear(p[:n])
	z.n -= n
	return int(n), nil
}

// A line without end past maxLine is refused with an error naming the
// file and line, in the pipeline and line by line, instead of being
// collected whole (a 2 GiB gzip of zeros took the machine's memory).
func TestLongLineRefused(t *testing.T) {
	for _, serial := range []bool{false, true} {
		d := newDecoder(trace.New(), Options{}, 0)
		d.serial = serial
		in := io.MultiReader(strings.NewReader(miniHeader), &zeros{n: maxLine + 1<<20})
		err := d.decode(in, "zeros.trace")
		var fe *errs.FormatError
		if !errors.As(err, &fe) || fe.File != "zeros.trace" || fe.Err != errLongLine {
			t.Errorf("serial %v: %v, want a FormatError of zeros.trace: %v", serial, err, errLongLine)
		}
	}
}

// A long line weighs against the read's memory budget as it is gathered
// (trace.ReadOptions.Hold), in the pipeline and line by line: a line of
// 32 MiB of zeros under a budget of 4 MiB stops the read with the
// budget's error, where it took 4 times the line before reaching maxLine.
// Under a budget it fits, the read ends on the line as before and gives
// back what it held.
func TestLongLineWeighed(t *testing.T) {
	for _, serial := range []bool{false, true} {
		stop := make(chan struct{})
		meter := budget.NewMeter(4<<20, func() { close(stop) })
		d := newDecoder(trace.New(), Options{ReadOptions: trace.ReadOptions{Hold: meter.Hold, Cancel: stop}}, 0)
		d.serial = serial
		err := d.decode(io.MultiReader(strings.NewReader(miniHeader), &zeros{n: 32 << 20}), "zeros.trace")
		var ae *errs.ArgumentError
		if !errors.As(meter.Err(), &ae) || ae.Name != "memory_budget" || !strings.Contains(ae.Reason, "more than the memory budget of 4 MiB") {
			t.Errorf("serial %v: meter: %v", serial, meter.Err())
		}
		// The read's error places the budget's at the long line, for
		// the front end to say (budget.Named).
		var fe *errs.FormatError
		lines := strings.Count(miniHeader, "\n")
		if !errors.As(err, &fe) || fe.File != "zeros.trace" || fe.Line != lines+1 || !errors.Is(err, meter.Err()) {
			t.Errorf("serial %v: %v, want the budget's error at zeros.trace:%d", serial, err, lines+1)
		}
		if meter.Held() != 0 {
			t.Errorf("serial %v: %d bytes still held after the read", serial, meter.Held())
		}

		meter = budget.NewMeter(1<<30, nil)
		d = newDecoder(trace.New(), Options{ReadOptions: trace.ReadOptions{Hold: meter.Hold}}, 0)
		d.serial = serial
		err = d.decode(io.MultiReader(strings.NewReader(miniHeader), &zeros{n: 32 << 20}, strings.NewReader("\n")), "zeros.trace")
		if err == nil || meter.Err() != nil || strings.Contains(err.Error(), "budget") {
			t.Errorf("serial %v: %v (meter %v), want the line's own error", serial, err, meter.Err())
		}
		if meter.Held() != 0 {
			t.Errorf("serial %v: %d bytes still held after the read", serial, meter.Held())
		}
	}
}
