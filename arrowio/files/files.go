// Package files writes Arrow record batches to Parquet, Feather (Arrow IPC
// file) or CSV files.
//
// Feather and CSV are written here. Parquet is written by the writer a
// program installs with UseParquet: arrow-go's (package goparquet, which
// the Go command line imports) or, in the Python extension, pyarrow's,
// which the facade hands the batches to. arrow-go's Parquet writer brings
// its compute kernels, Flight and gRPC, about half of the extension's cold
// build, for a job pyarrow, a dependency of the Python package, does.
package files

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/csv"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// Write writes rec to path in the format its extension names: .parquet,
// .feather or .arrow, or .csv.
func Write(rec arrow.RecordBatch, path string) error {
	var write func(arrow.RecordBatch, io.Writer) error
	switch strings.ToLower(filepath.Ext(path)) {
	case ".parquet":
		return writeParquet(rec, path)
	case ".feather", ".arrow":
		write = writeFeather
	case ".csv":
		write = writeCSV
	default:
		return errs.Argument("path", "%q: unknown table format (use .parquet, .feather, .arrow or .csv)", path)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	// Hide Close from the writers, so that the file is closed once, here,
	// and its error reported.
	if err := write(rec, struct{ io.Writer }{f}); err != nil {
		f.Close()
		os.Remove(path)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}

func writeParquet(rec arrow.RecordBatch, path string) error {
	out, err := CreateParquet(path, rec.Schema(), ParquetOptions{})
	if err != nil {
		return err
	}
	if err := out.Write(rec); err != nil {
		out.Abort()
		return err
	}
	return out.Close()
}

func writeFeather(rec arrow.RecordBatch, f io.Writer) error {
	w, err := ipc.NewFileWriter(f, ipc.WithSchema(rec.Schema()))
	if err != nil {
		return err
	}
	if err := w.Write(rec); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// writeCSV writes dictionary columns as their labels: CSV has no
// dictionaries.
func writeCSV(rec arrow.RecordBatch, f io.Writer) error {
	plain, err := decodeDictionaries(rec)
	if err != nil {
		return err
	}
	defer plain.Release()
	w := csv.NewWriter(f, plain.Schema(), csv.WithHeader(true))
	if err := w.Write(plain); err != nil {
		return err
	}
	w.Flush()
	return w.Error()
}

func decodeDictionaries(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	// Decoded columns stay in Go memory: they only feed the CSV writer.
	fields := append([]arrow.Field(nil), rec.Schema().Fields()...)
	cols := make([]arrow.Array, rec.NumCols())
	for i, col := range rec.Columns() {
		d, ok := col.(*array.Dictionary)
		if !ok {
			col.Retain()
			cols[i] = col
			continue
		}
		labels, ok := d.Dictionary().(*array.String)
		if !ok {
			return nil, fmt.Errorf("column %s: only string dictionaries can be written as CSV", fields[i].Name)
		}
		b := array.NewStringBuilder(memory.DefaultAllocator)
		for r := 0; r < d.Len(); r++ {
			if d.IsNull(r) {
				b.AppendNull()
			} else {
				b.Append(labels.Value(d.GetValueIndex(r)))
			}
		}
		cols[i] = b.NewArray()
		b.Release()
		fields[i].Type = arrow.BinaryTypes.String
	}
	md := rec.Schema().Metadata()
	out := array.NewRecordBatch(arrow.NewSchema(fields, &md), cols, rec.NumRows())
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}
