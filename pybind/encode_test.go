package pybind

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/hier"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
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

// Bytes that decode but whose parts do not fit each other (as a
// truncated or forged model gives) are not a model: the decoding says so
// rather than a later computation indexing out of range.
func TestDecodeModelUnfit(t *testing.T) {
	tr := &Trace{t: tracetest.Nested(4, 10), format: "table"}
	w, err := tr.StartMicro(`{"slices":10}`)
	if err != nil {
		t.Fatal(err)
	}
	mm, err := w.MicroModel()
	if err != nil {
		t.Fatal(err)
	}
	for name, spoil := range map[string]func(m *micro.Model){
		"a value short":        func(m *micro.Model) { m.Values = m.Values[:len(m.Values)-1] },
		"no tree":              func(m *micro.Model) { m.Tree = nil },
		"a parent after":       func(m *micro.Model) { m.Tree.Parent[1] = int32(m.Tree.Len() - 1) },
		"leaves out of order":  func(m *micro.Model) { m.Tree.Leaves[0], m.Tree.Leaves[1] = m.Tree.Leaves[1], m.Tree.Leaves[0] },
		"a leaf's range":       func(m *micro.Model) { m.Tree.LeafHi[0] += 5 },
		"containers short":     func(m *micro.Model) { m.Container = m.Container[1:] },
		"slices":               func(m *micro.Model) { m.Slices = 0 },
		"sparse offsets":       func(m *micro.Model) { *m = *m.ToSparse(); m.Cells.Start[3] = 1 << 40 },
		"sparse and dense too": func(m *micro.Model) { v := m.Values; *m = *m.ToSparse(); m.Values = v },
	} {
		dense := *mm.m.ToDense() // a copy: ToDense of a dense model is the model
		m := &dense
		m.Tree = cloneTree(m.Tree)
		spoil(m)
		data, err := encodeModel(m, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := DecodeMicroModel(data); err == nil || !strings.Contains(err.Error(), "not an encoded model") {
			t.Errorf("%s: %v, want not an encoded model", name, err)
		}
	}
}

func cloneTree(t *hier.Tree) *hier.Tree {
	c := *t
	c.Parent, c.Leaves, c.LeafHi = slices.Clone(t.Parent), slices.Clone(t.Leaves), slices.Clone(t.LeafHi)
	return &c
}

// What a model left out of the profiler's spans survives its encoding:
// a series' reference decoded on a worker says the same as the model.
func TestEncodeModelLeftOut(t *testing.T) {
	tr := trace.New("spans")
	tr.DefineType(trace.Type{Name: "Thread", Kind: trace.KindContainer, Parent: trace.None})
	tr.DefineType(trace.Type{Name: "S", Kind: trace.KindState, Parent: 0})
	tr.DefineValue(trace.Value{Type: 1, Name: "ProfilerStep#1", Role: trace.RoleStep, Step: 1})
	tr.DefineValue(trace.Value{Type: 1, Name: "aten::mm"})
	tr.CreateContainer(trace.Container{Name: "main", Type: 0, Parent: 0})
	tr.States.Append(trace.State{Container: 1, Type: 1, Value: 1, Start: 2, End: 4, Depth: 1})
	tr.States.Append(trace.State{Container: 1, Type: 1, Value: 0, Start: 0, End: 10})
	tr.Finish(0, 10)
	w, err := (&Trace{t: tr, format: "table"}).StartMicro(`{"slices":2}`)
	if err != nil {
		t.Fatal(err)
	}
	mm, err := w.MicroModel()
	if err != nil {
		t.Fatal(err)
	}
	if len(mm.m.LeftOut) != 1 || mm.m.LeftOut[0].Total() != 8e-9 {
		t.Fatalf("left out %+v", mm.m.LeftOut)
	}
	data, err := mm.Encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeMicroModel(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.m.LeftOut, mm.m.LeftOut) || back.m.LeftOutNote("x") != mm.m.LeftOutNote("x") {
		t.Errorf("decoded left out %+v, want %+v", back.m.LeftOut, mm.m.LeftOut)
	}
}
