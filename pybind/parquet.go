package pybind

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/macroscope-hpc/macroscope/arrowio"
	"github.com/macroscope-hpc/macroscope/arrowio/files"
)

// The extension writes Parquet files with pyarrow, not with arrow-go's
// writer, whose compute kernels, Flight and gRPC would double the cold
// build of the extension (see package files). The Go code that writes a
// Parquet file (the command line's tables, a dataset, a synthetic trace)
// runs on a goroutine of a Command or a Work, which Python polls: each
// step of the file (create, write a batch, close, abort) is queued as a
// ParquetRequest and waits; the poll (Command.Wait, Work.Wait) returns at
// once, Python takes the request (NextParquetRequest), does it with
// pyarrow.parquet.ParquetWriter and answers (ParquetRequest.Done). A
// Parquet file is thus written only from Go code that Python polls: the
// facade's functions that write one start a Work.
func init() { files.UseParquet(parquetByPython) }

// parquetQueue holds the requests Python has not taken yet.
var parquetQueue struct {
	mu       sync.Mutex
	requests []*ParquetRequest
	// wake has a value while requests wait, for the polls to return.
	wake chan struct{}
	// lastID numbers the files.
	lastID atomic.Int64
}

func init() { parquetQueue.wake = make(chan struct{}, 1) }

// ParquetRequest is a step of writing a Parquet file that Python does.
type ParquetRequest struct {
	op     string // "create", "write", "close", "abort"; "" for no request
	file   int64
	path   string
	schema *arrow.Schema
	rec    arrow.RecordBatch // to write, in memory outside the Go heap
	noDict []string
	done   chan error
}

// NextParquetRequest takes the oldest request waiting, or returns one
// whose Op is "" when none is.
func NextParquetRequest() *ParquetRequest {
	q := &parquetQueue
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.requests) == 0 {
		return &ParquetRequest{}
	}
	r := q.requests[0]
	q.requests = q.requests[1:]
	if len(q.requests) > 0 {
		wakePolls()
	}
	return r
}

// Op is what to do: "create" the file Path for the schema Export gives
// (dictionary-encoding every column but NoDictionary's), "write" the batch
// Export gives, "close" it, or "abort" (close and remove it); "" when
// there was no request.
func (r *ParquetRequest) Op() string { return r.op }

// File identifies the file among those being written.
func (r *ParquetRequest) File() int64 { return r.file }

// Path is the file's path.
func (r *ParquetRequest) Path() string { return r.path }

// NoDictionary is the JSON list of the columns not to dictionary-encode.
func (r *ParquetRequest) NoDictionary() string {
	b, _ := json.Marshal(append([]string{}, r.noDict...))
	return string(b)
}

// Export moves the request's data into the ArrowArrayStream at addr: the
// batch to write, or, for "create", the schema (a stream of no batches).
func (r *ParquetRequest) Export(addr uintptr) (err error) {
	defer guard(&err)
	if r.rec != nil {
		return arrowio.ExportStream(r.rec, addr)
	}
	if r.schema == nil {
		return errors.New("this request has no data")
	}
	return arrowio.ExportBatches(r.schema, nil, addr)
}

// Done answers the request: failure is pyarrow's error, "" for success.
// The Go code that waits goes on.
func (r *ParquetRequest) Done(failure string) {
	if r.done == nil {
		return
	}
	if failure == "" {
		r.done <- nil
	} else {
		r.done <- errors.New(failure)
	}
}

// wakePolls makes the next poll return at once.
func wakePolls() {
	select {
	case parquetQueue.wake <- struct{}{}:
	default:
	}
}

// ask queues r and waits for Python's answer.
func ask(r *ParquetRequest) error {
	r.done = make(chan error, 1)
	q := &parquetQueue
	q.mu.Lock()
	q.requests = append(q.requests, r)
	q.mu.Unlock()
	wakePolls()
	return <-r.done
}

// pollUntil waits up to milliseconds for done to close and reports whether
// it has; it returns early, with false, when a Parquet request waits for
// Python.
func pollUntil(done <-chan struct{}, milliseconds int) bool {
	select {
	case <-done:
		return true
	default:
	}
	timer := time.NewTimer(time.Duration(max(milliseconds, 0)) * time.Millisecond)
	defer timer.Stop()
	select {
	case <-done:
		return true
	case <-timer.C:
		return false
	case <-parquetQueue.wake:
		return false
	}
}

// parquetByPython is the extension's files.ParquetWriter.
func parquetByPython(path string, s *arrow.Schema, o files.ParquetOptions) (files.Stream, error) {
	f := &pythonParquet{id: parquetQueue.lastID.Add(1), path: path}
	if err := ask(&ParquetRequest{op: "create", file: f.id, path: path, schema: s, noDict: o.NoDictionary}); err != nil {
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	return f, nil
}

// pythonParquet is a Parquet file Python writes.
type pythonParquet struct {
	id   int64
	path string
}

func (f *pythonParquet) Write(rec arrow.RecordBatch) error {
	// The batch crosses to pyarrow through the C data interface, which
	// wants buffers outside the Go heap.
	c, err := copyBatch(rec)
	if err != nil {
		return fmt.Errorf("writing %s: %w", f.path, err)
	}
	defer c.Release()
	if err := ask(&ParquetRequest{op: "write", file: f.id, path: f.path, rec: c}); err != nil {
		return fmt.Errorf("writing %s: %w", f.path, err)
	}
	return nil
}

func (f *pythonParquet) Close() error {
	if err := ask(&ParquetRequest{op: "close", file: f.id, path: f.path}); err != nil {
		return fmt.Errorf("writing %s: %w", f.path, err)
	}
	return nil
}

func (f *pythonParquet) Abort() {
	ask(&ParquetRequest{op: "abort", file: f.id, path: f.path})
}

// copyBatch copies rec into memory outside the Go heap (cmem).
func copyBatch(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, rec.NumCols())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, col := range rec.Columns() {
		c, err := copyArray(col)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", rec.ColumnName(i), err)
		}
		cols[i] = c
	}
	return array.NewRecordBatch(rec.Schema(), cols, rec.NumRows()), nil
}

// copyArray copies a; a dictionary array's dictionary too (Concatenate
// shares it).
func copyArray(a arrow.Array) (arrow.Array, error) {
	d, ok := a.(*array.Dictionary)
	if !ok {
		return array.Concatenate([]arrow.Array{a}, cmem)
	}
	indices, err := array.Concatenate([]arrow.Array{d.Indices()}, cmem)
	if err != nil {
		return nil, err
	}
	defer indices.Release()
	dict, err := array.Concatenate([]arrow.Array{d.Dictionary()}, cmem)
	if err != nil {
		return nil, err
	}
	defer dict.Release()
	return array.NewDictionaryArray(d.DataType(), indices, dict), nil
}
