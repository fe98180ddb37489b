package files

import (
	"fmt"
	"io"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// ParquetStream writes a table to a Parquet file one record batch at a
// time, each batch a row group: tables larger than memory are written in
// the memory of one batch.
type ParquetStream struct {
	path string
	f    *os.File
	w    *pqarrow.FileWriter
}

// CreateParquet creates the Parquet file path for a table of schema s,
// compressed like Write's; opts add to or override those properties (to
// turn dictionary encoding off for columns of unique numbers, say, where
// it only costs time).
func CreateParquet(path string, s *arrow.Schema, opts ...parquet.WriterProperty) (*ParquetStream, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	props := parquet.NewWriterProperties(append([]parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Zstd)}, opts...)...)
	// Hide Close from pqarrow, so that Close closes the file once.
	w, err := pqarrow.NewFileWriter(s, struct{ io.Writer }{f}, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	return &ParquetStream{path: path, f: f, w: w}, nil
}

// Write appends rec, whose schema must be the stream's, as a row group.
func (s *ParquetStream) Write(rec arrow.RecordBatch) error {
	if err := s.w.Write(rec); err != nil {
		return fmt.Errorf("writing %s: %w", s.path, err)
	}
	return nil
}

// Close writes the file's footer and closes it.
func (s *ParquetStream) Close() error {
	err := s.w.Close()
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", s.path, err)
	}
	return nil
}

// Abort closes the file and removes it: nothing half written is left.
func (s *ParquetStream) Abort() {
	s.w.Close()
	s.f.Close()
	os.Remove(s.path)
}
