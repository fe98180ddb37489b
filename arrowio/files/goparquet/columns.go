package goparquet

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// columnsWriter writes the columns of a flat table (no nested types) on
// all cores: pqarrow's FileWriter encodes and compresses one column after
// another, most of a large table's write. Each row group is a buffered
// one, whose column chunks are independent until it is closed; the file's
// bytes are those pqarrow writes (same schema, metadata, levels and
// pages), which TestColumnsWriterBytes checks.
type columnsWriter struct {
	schema   *arrow.Schema
	w        *file.Writer
	arrProps pqarrow.ArrowWriterProperties
}

// flat tells whether every column of s is a leaf (a primitive or a
// dictionary of primitives): the columns pqarrow writes without
// repetition levels, as one Parquet column each.
func flat(s *arrow.Schema) bool {
	for _, f := range s.Fields() {
		t := f.Type
		if d, ok := t.(*arrow.DictionaryType); ok {
			t = d.ValueType
		}
		if _, nested := t.(arrow.NestedType); nested || t.ID() == arrow.EXTENSION {
			return false
		}
	}
	return true
}

// newColumnsWriter starts the Parquet file of the flat schema s on sink,
// with the metadata pqarrow.NewFileWriter gives it with the option
// WithStoreSchema: the schema's key-values, then the Arrow schema (a flat
// schema is stored as it is: pqarrow only renames list elements).
func newColumnsWriter(s *arrow.Schema, sink io.Writer, props *parquet.WriterProperties, arrProps pqarrow.ArrowWriterProperties) (*columnsWriter, error) {
	pqschema, err := pqarrow.ToParquet(s, props, arrProps)
	if err != nil {
		return nil, err
	}
	meta := make(metadata.KeyValueMetadata, 0)
	md := s.Metadata()
	for i := range md.Len() {
		meta.Append(md.Keys()[i], md.Values()[i])
	}
	meta.Append("ARROW:schema", base64.StdEncoding.EncodeToString(flight.SerializeSchema(s, props.Allocator())))
	w, err := file.NewParquetWriterWithError(sink, pqschema.Root(), file.WithWriterProps(props), file.WithWriteMetadata(meta))
	if err != nil {
		return nil, err
	}
	return &columnsWriter{schema: s, w: w, arrProps: arrProps}, nil
}

// Write appends rec as row groups of at most the properties' maximum
// length (one, for a record that fits), as pqarrow's FileWriter.Write.
func (cw *columnsWriter) Write(rec arrow.RecordBatch) error {
	if !rec.Schema().Equal(cw.schema) {
		return fmt.Errorf("record schema does not match writer's. \nrecord: %s\nwriter: %s", rec.Schema(), cw.schema)
	}
	rows := rec.NumRows()
	if rows == 0 {
		return cw.writeEmptyRowGroup()
	}
	maxRows := cw.w.Properties().MaxRowGroupLength()
	for offset := int64(0); offset < rows; offset += maxRows {
		if err := cw.writeRowGroup(rec, offset, min(maxRows, rows-offset)); err != nil {
			return err
		}
	}
	return nil
}

// writeRowGroup writes rows [offset, offset+size) of rec as one row
// group, its columns on up to GOMAXPROCS goroutines.
func (cw *columnsWriter) writeRowGroup(rec arrow.RecordBatch, offset, size int64) error {
	rg, err := cw.w.AppendBufferedRowGroupChecked()
	if err != nil {
		return err
	}
	cols := int(rec.NumCols())
	errs := make([]error, cols)
	next := make(chan int, cols)
	for i := range cols {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(cols, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			// A context per goroutine: pqarrow's holds scratch buffers.
			ctx := pqarrow.NewArrowWriteContext(context.Background(), &cw.arrProps)
			for i := range next {
				errs[i] = writeColumnRecovered(ctx, rg, i, cw.schema.Field(i), rec.Column(i), offset, size)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			rg.Close()
			return err
		}
	}
	return rg.Close()
}

// writeEmptyRowGroup writes the row group of a record of no rows as
// pqarrow does: a serial one whose columns are started and closed (a
// buffered one's empty column chunks differ).
func (cw *columnsWriter) writeEmptyRowGroup() error {
	rg, err := cw.w.AppendRowGroupChecked()
	if err != nil {
		return err
	}
	for range cw.schema.NumFields() {
		if _, err := rg.NextColumn(); err != nil {
			rg.Close()
			return err
		}
	}
	return rg.Close()
}

// writeColumnAt writes a column of a row group: writeColumn, replaced by
// tests to fail on purpose.
var writeColumnAt = writeColumn

// writeColumnRecovered is writeColumnAt on a goroutine of its own: a
// panic there would end the process (a Python kernel with it) rather than
// reach the caller, so it becomes the column's error.
func writeColumnRecovered(ctx context.Context, rg file.BufferedRowGroupWriter, i int, field arrow.Field, arr arrow.Array, offset, size int64) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("parquet: internal error writing column %q: %v", field.Name, p)
		}
	}()
	return writeColumnAt(ctx, rg, i, field.Nullable, arr, offset, size)
}

// writeColumn writes rows [offset, offset+size) of the leaf column arr
// to column i of the row group, with the definition levels pqarrow's
// path builder gives a flat column: none for a required field, else 1
// for a value and 0 for a null (the values then counted nullable only if
// some are null).
func writeColumn(ctx context.Context, rg file.BufferedRowGroupWriter, i int, nullable bool, arr arrow.Array, offset, size int64) error {
	cw, err := rg.Column(i)
	if err != nil {
		return err
	}
	values := array.NewSlice(arr, offset, offset+size)
	defer values.Release()
	if !nullable {
		return pqarrow.WriteArrowToColumn(ctx, cw, values, nil, nil, false)
	}
	defLevels := make([]int16, values.Len())
	nulls := values.NullN()
	if values.DataType().ID() == arrow.NULL {
		// Every row is null, but a null array has no validity bitmap
		// (IsValid says every row is valid) and a slice of one counts no
		// nulls: its levels stay 0.
		nulls = values.Len()
	}
	for r := range defLevels {
		if nulls == 0 || nulls < values.Len() && values.IsValid(r) {
			defLevels[r] = 1
		}
	}
	return pqarrow.WriteArrowToColumn(ctx, cw, values, defLevels, nil, nulls > 0)
}

// Close writes the file's footer.
func (cw *columnsWriter) Close() error { return cw.w.Close() }
