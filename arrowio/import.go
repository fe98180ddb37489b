package arrowio

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/cdata"
)

// ImportStream takes over the ArrowArrayStream at address addr, which a
// producer (pyarrow) filled: the stream is moved out of addr, which the
// caller may then free, and the returned reader must be released, which
// releases the stream. Record batches are read in place, without a copy:
// anything kept past a batch must be copied out of it.
func ImportStream(addr uintptr) (array.RecordReader, error) {
	if addr == 0 {
		return nil, errors.New("arrowio: null ArrowArrayStream address")
	}
	// addr points to C memory the producer owns, never to the Go heap (see
	// ExportStream).
	stream := *(*unsafe.Pointer)(unsafe.Pointer(&addr))
	rdr, err := cdata.ImportCRecordReader((*cdata.CArrowArrayStream)(stream), nil)
	if err != nil {
		return nil, fmt.Errorf("arrowio: importing the stream: %w", err)
	}
	rr, ok := rdr.(array.RecordReader)
	if !ok { // cdata's reader is one; this guards against a change in arrow-go
		if r, ok := rdr.(interface{ Release() }); ok {
			r.Release()
		}
		return nil, fmt.Errorf("arrowio: imported stream %T is not a RecordReader", rdr)
	}
	return rr, nil
}
