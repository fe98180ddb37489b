// Package pybind is the facade the Python package macroscope is generated
// from (by gopy): a few coarse functions over opaque handles. Bulk data
// never crosses as Go slices; tables cross through the Arrow C stream
// interface into buffers allocated outside the Go heap, so pyarrow and
// pandas read them in place.
//
// Every exported function recovers panics and encodes errors (see guard);
// objects are immutable once built, so any of them may be used from
// several Python threads (gopy releases the GIL during calls).
package pybind

import (
	"encoding/json"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/macroscope-hpc/macroscope/arrowio"
	cmemory "github.com/macroscope-hpc/macroscope/arrowio/cmem"
)

// cmem allocates exported tables outside the Go heap (required by the C
// data interface; Go memory must not be retained by C), large ones in
// huge pages.
var cmem = cmemory.New()

// export moves a freshly built record batch into the consumer's stream.
func export(rec arrow.RecordBatch, addr uintptr) error {
	defer rec.Release()
	return arrowio.ExportStream(rec, addr)
}

func toJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}
