package files

import (
	"errors"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
)

// A Stream writes a table to a file one record batch at a time, each
// batch a row group: tables larger than memory are written in the memory
// of one batch.
type Stream interface {
	// Write appends rec, whose schema must be the stream's.
	Write(rec arrow.RecordBatch) error
	// Close writes the file's footer and closes it.
	Close() error
	// Abort closes the file and removes it: nothing half written is left.
	Abort()
}

// ParquetOptions are what a table's writer may ask of its Parquet file
// beyond what every file gets: Zstandard compression, dictionary encoding,
// and the Arrow schema stored in the file's metadata (so that dictionary
// columns read back as dictionaries).
type ParquetOptions struct {
	// NoDictionary names the columns not to dictionary-encode: columns of
	// unique numbers, where a dictionary only costs time.
	NoDictionary []string
}

// ParquetWriter creates the Parquet file path for a table of schema s.
type ParquetWriter func(path string, s *arrow.Schema, o ParquetOptions) (Stream, error)

var (
	parquetMu     sync.Mutex
	parquetWriter ParquetWriter
)

// ErrNoParquet is the error of writing Parquet in a program that installed
// no Parquet writer.
var ErrNoParquet = errors.New("this program writes no Parquet: it installed no Parquet writer (files.UseParquet)")

// UseParquet installs the Parquet writer of the program: importing
// package goparquet installs arrow-go's; the Python extension installs
// one that hands the batches to pyarrow.
func UseParquet(w ParquetWriter) {
	parquetMu.Lock()
	defer parquetMu.Unlock()
	parquetWriter = w
}

// CreateParquet creates the Parquet file path for a table of schema s with
// the writer UseParquet installed.
func CreateParquet(path string, s *arrow.Schema, o ParquetOptions) (Stream, error) {
	parquetMu.Lock()
	w := parquetWriter
	parquetMu.Unlock()
	if w == nil {
		return nil, ErrNoParquet
	}
	return w(path, s, o)
}
