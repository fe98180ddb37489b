package pybind

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace/tracetest"
)

// An encoded model, dense or sparse and of several chunks of cells,
// decodes to the model itself; stopped, the encoding gives nothing, and
// the work's bytes are Encode's.
func TestEncodeModel(t *testing.T) {
	tr := &Trace{t: tracetest.Nested(64, 2000), format: "table"}
	w, err := tr.StartMicro(`{"slices":2000}`)
	if err != nil {
		t.Fatal(err)
	}
	mm, err := w.MicroModel()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []*micro.Model{mm.m.ToDense(), mm.m.ToSparse()} {
		name := "dense"
		if m.Cells != nil {
			name = "sparse"
			if m.Cells.NonZero() <= 2*encodeChunk {
				t.Fatalf("%d entries: not chunks enough", m.Cells.NonZero())
			}
		} else if len(m.Values) <= 2*encodeChunk {
			t.Fatalf("%d values: not chunks enough", len(m.Values))
		}
		t.Run(name, func(t *testing.T) {
			tracetest.Canceled(t, "encodeModel", func(cancel <-chan struct{}) (string, error) {
				b, err := encodeModel(m, cancel)
				return string(b), err
			}, func(got, want string) bool { return got == want })
			data, err := encodeModel(m, nil)
			if err != nil {
				t.Fatal(err)
			}
			back, err := DecodeMicroModel(data)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back.m, m) {
				t.Fatalf("the decoded model differs")
			}
			// Cut short, or with a byte more, it is not a model.
			for _, bad := range [][]byte{data[:len(data)/2], append(bytes.Clone(data), data[:20]...), []byte("model")} {
				if _, err := DecodeMicroModel(bad); err == nil || !strings.Contains(err.Error(), "not an encoded model") {
					t.Errorf("%d bytes: %v, want not an encoded model", len(bad), err)
				}
			}
		})
	}
	want, err := mm.Encode()
	if err != nil {
		t.Fatal(err)
	}
	ew, err := mm.StartEncode()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ew.Data(); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("the work's bytes (%d, %v) are not Encode's (%d)", len(got), err, len(want))
	}
}
