package speedscope

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The document, as the schema gives it. Frame fields other than the name
// and file (line, col) are left out: the model has no place for them.
type document struct {
	Schema   string `json:"$schema"`
	Exporter string `json:"exporter"`
	Shared   struct {
		Frames []frame `json:"frames"`
	} `json:"shared"`
	Profiles []profile `json:"profiles"`
}

type frame struct {
	Name string `json:"name"`
	File string `json:"file"`
}

type profile struct {
	Type       string    `json:"type"`
	Name       string    `json:"name"`
	Unit       string    `json:"unit"`
	StartValue float64   `json:"startValue"`
	EndValue   float64   `json:"endValue"`
	Events     []event   `json:"events"`
	Samples    [][]int64 `json:"samples"`
	Weights    []float64 `json:"weights"`
}

type event struct {
	Type  string  `json:"type"`
	At    float64 `json:"at"`
	Frame int64   `json:"frame"`
}

// units are the nanoseconds of each time unit the schema names.
var units = map[string]float64{"nanoseconds": 1, "microseconds": 1e3, "milliseconds": 1e6, "seconds": 1e9}

// heldFactor is how many times its size a document takes once decoded
// (the bytes, the frames' strings, the stacks as int64).
const heldFactor = 4

// readFile reads the speedscope file at path (plain or compressed, at
// most limit bytes once decompressed) into sink.
func readFile(path string, limit int64, count float64, sink trace.Sink, opt trace.ReadOptions) error {
	f, err := ingest.OpenFile(path)
	if err != nil {
		return err
	}
	defer f.Close()
	in, release, err := ingest.Decompress(bufio.NewReaderSize(f, 1<<16), path, limit)
	if err != nil {
		return err
	}
	defer release()
	data, held, err := readHeld(in, opt)
	defer opt.Held(-held)
	if err != nil {
		return &errs.FormatError{File: path, Err: err}
	}
	return read(path, data, count, sink, opt)
}

// readHeld reads in whole, telling opt.Hold of the memory the document
// will take (heldFactor times its size) before its buffer grows: a
// decompression bomb stops at the read's budget, not at the memory's
// end. It returns the bytes told, for the caller to give back.
func readHeld(in io.Reader, opt trace.ReadOptions) ([]byte, int64, error) {
	var buf []byte
	var held int64
	for {
		if len(buf) == cap(buf) {
			grown := max(2*cap(buf), 1<<20)
			if err := opt.Held(int64(grown-cap(buf)) * heldFactor); err != nil {
				return nil, held, err
			}
			held += int64(grown-cap(buf)) * heldFactor
			buf = append(make([]byte, 0, grown), buf...)
		}
		n, err := in.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, held, nil
		}
		if err != nil {
			return nil, held, err
		}
	}
}

// read decodes data, a whole speedscope document (held by the caller),
// into sink; count is
// the nanoseconds of a count of unit "none" (0: such profiles are refused).
func read(path string, data []byte, count float64, sink trace.Sink, opt trace.ReadOptions) error {
	var doc document
	if err := json.Unmarshal(data, &doc); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			// Offset counts the bytes read, the offending one included.
			return &errs.FormatError{File: path, Offset: max(syn.Offset-1, 0), AtOffset: true, Err: fmt.Errorf("not valid JSON: %v", syn)}
		case errors.As(err, &typ):
			return &errs.FormatError{File: path, Offset: typ.Offset, AtOffset: true,
				Err: fmt.Errorf("%s holds a JSON %s where the speedscope schema wants a %s", field(typ.Field), typ.Value, typ.Type)}
		}
		return &errs.FormatError{File: path, Err: fmt.Errorf("not valid JSON: %v", err)}
	}
	if err := opt.Canceled(); err != nil {
		return err
	}
	if len(doc.Profiles) == 0 {
		return errs.Format(path, 0, "the speedscope file holds no profiles")
	}
	b := &builder{path: path, doc: &doc, count: count, sink: sink, opt: opt, values: map[int64]int32{}, valueOf: map[frame]int32{}}
	return b.build()
}

// field names a field of the document as the error of its decoding gives it.
func field(f string) string {
	if f == "" {
		return "the document"
	}
	return "field " + strconv.Quote(f)
}

// builder turns a decoded document into the model.
type builder struct {
	path    string
	doc     *document
	count   float64 // nanoseconds of a count of unit "none"; 0: refused
	sink    trace.Sink
	opt     trace.ReadOptions
	state   int32
	values  map[int64]int32 // frame index -> value
	valueOf map[frame]int32 // frames of one name and file share a value
	nValues int32
	nTypes  int32
	first   trace.Time
	last    trace.Time
	any     bool

	// The profile being built: its container, its open frames (frame
	// index, start, order) and the states it begun.
	cont  int32
	stack []open
	order int32
}

type open struct {
	frame int64
	start trace.Time
	order int32
}

func (b *builder) fail(p int, format string, args ...any) error {
	return &errs.FormatError{File: b.path, Where: fmt.Sprintf("profile %d (%q)", p, b.doc.Profiles[p].Name), Err: fmt.Errorf(format, args...)}
}

func (b *builder) build() error {
	// Units first: a file of counts or bytes is refused before anything
	// reaches the sink.
	for p := range b.doc.Profiles {
		pr := &b.doc.Profiles[p]
		if b.ns(p) == 0 {
			switch pr.Unit {
			case "none":
				return b.fail(p, "its values are in unit \"none\" (counts), not a time: give the time a count lasts, the sampling interval (count_unit=\"10ms\"...)")
			case "bytes":
				return b.fail(p, "its values are in unit \"bytes\" (a memory profile), not a time: the file has no timeline to read")
			}
			return b.fail(p, "unknown unit %q (the schema's units are none, nanoseconds, microseconds, milliseconds, seconds, bytes)", pr.Unit)
		}
		if pr.Type != "evented" && pr.Type != "sampled" {
			return b.fail(p, "unknown profile type %q (evented or sampled)", pr.Type)
		}
	}
	thread := b.define(trace.Type{Name: "Thread", Kind: trace.KindContainer, Parent: trace.None, Start: trace.None, End: trace.None})
	b.state = b.define(trace.Type{Name: "Frame", Kind: trace.KindState, Parent: thread, Start: trace.None, End: trace.None})
	for p := range b.doc.Profiles {
		pr := &b.doc.Profiles[p]
		name := pr.Name
		if name == "" {
			name = "profile " + strconv.Itoa(p)
		}
		b.cont = int32(p + 1)
		b.stack, b.order = b.stack[:0], 0
		start, err := b.time(p, pr.StartValue, "startValue")
		if err != nil {
			return err
		}
		b.sink.CreateContainer(trace.Container{Name: name, Type: thread, Parent: 0, Start: start, End: trace.Unset})
		var end trace.Time
		if pr.Type == "evented" {
			end, err = b.evented(p, pr)
		} else {
			end, err = b.sampled(p, pr)
		}
		if err != nil {
			return err
		}
		if e, err := b.time(p, pr.EndValue, "endValue"); err == nil && e > end {
			end = e
		}
		b.sink.DestroyContainer(b.cont, end)
		b.span(start, end)
		if err := b.opt.Canceled(); err != nil {
			return err
		}
	}
	b.sink.Finish(b.first, b.last)
	return nil
}

func (b *builder) define(t trace.Type) int32 {
	b.sink.DefineType(t)
	b.nTypes++
	return b.nTypes - 1
}

func (b *builder) span(start, end trace.Time) {
	if !b.any || start < b.first {
		b.first = start
	}
	if !b.any || end > b.last {
		b.last = end
	}
	b.any = true
}

// time converts v, in profile p's unit, to the model's nanoseconds.
func (b *builder) time(p int, v float64, what string) (trace.Time, error) {
	ns := math.Round(v * b.ns(p))
	if math.IsNaN(ns) || ns >= math.MaxInt64/2 || ns <= math.MinInt64/2 {
		return 0, b.fail(p, "%s %v is out of range", what, v)
	}
	return trace.Time(ns), nil
}

// ns is the nanoseconds of one unit of profile p's values, 0 for none.
func (b *builder) ns(p int) float64 {
	if u := b.doc.Profiles[p].Unit; u == "none" {
		return b.count
	}
	return units[b.doc.Profiles[p].Unit]
}

// value is the value of frame index i (checked by the caller).
func (b *builder) value(i int64) int32 {
	if v, ok := b.values[i]; ok {
		return v
	}
	fr := b.doc.Shared.Frames[i]
	v, ok := b.valueOf[fr]
	if !ok {
		v = b.nValues
		b.nValues++
		b.valueOf[fr] = v
		b.sink.DefineValue(trace.Value{Type: b.state, Name: fr.Name, Category: fr.File})
	}
	b.values[i] = v
	return v
}

// push opens frame i at t; pop closes the innermost open frame at t.
func (b *builder) push(p int, what string, i int64, t trace.Time) error {
	if i < 0 || i >= int64(len(b.doc.Shared.Frames)) {
		return b.fail(p, "%s names frame %d, but shared.frames holds %d", what, i, len(b.doc.Shared.Frames))
	}
	if len(b.stack) >= trace.MaxDepth {
		return b.fail(p, "%s nests frames more than %d deep", what, trace.MaxDepth)
	}
	b.value(i)
	b.stack = append(b.stack, open{frame: i, start: t, order: b.order})
	b.order++
	return nil
}

func (b *builder) pop(t trace.Time) {
	o := b.stack[len(b.stack)-1]
	b.stack = b.stack[:len(b.stack)-1]
	b.sink.State(trace.State{Container: b.cont, Type: b.state, Value: b.values[o.frame],
		Start: o.start, End: t, Depth: int32(len(b.stack)), Order: o.order})
}

// evented reads the O and C events of profile p, which must balance and
// come in time order; it returns the profile's last instant.
func (b *builder) evented(p int, pr *profile) (trace.Time, error) {
	last, err := b.time(p, pr.StartValue, "startValue")
	if err != nil {
		return 0, err
	}
	for k, e := range pr.Events {
		what := fmt.Sprintf("event %d", k)
		t, err := b.time(p, e.At, what+"'s at")
		if err != nil {
			return 0, err
		}
		if t < last && k > 0 {
			return 0, b.fail(p, "%s is at %v, before the event ahead of it: events come in time order", what, e.At)
		}
		last = t
		switch e.Type {
		case "O":
			if err := b.push(p, what, e.Frame, t); err != nil {
				return 0, err
			}
		case "C":
			if len(b.stack) == 0 {
				return 0, b.fail(p, "%s closes frame %d, but no frame is open", what, e.Frame)
			}
			if top := b.stack[len(b.stack)-1].frame; top != e.Frame {
				return 0, b.fail(p, "%s closes frame %d, but the innermost open frame is %d", what, e.Frame, top)
			}
			b.pop(t)
		default:
			return 0, b.fail(p, "%s has type %q (O or C)", what, e.Type)
		}
		if k%(1<<16) == 0 {
			if err := b.opt.Canceled(); err != nil {
				return 0, err
			}
		}
	}
	if n := len(b.stack); n > 0 {
		return 0, b.fail(p, "%d frames are still open after the last event (frame %d innermost): the events do not balance", n, b.stack[n-1].frame)
	}
	return last, nil
}

// sampled reads the stacks of profile p, each lasting its weight after
// the one ahead of it; it returns the profile's last instant.
func (b *builder) sampled(p int, pr *profile) (trace.Time, error) {
	if len(pr.Weights) < len(pr.Samples) {
		return 0, b.fail(p, "%d samples but %d weights: each sample has its weight", len(pr.Samples), len(pr.Weights))
	}
	if len(pr.Weights) > len(pr.Samples) {
		// rbspy --subprocesses writes the weights of every process's
		// samples in each profile: speedscope takes the first ones, as
		// here.
		b.opt.Notes.Warn("%s: profile %d (%q) has %d samples but %d weights: the first %d weights read, the others ignored as speedscope does",
			b.path, p, pr.Name, len(pr.Samples), len(pr.Weights), len(pr.Samples))
	}
	at := pr.StartValue
	t, err := b.time(p, at, "startValue")
	if err != nil {
		return 0, err
	}
	for k, stack := range pr.Samples {
		what := fmt.Sprintf("sample %d", k)
		w := pr.Weights[k]
		if !(w >= 0) || math.IsInf(w, 0) {
			return 0, b.fail(p, "%s has weight %v: weights are durations, 0 or more", what, w)
		}
		// Frames shared with the previous stack stay open.
		same := 0
		for same < len(stack) && same < len(b.stack) && b.stack[same].frame == stack[same] {
			same++
		}
		for len(b.stack) > same {
			b.pop(t)
		}
		for _, i := range stack[same:] {
			if err := b.push(p, what, i, t); err != nil {
				return 0, err
			}
		}
		at += w
		if t, err = b.time(p, at, what+"'s end"); err != nil {
			return 0, err
		}
		if k%(1<<16) == 0 {
			if err := b.opt.Canceled(); err != nil {
				return 0, err
			}
		}
	}
	for len(b.stack) > 0 {
		b.pop(t)
	}
	return t, nil
}
