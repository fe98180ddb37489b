package paje

import (
	"errors"
	"io"
	"strings"
	"testing"

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
