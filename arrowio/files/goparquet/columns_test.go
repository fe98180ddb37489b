package goparquet

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/macroscope-hpc/macroscope/arrowio/files"
)

// nulls says which rows of a column are null.
type nulls int

const (
	noNulls   nulls = iota // a column declared required
	noneNull               // nullable, every row valid
	someNull               // nullable, a third of the rows null
	everyNull              // nullable, every row null
)

func (n nulls) valid(rng *rand.Rand) bool {
	switch n {
	case someNull:
		return rng.IntN(3) != 0
	case everyNull:
		return false
	}
	return true
}

// randomTable is a table of rows rows of every leaf type the tables of
// package arrowio hold (int32, int64, float64, bool, string, a string
// dictionary), each with every kind of nulls, and schema metadata.
func randomTable(rng *rand.Rand, rows int) arrow.RecordBatch {
	mem := memory.DefaultAllocator
	var fields []arrow.Field
	var cols []arrow.Array
	labels := []string{"Compute", "MPI_Recv", "MPI_Send", "MPI_Wait"}
	for _, n := range []nulls{noNulls, noneNull, someNull, everyNull} {
		build := func(name string, b array.Builder, appendValue func()) {
			for range rows {
				if n.valid(rng) {
					appendValue()
				} else {
					b.AppendNull()
				}
			}
			fields = append(fields, arrow.Field{Name: fmt.Sprintf("%s-%d", name, n), Type: b.Type(), Nullable: n != noNulls})
			cols = append(cols, b.NewArray())
			b.Release()
		}
		i32 := array.NewInt32Builder(mem)
		build("i32", i32, func() { i32.Append(rng.Int32N(50)) })
		i64 := array.NewInt64Builder(mem)
		build("i64", i64, func() { i64.Append(rng.Int64()) })
		f64 := array.NewFloat64Builder(mem)
		build("f64", f64, func() { f64.Append(rng.Float64()) })
		b := array.NewBooleanBuilder(mem)
		build("bool", b, func() { b.Append(rng.IntN(2) == 0) })
		s := array.NewStringBuilder(mem)
		build("string", s, func() { s.Append(fmt.Sprintf("site-%d/core-%d", rng.IntN(4), rng.IntN(100))) })
		d := array.NewDictionaryBuilder(mem, &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}).(*array.BinaryDictionaryBuilder)
		build("dict", d, func() { d.AppendString(labels[rng.IntN(len(labels))]) })
	}
	md := arrow.NewMetadata([]string{"macroscope.p", "macroscope.origin"}, []string{"0.5", "12"})
	rec := array.NewRecordBatch(arrow.NewSchema(fields, &md), cols, int64(rows))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// TestColumnsWriterBytes checks that the columns written in parallel make
// the file pqarrow's FileWriter writes, byte for byte: tables of 0 to
// 1,000 rows of every leaf type and kind of nulls, written as one record
// or several, in row groups of the default length or of 7 rows (a record
// split across several), with and without dictionaries. (A column whose
// dictionary outgrows its page and falls back to plain pages lists its
// encodings' page counts in the order of a Go map, in pqarrow's files as
// in these: two writes of a large table differ there, their rows do not.
// These tables stay below that size.)
func TestColumnsWriterBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, rows := range [][]int{{0}, {1}, {5, 0, 9}, {1000}, {300, 500}} {
		for _, groupLen := range []int64{parquet.DefaultMaxRowGroupLen, 7} {
			for _, dict := range []bool{true, false} {
				var recs []arrow.RecordBatch
				for _, n := range rows {
					recs = append(recs, randomTable(rng, n))
				}
				props := func() *parquet.WriterProperties {
					return parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd),
						parquet.WithMaxRowGroupLength(groupLen), parquet.WithDictionaryDefault(dict))
				}
				arrProps := pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema())
				var want, got bytes.Buffer
				serial, err := pqarrow.NewFileWriter(recs[0].Schema(), &want, props(), arrProps)
				if err != nil {
					t.Fatal(err)
				}
				parallel, err := newColumnsWriter(recs[0].Schema(), &got, props(), arrProps)
				if err != nil {
					t.Fatal(err)
				}
				for _, rec := range recs {
					if err := serial.Write(rec); err != nil {
						t.Fatal(err)
					}
					if err := parallel.Write(rec); err != nil {
						t.Fatal(err)
					}
					rec.Release()
				}
				if err := serial.Close(); err != nil {
					t.Fatal(err)
				}
				if err := parallel.Close(); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got.Bytes(), want.Bytes()) {
					t.Errorf("rows %v, row groups of %d, dictionaries %v: %d bytes written in parallel, %d by pqarrow, not the same",
						rows, groupLen, dict, got.Len(), want.Len())
				}
			}
		}
	}
}

// TestCreateFlatAndNested checks that Create writes a flat table in
// parallel and a nested one with pqarrow, and that both read back.
func TestCreateFlatAndNested(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	flatRec := randomTable(rng, 100)
	defer flatRec.Release()
	lb := array.NewListBuilder(memory.DefaultAllocator, arrow.PrimitiveTypes.Int32)
	lb.Append(true)
	lb.ValueBuilder().(*array.Int32Builder).AppendValues([]int32{1, 2}, nil)
	list := lb.NewArray()
	lb.Release()
	nestedRec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "l", Type: list.DataType(), Nullable: true}}, nil), []arrow.Array{list}, 1)
	list.Release()
	defer nestedRec.Release()
	for _, c := range []struct {
		rec  arrow.RecordBatch
		flat bool
	}{{flatRec, true}, {nestedRec, false}} {
		if got := flat(c.rec.Schema()); got != c.flat {
			t.Errorf("flat(%s) = %v", c.rec.Schema(), got)
		}
		path := filepath.Join(dir, fmt.Sprintf("flat-%v.parquet", c.flat))
		out, err := Create(path, c.rec.Schema(), files.ParquetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, parallel := out.(*stream).w.(*columnsWriter); parallel != c.flat {
			t.Errorf("flat %v: written in parallel: %v", c.flat, parallel)
		}
		if err := out.Write(c.rec); err != nil {
			t.Fatal(err)
		}
		if err := out.Close(); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		tbl, err := pqarrow.ReadTable(t.Context(), f, nil, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if tbl.NumRows() != c.rec.NumRows() || tbl.NumCols() != c.rec.NumCols() {
			t.Errorf("flat %v: read back %d rows x %d columns, wrote %d x %d", c.flat, tbl.NumRows(), tbl.NumCols(), c.rec.NumRows(), c.rec.NumCols())
		}
		tbl.Release()
	}
}

// TestColumnsWriterNullType checks a column of Arrow's null type, which
// has no validity bitmap (its array says every row is valid): written
// in parallel, whole or sliced into row groups of 7 rows, it makes
// pqarrow's bytes, which read back as that many nulls.
func TestColumnsWriterNullType(t *testing.T) {
	nb := array.NewNullBuilder(memory.DefaultAllocator)
	nb.AppendEmptyValues(20)
	col := nb.NewArray()
	nb.Release()
	defer col.Release()
	i32 := array.NewInt32Builder(memory.DefaultAllocator)
	i32.AppendValues(make([]int32, 20), nil)
	other := i32.NewArray()
	i32.Release()
	defer other.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "none", Type: arrow.Null, Nullable: true}, {Name: "zero", Type: arrow.PrimitiveTypes.Int32}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{col, other}, 20)
	defer rec.Release()
	for _, groupLen := range []int64{parquet.DefaultMaxRowGroupLen, 7} {
		props := func() *parquet.WriterProperties {
			return parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(groupLen))
		}
		arrProps := pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema())
		var want, got bytes.Buffer
		serial, err := pqarrow.NewFileWriter(schema, &want, props(), arrProps)
		if err != nil {
			t.Fatal(err)
		}
		parallel, err := newColumnsWriter(schema, &got, props(), arrProps)
		if err != nil {
			t.Fatal(err)
		}
		if err := serial.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := parallel.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := serial.Close(); err != nil {
			t.Fatal(err)
		}
		if err := parallel.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("row groups of %d: %d bytes written in parallel, %d by pqarrow, not the same", groupLen, got.Len(), want.Len())
		}
		tbl, err := pqarrow.ReadTable(t.Context(), bytes.NewReader(got.Bytes()), nil, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
		if err != nil {
			t.Fatalf("row groups of %d: reading back: %v", groupLen, err)
		}
		if n := tbl.Column(0).NullN(); tbl.NumRows() != 20 || n != 20 {
			t.Errorf("row groups of %d: read back %d rows, %d null, want 20 and 20", groupLen, tbl.NumRows(), n)
		}
		tbl.Release()
	}
}

// A panic while a column is written on its goroutine comes back from
// Write as an error naming the column, instead of ending the process.
func TestColumnsWriterPanicIsAnError(t *testing.T) {
	i32 := array.NewInt32Builder(memory.DefaultAllocator)
	i32.AppendValues([]int32{1, 2, 3}, nil)
	col := i32.NewArray()
	i32.Release()
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int32}, {Name: "b", Type: arrow.PrimitiveTypes.Int32}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{col, col}, 3)
	defer rec.Release()
	defer func(f func(context.Context, file.BufferedRowGroupWriter, int, bool, arrow.Array, int64, int64) error) {
		writeColumnAt = f
	}(writeColumnAt)
	writeColumnAt = func(ctx context.Context, rg file.BufferedRowGroupWriter, i int, nullable bool, arr arrow.Array, offset, size int64) error {
		if i == 1 {
			panic("out of range")
		}
		return writeColumn(ctx, rg, i, nullable, arr, offset, size)
	}
	var out bytes.Buffer
	w, err := newColumnsWriter(schema, &out, parquet.NewWriterProperties(), pqarrow.NewArrowWriterProperties())
	if err != nil {
		t.Fatal(err)
	}
	err = w.Write(rec)
	if want := `parquet: internal error writing column "b": out of range`; err == nil || err.Error() != want {
		t.Errorf("Write: %v, want %q", err, want)
	}
}
