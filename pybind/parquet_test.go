package pybind

import (
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/arrowio/files"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
)

// The extension links no Parquet writer, no compute kernels, no gRPC and
// no goccy/go-json: about half of its cold build (pybind/build_hook.py
// builds it with -tags=arrow_json_stdlib).
func TestExtensionLinksNoHeavyPackages(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", "-tags=arrow_json_stdlib", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	var heavy []string
	for _, pkg := range strings.Fields(string(out)) {
		for _, part := range []string{"arrow-go/v18/parquet", "arrow-go/v18/arrow/compute", "arrow-go/v18/arrow/flight",
			"google.golang.org/grpc", "github.com/goccy/go-json"} {
			if strings.Contains(pkg, part) {
				heavy = append(heavy, pkg)
			}
		}
	}
	if len(heavy) > 0 {
		t.Errorf("the extension links %d packages it should not:\n%s", len(heavy), strings.Join(heavy, "\n"))
	}
}

// servePython answers w's Parquet requests as the Python package does
// (macroscope._parquet), recording them, until w ends; fail makes the
// answer to that operation an error.
func servePython(t *testing.T, w *Work, fail string) (ops []string, rows int64) {
	t.Helper()
	for {
		finished, err := w.Wait(1000)
		if err != nil {
			t.Fatal(err)
		}
		for {
			r := NextParquetRequest()
			if r.Op() == "" {
				break
			}
			ops = append(ops, r.Op()+" "+r.Path())
			if r.rec != nil {
				rows += r.rec.NumRows()
			}
			if r.Op() == fail {
				r.Done("disk full")
			} else {
				r.Done("")
			}
		}
		if finished {
			return ops, rows
		}
	}
}

func writeTwoBatches(path string) func(*aggregate.Control) error {
	return func(*aggregate.Control) error {
		s := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
		out, err := files.CreateParquet(path, s, files.ParquetOptions{NoDictionary: []string{"x"}})
		if err != nil {
			return err
		}
		b := array.NewRecordBuilder(memory.NewGoAllocator(), s)
		defer b.Release()
		for _, n := range []int{3, 4} {
			for i := range n {
				b.Field(0).(*array.Int64Builder).Append(int64(i))
			}
			rec := b.NewRecordBatch()
			err := out.Write(rec)
			rec.Release()
			if err != nil {
				out.Abort()
				return err
			}
		}
		return out.Close()
	}
}

func TestParquetIsWrittenByThePoller(t *testing.T) {
	w := startWork(writeTwoBatches("t.parquet"))
	ops, rows := servePython(t, w, "")
	if err := w.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{"create t.parquet", "write t.parquet", "write t.parquet", "close t.parquet"}
	if !slices.Equal(ops, want) || rows != 7 {
		t.Errorf("requests %q with %d rows, want %q with 7", ops, rows, want)
	}
}

func TestParquetFailureReachesTheWriter(t *testing.T) {
	w := startWork(writeTwoBatches("t.parquet"))
	ops, _ := servePython(t, w, "write")
	err := w.Err()
	if err == nil || !strings.Contains(err.Error(), "writing t.parquet: disk full") {
		t.Errorf("error %v, want writing t.parquet: disk full", err)
	}
	// The writer gives up after the first failed batch and the file is removed.
	want := []string{"create t.parquet", "write t.parquet", "abort t.parquet"}
	if !slices.Equal(ops, want) {
		t.Errorf("requests %q, want %q", ops, want)
	}
	if errors.Is(err, files.ErrNoParquet) {
		t.Error("the extension has no Parquet writer installed")
	}
}
