package arrowio

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	_ "github.com/macroscope-hpc/macroscope/arrowio/files/goparquet" // the Parquet writer
	"github.com/macroscope-hpc/macroscope/core/gen/synth"
	"github.com/macroscope-hpc/macroscope/core/readers/paje"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestParquetHoldsTheSameIntervals writes the same configuration as a
// Parquet table and as a Pajé trace: the table's rows are the states the
// Pajé reader finds.
func TestParquetHoldsTheSameIntervals(t *testing.T) {
	c := synth.Config{Sites: 2, Clusters: 2, Machines: 2, Cores: 3, Events: 4000, Seed: 5}
	c.Anomalies = []synth.Anomaly{{Level: synth.Machine, At: []int{0, 1, 1}, Weights: map[string]float64{"Idle": 9}}}
	dir := t.TempDir()
	pq := filepath.Join(dir, "synth.parquet")
	st, err := WriteSynth(pq, "", c)
	if err != nil {
		t.Fatal(err)
	}
	again := filepath.Join(dir, "again.parquet")
	if _, err := WriteSynth(again, synth.FormatParquet, c); err != nil {
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
	for i, f := range SynthSchema.Fields() {
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

	var in bytes.Buffer
	if _, err := synth.WritePaje(&in, c); err != nil {
		t.Fatal(err)
	}
	pj := trace.New()
	if err := paje.Decode(&in, "synth.trace", 0, pj, paje.Options{}); err != nil {
		t.Fatal(err)
	}
	var fromPaje []row
	for _, s := range pj.States.All() {
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

// arrowColumn reads the cells of the few column types of SynthSchema.
type arrowColumn struct{ a interface{} }

func (c arrowColumn) str(i int) string  { return c.a.(*array.String).Value(i) }
func (c arrowColumn) i32(i int) int32   { return c.a.(*array.Int32).Value(i) }
func (c arrowColumn) i64(i int) int64   { return c.a.(*array.Int64).Value(i) }
func (c arrowColumn) f64(i int) float64 { return c.a.(*array.Float64).Value(i) }

func TestWriteSynthRefusesOtherFormats(t *testing.T) {
	c := synth.Config{Sites: 1, Clusters: 1, Machines: 1, Cores: 2, Events: 10, Seed: 1}
	if _, err := WriteSynth(filepath.Join(t.TempDir(), "x.trace"), "otf2", c); err == nil {
		t.Error("format otf2 accepted")
	}
}

func BenchmarkWriteSynthParquet(b *testing.B) {
	c := synth.Config{Sites: 2, Clusters: 4, Machines: 8, Cores: 8, Events: 1_000_000, Seed: 1}
	path := filepath.Join(b.TempDir(), "bench.parquet")
	var st synth.Stats
	for b.Loop() {
		var err error
		if st, err = WriteSynthParquet(path, c); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(st.States)*float64(b.N)/b.Elapsed().Seconds(), "states/s")
}
