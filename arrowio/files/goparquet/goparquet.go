// Package goparquet writes Parquet files with arrow-go's writer (pqarrow):
// importing it installs that writer as package files' (files.UseParquet).
// The Go command line imports it; the Python extension does not, and
// writes Parquet with pyarrow (see package files).
package goparquet

import (
	"fmt"
	"io"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/macroscope-hpc/macroscope/arrowio/files"
)

func init() { files.UseParquet(Create) }

// Create creates the Parquet file path for a table of schema s: Zstandard
// compression, dictionary encoding but for the columns o names, the Arrow
// schema stored. A flat table's columns are written on all cores.
func Create(path string, s *arrow.Schema, o files.ParquetOptions) (files.Stream, error) {
	opts := []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Zstd)}
	for _, col := range o.NoDictionary {
		opts = append(opts, parquet.WithDictionaryFor(col, false))
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	// Hide Close from pqarrow, so that Close closes the file once.
	sink := struct{ io.Writer }{f}
	props, arrProps := parquet.NewWriterProperties(opts...), pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema())
	var w recordWriter
	if flat(s) {
		w, err = newColumnsWriter(s, sink, props, arrProps)
	} else {
		w, err = pqarrow.NewFileWriter(s, sink, props, arrProps)
	}
	if err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	return &stream{path: path, f: f, w: w}, nil
}

// recordWriter is pqarrow's FileWriter or, for a flat table, the
// columnsWriter that writes its columns in parallel.
type recordWriter interface {
	Write(rec arrow.RecordBatch) error
	Close() error
}

type stream struct {
	path string
	f    *os.File
	w    recordWriter
}

func (s *stream) Write(rec arrow.RecordBatch) error {
	if err := s.w.Write(rec); err != nil {
		return fmt.Errorf("writing %s: %w", s.path, err)
	}
	return nil
}

func (s *stream) Close() error {
	err := s.w.Close()
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", s.path, err)
	}
	return nil
}

func (s *stream) Abort() {
	s.w.Close()
	s.f.Close()
	os.Remove(s.path)
}
