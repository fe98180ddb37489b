package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"image"
	"image/png"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	_ "github.com/macroscope-hpc/macroscope/arrowio/files/goparquet" // the Parquet writer of the Go program
)

const bundledTrace = "../../../testdata/jacobi32.trace"

// runCLI runs the command line in process: its exit status and what it
// printed.
func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = Run(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// mustRun runs the command line and fails the test unless it succeeds;
// it returns what the command printed.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := runCLI(args...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errOut)
	}
	return out
}

// refusal is a command line that must fail with an exit status and a
// message.
type refusal struct {
	args []string
	code int
	says string
}

// checkRefusals runs each command line: it must exit with its status and
// say what it should on standard error.
func checkRefusals(t *testing.T, cases []refusal) {
	t.Helper()
	for _, c := range cases {
		code, _, errOut := runCLI(c.args...)
		if code != c.code || !strings.Contains(errOut, c.says) {
			t.Errorf("%v: exit %d, %q; want exit %d saying %q", c.args, code, errOut, c.code, c.says)
		}
	}
}

// csvTable is a CSV file the command wrote: its header and rows.
type csvTable struct {
	header []string
	rows   [][]string
}

func readCSV(t *testing.T, path string) csvTable {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	records, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(records) == 0 {
		t.Fatalf("%s: no header", path)
	}
	return csvTable{header: records[0], rows: records[1:]}
}

// col returns the index of the named column.
func (c csvTable) col(t *testing.T, name string) int {
	t.Helper()
	i := slices.Index(c.header, name)
	if i < 0 {
		t.Fatalf("no column %q in %v", name, c.header)
	}
	return i
}

// float returns the value of a column in row r as a number.
func (c csvTable) float(t *testing.T, r int, name string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(c.rows[r][c.col(t, name)], 64)
	if err != nil {
		t.Fatalf("row %d, %s: %v", r, name, err)
	}
	return v
}

// readPNG decodes a PNG figure the command wrote.
func readPNG(t *testing.T, path string) image.Image {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img
}

// checkSize fails unless img is w x h pixels.
func checkSize(t *testing.T, img image.Image, w, h int) {
	t.Helper()
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Errorf("figure of %d x %d pixels, want %d x %d", b.Dx(), b.Dy(), w, h)
	}
}

// mustWrite writes a file for a test.
func mustWrite(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readParquet reads a Parquet file the command wrote.
func readParquet(t *testing.T, path string) arrow.Table {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := pqarrow.ReadTable(context.Background(), bytes.NewReader(b), nil, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	t.Cleanup(tbl.Release)
	return tbl
}
