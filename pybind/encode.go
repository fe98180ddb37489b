package pybind

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/hier"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/sparse"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
)

// A model is encoded (gob) as a header, the model without its cells,
// then its cells in chunks of encodeChunk numbers: one gob value of a
// million resources' cells cannot be stopped, a chunk is where Ctrl-C
// stops the encoding.
const encodeChunk = 1 << 16

// modelHeader is the model without its cells, and their lengths (-1:
// nil) so that the decoding knows how many chunks follow.
type modelHeader struct {
	Model   *micro.Model
	Values  int
	Cells   int // len(Cells.Start)
	Entries int // len(Cells.State), len(Cells.Value)
}

// Encode returns the model encoded, to ship it to other processes (a
// series' reference on a cluster).
func (m *MicroModel) Encode() (data []byte, err error) {
	defer guard(&err)
	return encodeModel(m.m, nil)
}

// StartEncode starts Encode as a Work, which Ctrl-C stops between chunks
// of cells; Work.Data gives the bytes.
func (m *MicroModel) StartEncode() (w *Work, err error) {
	defer guard(&err)
	var data []byte
	w = startWork(func(ctl *aggregate.Control) error {
		var err error
		data, err = encodeModel(m.m, ctl.Cancel)
		return err
	})
	w.result = func() any { return data }
	return w, nil
}

// encodeModel encodes m, looking at cancel before each chunk; stopped, it
// returns trace.ErrComputationCanceled and nothing.
func encodeModel(m *micro.Model, cancel <-chan struct{}) ([]byte, error) {
	h := modelHeader{Values: -1, Cells: -1, Entries: -1}
	bare := *m
	bare.Values, bare.Cells = nil, nil
	h.Model = &bare
	if m.Values != nil {
		h.Values = len(m.Values)
	}
	if m.Cells != nil {
		h.Cells, h.Entries = len(m.Cells.Start), len(m.Cells.Value)
	}
	var buf bytes.Buffer
	enc := gob.NewEncoder(&buf)
	if err := enc.Encode(&h); err != nil {
		return nil, err
	}
	if m.Values != nil {
		if err := encodeChunks(enc, m.Values, cancel); err != nil {
			return nil, err
		}
	}
	if c := m.Cells; c != nil {
		if err := encodeChunks(enc, c.Start, cancel); err != nil {
			return nil, err
		}
		if err := encodeChunks(enc, c.State, cancel); err != nil {
			return nil, err
		}
		if err := encodeChunks(enc, c.Value, cancel); err != nil {
			return nil, err
		}
	}
	if err := trace.Stopped(cancel); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func encodeChunks[T any](enc *gob.Encoder, xs []T, cancel <-chan struct{}) error {
	for lo := 0; lo < len(xs); lo += encodeChunk {
		if err := trace.Stopped(cancel); err != nil {
			return err
		}
		if err := enc.Encode(xs[lo:min(len(xs), lo+encodeChunk)]); err != nil {
			return err
		}
	}
	return nil
}

// DecodeMicroModel decodes what MicroModel.Encode encoded.
func DecodeMicroModel(data []byte) (m *MicroModel, err error) {
	defer guard(&err)
	mm, err := decodeModel(data)
	if err != nil {
		return nil, errs.Argument("model", "not an encoded model: %v", err)
	}
	return &MicroModel{m: mm, in: aggregate.Input{Tree: mm.Tree, Slices: mm.Slices, States: len(mm.States), Values: mm.Values, Cells: mm.Cells}}, nil
}

func decodeModel(data []byte) (*micro.Model, error) {
	dec := gob.NewDecoder(bytes.NewReader(data))
	var h modelHeader
	if err := dec.Decode(&h); err != nil {
		return nil, err
	}
	if h.Model == nil {
		return nil, errors.New("no model in the header")
	}
	m := h.Model
	var err error
	if h.Values >= 0 {
		if m.Values, err = decodeChunks[float64](dec, h.Values); err != nil {
			return nil, fmt.Errorf("values: %w", err)
		}
	}
	if h.Cells >= 0 {
		c := &sparse.Cells{}
		if c.Start, err = decodeChunks[int64](dec, h.Cells); err != nil {
			return nil, fmt.Errorf("cells: %w", err)
		}
		if c.State, err = decodeChunks[int32](dec, h.Entries); err != nil {
			return nil, fmt.Errorf("cells' states: %w", err)
		}
		if c.Value, err = decodeChunks[float64](dec, h.Entries); err != nil {
			return nil, fmt.Errorf("cells' values: %w", err)
		}
		m.Cells = c
	}
	if err := dec.Decode(new(int)); err != io.EOF {
		return nil, errors.New("bytes after the model")
	}
	if err := checkModel(m); err != nil {
		return nil, err
	}
	return m, nil
}

// checkModel checks that the parts of a decoded model fit each other: a
// tree numbered in preorder as hier.Builder numbers it, a node's container
// and state type, slices in range, and as many cells as leaves x slices x
// states, sparse ones well formed. Bytes that decode but do not fit would
// otherwise index out of range in the first computation that reads them.
func checkModel(m *micro.Model) error {
	t := m.Tree
	if t == nil || t.Len() == 0 || len(t.Parent) != t.Len() || t.Parent[0] != -1 {
		return errors.New("no tree, or a tree without its root")
	}
	b := hier.NewBuilder(t.Names[0])
	for i := 1; i < t.Len(); i++ {
		if p := t.Parent[i]; p < 0 || int(p) >= i {
			return fmt.Errorf("node %d: its parent %d does not come before it", i, p)
		}
		b.Add(int(t.Parent[i]), t.Names[i])
	}
	want, _ := b.Build()
	same := slices.Equal(t.Names, want.Names) && slices.Equal(t.Parent, want.Parent) && slices.Equal(t.Depth, want.Depth) &&
		slices.Equal(t.LeafLo, want.LeafLo) && slices.Equal(t.LeafHi, want.LeafHi) && slices.Equal(t.Leaves, want.Leaves) &&
		slices.Equal(t.End, want.End) && slices.EqualFunc(t.Children, want.Children, slices.Equal)
	if !same || len(t.Children) != t.Len() {
		return errors.New("the tree is not numbered in preorder, or its parts do not fit each other")
	}
	if len(m.Container) != t.Len() || (m.StateType != nil && len(m.StateType) != t.Len()) {
		return fmt.Errorf("%d containers and %d state types for %d nodes", len(m.Container), len(m.StateType), t.Len())
	}
	if m.Slices < 1 || m.Slices > micro.MaxSlices {
		return fmt.Errorf("%d slices", m.Slices)
	}
	cells := len(t.Leaves) * m.Slices
	if m.Cells != nil {
		if m.Values != nil {
			return errors.New("both dense and sparse cells")
		}
		if err := m.Cells.Check(cells, len(m.States)); err != nil {
			return err
		}
	} else if len(m.Values) != cells*len(m.States) {
		return fmt.Errorf("%d values for %d leaves x %d slices x %d states", len(m.Values), len(t.Leaves), m.Slices, len(m.States))
	}
	return nil
}

// decodeChunks decodes n numbers written in chunks. The slice grows with
// what the data holds, not with the n it announces.
func decodeChunks[T any](dec *gob.Decoder, n int) ([]T, error) {
	var out []T
	for len(out) < n {
		var chunk []T
		if err := dec.Decode(&chunk); err != nil {
			return nil, err
		}
		if len(chunk) == 0 || len(out)+len(chunk) > n {
			return nil, fmt.Errorf("a chunk of %d past the %d announced", len(chunk), n)
		}
		out = append(out, chunk...)
	}
	if out == nil && n == 0 {
		out = []T{}
	}
	return out, nil
}
