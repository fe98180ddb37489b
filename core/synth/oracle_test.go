package synth

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/macroscope-hpc/macroscope/core/paje"
	"github.com/macroscope-hpc/macroscope/core/pjdump"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestPjDumpReadsIt runs the pj_dump installed here on a generated trace:
// it must accept it and print exactly what our reader and pj_dump writer
// make of it, with one line per container and per state.
func TestPjDumpReadsIt(t *testing.T) {
	bin, err := exec.LookPath("pj_dump")
	if err != nil {
		t.Skip("pj_dump (Debian package pajeng) is not installed")
	}
	c := small(3000, 11)
	c.States = []State{{"Compute", 3}, {"Wait for data", 1}} // a name pj_dump must read quoted
	c.Anomalies = []Anomaly{{Level: Core, At: []int{1, 1, 0, 2}, Weights: map[string]float64{"Compute": 0}, From: 0.1, To: 0.2}}
	in, st := generatePaje(t, c)
	path := filepath.Join(t.TempDir(), "synth.trace")
	if err := os.WriteFile(path, in, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, path).Output()
	if err != nil {
		t.Fatalf("pj_dump: %v", err)
	}
	kinds := map[string]int64{}
	for _, l := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		k, _, _ := strings.Cut(l, ",")
		kinds[k]++
	}
	if kinds["Container"] != int64(st.Containers)+1 || kinds["State"] != st.States || len(kinds) != 2 {
		t.Errorf("pj_dump prints %v, want %d containers (root included) and %d states", kinds, st.Containers+1, st.States)
	}
	if !bytes.Contains(out, []byte("Container, machine-0, Core, 0, 0.125, 0.125, core-2\n")) {
		t.Error("pj_dump does not show core-2 of a machine-0 living [0, 0.125]")
	}
	tr := readPaje(t, in, paje.PajeNG())
	var ours bytes.Buffer
	if err := pjdump.Write(&ours, tr, pjdump.Options{}); err != nil {
		t.Fatal(err)
	}
	if ours.String() != string(out) {
		t.Error("pj_dump's output differs from ours")
	}
}

// TestParquetHoldsTheSameIntervals writes the same configuration as a
// Parquet table and as a Pajé trace: the table's rows are the states the
// Pajé reader finds.
func TestParquetHoldsTheSameIntervals(t *testing.T) {
	c := small(4000, 5)
	c.Anomalies = []Anomaly{{Level: Machine, At: []int{0, 1, 1}, Weights: map[string]float64{"Idle": 9}}}
	dir := t.TempDir()
	pq := filepath.Join(dir, "synth.parquet")
	st, err := WriteFile(pq, "", c)
	if err != nil {
		t.Fatal(err)
	}
	again := filepath.Join(dir, "again.parquet")
	if _, err := WriteFile(again, FormatParquet, c); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(pq)
	b, _ := os.ReadFile(again)
	if !bytes.Equal(a, b) || st.Bytes != int64(len(a)) {
		t.Fatalf("two Parquet files of the same seed differ, or the size %d is not reported (%d)", len(a), st.Bytes)
	}

	type row struct {
		path, state string
		start, end  trace.Time
		indices     [4]int32
	}
	var fromParquet []row
	f, err := file.OpenParquetFile(pq, false)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := pqarrow.NewFileReader(f, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := r.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	for i, f := range IntervalSchema.Fields() {
		if g := tbl.Schema().Field(i); g.Name != f.Name || !arrow.TypeEqual(g.Type, f.Type) {
			t.Fatalf("column %d is %s %s, want %s %s", i, g.Name, g.Type, f.Name, f.Type)
		}
	}
	tr := array.NewTableReader(tbl, 1<<20)
	defer tr.Release()
	for tr.Next() {
		rec := tr.RecordBatch()
		col := func(i int) arrowColumn { return arrowColumn{rec.Column(i)} }
		for i := 0; i < int(rec.NumRows()); i++ {
			x := row{path: col(0).str(i), state: col(5).str(i),
				start: trace.Time(col(8).i64(i)), end: trace.Time(col(9).i64(i))}
			for l := range 4 {
				x.indices[l] = col(1 + l).i32(i)
			}
			if col(6).f64(i) != x.start.Seconds() || col(7).f64(i) != x.end.Seconds() {
				t.Fatalf("row %d: seconds %v %v for %s %s", i, col(6).f64(i), col(7).f64(i), x.start, x.end)
			}
			fromParquet = append(fromParquet, x)
		}
	}
	if int64(len(fromParquet)) != st.States {
		t.Fatalf("%d rows, %d reported", len(fromParquet), st.States)
	}

	in, _ := generatePaje(t, c)
	pj := readPaje(t, in, paje.Options{})
	var fromPaje []row
	for _, s := range pj.States {
		fromPaje = append(fromPaje, row{path: pj.ContainerPath(s.Container, "/"), state: pj.Values[s.Value].Name,
			start: s.Start, end: s.End})
	}
	order := func(a, b row) int {
		if a.start != b.start {
			return int(a.start - b.start)
		}
		return strings.Compare(a.path, b.path)
	}
	slices.SortFunc(fromPaje, order)
	if !slices.IsSortedFunc(fromParquet, func(a, b row) int { return int(a.start - b.start) }) {
		t.Error("rows are not in the order of their start")
	}
	slices.SortStableFunc(fromParquet, order)
	for i := range fromPaje {
		p, q := fromParquet[i], fromPaje[i]
		want := fmt.Sprintf("site-%d/cluster-%d/machine-%d/core-%d", p.indices[0], p.indices[1], p.indices[2], p.indices[3])
		if p.path != q.path || p.state != q.state || p.start != q.start || p.end != q.end || p.path != want {
			t.Fatalf("interval %d: Parquet %+v, Pajé %+v", i, p, q)
		}
	}
}

// arrowColumn reads the cells of the few column types of IntervalSchema.
type arrowColumn struct{ a interface{} }

func (c arrowColumn) str(i int) string  { return c.a.(*array.String).Value(i) }
func (c arrowColumn) i32(i int) int32   { return c.a.(*array.Int32).Value(i) }
func (c arrowColumn) i64(i int) int64   { return c.a.(*array.Int64).Value(i) }
func (c arrowColumn) f64(i int) float64 { return c.a.(*array.Float64).Value(i) }
