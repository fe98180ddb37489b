package nsys

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest/dbrows"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// FuzzRows reads the synthetic export with rows inserted, changed and
// deleted as the input says (see dbrows): ids that name nothing, times
// reversed, NULL or at the ends of int64, text where a number is, in
// every table the reader reads. The read ends with a FormatError naming
// the file, or with a trace that keeps the Sink contract and the nesting
// the model builder relies on; never a panic. The schema's NOT NULLs are
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
	f.Add([]byte{}, false)
	f.Add([]byte{0}, true)
	// Some deletes and updates of every table, and an insert into each.
	var seed []byte
	for o := 0; o < 64; o++ {
		seed = append(seed, byte(o), byte(o*7), byte(o*13), byte(200+o%16), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)
	}
	f.Add(seed, false)
	path := filepath.Join(readertest.FuzzDir(f), "fuzz.sqlite")
	f.Fuzz(func(t *testing.T, input []byte, demangled bool) {
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
		tr := trace.New()
		sink := readertest.NewContract(tr)
		err = readWith(path, readerOptions{DemangledNames: demangled}, sink, trace.ReadOptions{Notes: &trace.Notes{}})
		readertest.CheckRead(t, path, err, sink)
		if err == nil {
			checkNesting(t, tr)
		}
	})
}
