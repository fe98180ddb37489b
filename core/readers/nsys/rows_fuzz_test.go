package nsys

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/budget"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest/dbrows"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// FuzzRows reads the synthetic export with rows inserted, changed and
// deleted as the input says (see dbrows): ids that name nothing, times
// reversed, NULL or at the ends of int64, text where a number is, in
// every table the reader reads. The read ends with a FormatError naming
// the file, or with a trace that keeps the Sink contract and the nesting
// the model builder relies on; never a panic. Under a budget (some
// multiple of 64 bytes) it may also end with the budget's error; either
// way it holds nothing once it returns. The schema's NOT NULLs are
// dropped: a stranger's file need not have them.
func FuzzRows(f *testing.F) {
	readertest.BoundMinimization(f)
	var stmts []string
	for _, s := range strings.Split(strings.ReplaceAll(tinySQL, " NOT NULL", ""), ";\n") {
		if strings.TrimSpace(s) != "" {
			stmts = append(stmts, s)
		}
	}
	tmpl := dbrows.New(f, stmts, host, p1, p2, t1, t2, t3, int64(-host), int64(1<<63-1-100))
	f.Add([]byte{}, false, uint8(0))
	f.Add([]byte{0}, true, uint8(3))
	// Some deletes and updates of every table, and an insert into each.
	var seed []byte
	for o := 0; o < 64; o++ {
		seed = append(seed, byte(o), byte(o*7), byte(o*13), byte(200+o%16), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)
	}
	f.Add(seed, false, uint8(0))
	f.Add(seed, true, uint8(40))
	path := filepath.Join(readertest.FuzzDir(f), "fuzz.sqlite")
	f.Fuzz(func(t *testing.T, input []byte, demangled bool, limit uint8) {
		if len(input) > 2048 {
			return
		}
		changes, err := tmpl.Write(path, input)
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			if t.Failed() {
				t.Logf("the changes:\n%s", changes)
			}
		}()
		meter := &budget.Meter{Limit: 64 * int64(limit)}
		tr := trace.New()
		sink := readertest.NewContract(tr)
		err = readWith(path, readerOptions{DemangledNames: demangled}, sink, trace.ReadOptions{Notes: &trace.Notes{}, Hold: meter.Hold})
		if n := meter.Held(); n != 0 {
			t.Fatalf("%d bytes still held after the read (%v)", n, err)
		}
		if meter.Err() != nil && errors.Is(err, meter.Err()) {
			return
		}
		readertest.CheckRead(t, path, err, sink)
		if err == nil {
			checkNesting(t, tr)
		}
	})
}
