package pybind

import (
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot/vg"

	"github.com/macroscope-hpc/macroscope/arrowio"
	"github.com/macroscope-hpc/macroscope/core/budget"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
	"github.com/macroscope-hpc/macroscope/core/views/moments"
	"github.com/macroscope-hpc/macroscope/plots"
)

// Moments is a table of moments of utilization (Godin, Quinn and Pancake) and its moment
// display.
type Moments struct {
	rows       []moments.Row
	cols       arrowio.MomentsColumns
	kind       string // resource, state, node or aggregate
	busy       string // what counts as busy, in words
	source     string // the trace file, for titles
	start, end trace.Time
	origin     trace.Time // the trace's first instant, from which times read
	// incomplete says why the trace was incomplete; warnings are the
	// reader's notes of a trace read for the moments (MomentsFromFile).
	incomplete, warnings []string
	// figure draws the rows with the size, format and title of opt.
	figure func(opt plots.MomentsOptions) ([]byte, error)
	// types and values are the trace's definitions: its states are
	// coloured as the model of the trace colours them
	// (plots.TraceStateColors).
	types  []trace.Type
	values []trace.Value
}

// momentsOptions mirror the keyword arguments of Trace.moments.
type momentsOptions struct {
	Busy       *[]string       `json:"busy"` // only these values count
	Idle       *[]string       `json:"idle"` // every value but these counts
	StateTypes []string        `json:"state_types"`
	Nesting    string          `json:"nesting"`
	Gaps       bool            `json:"gaps"`
	By         string          `json:"by"`
	Start      json.RawMessage `json:"start"` // seconds: a JSON number or a decimal string
	End        json.RawMessage `json:"end"`
}

func parseMomentsOptions(js string) (o momentsOptions, opt moments.Options, err error) {
	if err = decodeOptions(js, &o); err != nil {
		return
	}
	switch {
	case o.Busy != nil && o.Idle != nil:
		err = errs.Argument("busy", "give the busy states or the idle ones (idle=...), not both")
		return
	case o.Busy != nil:
		opt.Select, opt.Values = moments.Only, *o.Busy
	case o.Idle != nil:
		opt.Select, opt.Values = moments.AllBut, *o.Idle
	}
	for _, names := range [][]string{opt.Values, o.StateTypes} {
		for _, name := range names {
			if name == "" {
				err = errs.Argument("busy", "empty state name in %q", names)
				return
			}
		}
	}
	opt.StateTypes, opt.Gaps = o.StateTypes, o.Gaps
	if opt.Nesting, err = moments.ParseNesting(o.Nesting); err != nil {
		return
	}
	if opt.Start, err = parseInstant("start", o.Start); err != nil {
		return
	}
	opt.End, err = parseInstant("end", o.End)
	opt.Relative = true // from the trace's start, as every window Python gives
	return
}

// parseInstant reads an instant in seconds from its JSON text, exactly: a
// number such as 1.5 or 1e-3, or a string holding one, such as
// "1700000000.123456789" (a float64 near 1e9 s cannot hold nanoseconds).
func parseInstant(name string, raw json.RawMessage) (*trace.Time, error) {
	text := strings.TrimSpace(string(raw))
	if text == "" || text == "null" {
		return nil, nil
	}
	if strings.HasPrefix(text, `"`) {
		if err := json.Unmarshal(raw, &text); err != nil {
			return nil, errs.Argument(name, "%s is not a string", raw)
		}
		text = strings.TrimSpace(text)
	}
	t, err := trace.ParseTime(text)
	if err != nil {
		return nil, errs.Argument(name, "%q is not a number of seconds: %v", text, err)
	}
	return &t, nil
}

// describeBusy says in words which states count as busy.
func describeBusy(opt moments.Options) string {
	list := func(names []string) string {
		if len(names) > 3 {
			return strings.Join(names[:3], ", ") + fmt.Sprintf(" and %d more", len(names)-3)
		}
		return strings.Join(names, ", ")
	}
	var s string
	switch {
	case opt.Select == moments.Only && len(opt.Values) == 0:
		return "time in no state"
	case opt.Select == moments.Only:
		s = list(opt.Values)
	case opt.Select == moments.AllBut && len(opt.Values) > 0:
		s = "all states but " + list(opt.Values)
	default:
		s = "all states"
	}
	if opt.Gaps {
		s += " and time in no state"
	}
	if len(opt.StateTypes) > 0 {
		s += " (" + list(opt.StateTypes) + ")"
	}
	return s
}

// resultMoments lays out a result by resource, state or node.
func resultMoments(r *moments.Result, by moments.By, opt moments.Options, source string) (*Moments, error) {
	rows, err := r.Rows(by)
	if err != nil {
		return nil, err
	}
	return &Moments{
		rows: rows, cols: arrowio.MomentsColumnsFor(by), kind: by.String(), busy: describeBusy(opt),
		source: source, start: r.Start, end: r.End, origin: r.Origin, types: r.Types, values: r.Values,
		figure: func(opt plots.MomentsOptions) ([]byte, error) {
			opt.Origin = r.Origin
			return plots.ResultFigure(rows, by, r.Start, r.End, opt)
		},
	}, nil
}

// parseResourceMoments decodes the options of the moments of a trace's
// resources, states or nodes (Trace.Moments, MomentsFromFile).
func parseResourceMoments(options string) (moments.By, moments.Options, error) {
	o, opt, err := parseMomentsOptions(options)
	if err != nil {
		return 0, opt, err
	}
	by, err := moments.ParseBy(o.By)
	opt.ByState = by == moments.ByState
	return by, opt, err
}

// StartMoments starts computing the moments of utilization of the
// trace's resources (options is a JSON object, see momentsOptions): a
// Work whose Moments are the result, so that Ctrl-C stops it.
func (t *Trace) StartMoments(options string) (w *Work, err error) {
	defer guard(&err)
	by, opt, err := parseResourceMoments(options)
	if err != nil {
		return nil, err
	}
	var m *Moments
	w = startWork(func(ctl *aggregate.Control) error {
		opt.Cancel = ctl.Cancel
		r, err := moments.Compute(t.t, opt)
		if err != nil {
			return err
		}
		source := ""
		if len(t.t.Files) > 0 {
			source = t.t.Files[0]
		}
		if m, err = resultMoments(r, by, opt, source); err != nil {
			return err
		}
		m.incomplete = incompleteOf(t)
		return nil
	})
	w.result = func() any { return m }
	return w, nil
}

// MomentsFromFile computes moments of utilization while reading the trace
// at path, without keeping its events: memory grows with the number of
// resources, not of states. readOptions is the JSON object of the reader's
// options, "format" naming the format (detected when absent), as
// StartRead takes it; options those of the moments.
func MomentsFromFile(path, readOptions, options string) (m *Moments, err error) {
	defer guard(&err)
	by, opt, err := parseResourceMoments(options)
	if err != nil {
		return nil, err
	}
	src, _, err := openTrace(path, readOptions)
	if err != nil {
		return nil, err
	}
	var notes *trace.Notes
	read := func(sink trace.Sink) error {
		notes = &trace.Notes{} // the last read's
		return readGuarded(path, func() error { return src.Read(sink, trace.ReadOptions{Notes: notes}) })
	}
	r, err := moments.Stream(read, src.Probe, opt)
	if err != nil {
		var fe *errs.FormatError
		if errors.As(err, &fe) {
			return nil, err
		}
		return nil, streamError(path, err)
	}
	m, err = resultMoments(r, by, opt, path)
	if err != nil {
		return nil, err
	}
	m.incomplete, m.warnings = notes.IncompleteReasons(), notes.Messages()
	return m, nil
}

// StartMomentsFromFile is MomentsFromFile on a goroutine of its own: a
// Reading that Python polls, shows the progress of and cancels on Ctrl-C
// (the read stops within a megabyte or so, nothing left running);
// Reading.Moments gives the result. Problems found before reading starts
// are reported at once.
func StartMomentsFromFile(path, readOptions, options string) (r *Reading, err error) {
	defer guard(&err)
	by, opt, err := parseResourceMoments(options)
	if err != nil {
		return nil, err
	}
	check := opt
	check.Relative = false // its window's order checked, as seconds from the start
	if _, err := moments.New(check); err != nil {
		return nil, err // bad options, before the read
	}
	src, _, err := openTrace(path, readOptions)
	if err != nil {
		return nil, err
	}
	setting, err := memoryBudget(readOptions)
	if err != nil {
		return nil, err
	}
	r, ro := newReading()
	meter := budget.NewMeter(setting, r.stop)
	ro.Hold = meter.Hold
	go r.run(func() error {
		// A window counting from the trace's start may need the trace's
		// extent first (moments.Stream): the notes are the last read's.
		read := func(sink trace.Sink) error {
			*ro.Notes = trace.Notes{}
			err := readGuarded(path, func() error { return src.Read(sink, ro) })
			if meter.Err() != nil {
				return overBudget(path, meter.Err(), err)
			}
			return err
		}
		res, err := moments.Stream(read, src.Probe, opt)
		if err != nil {
			var fe *errs.FormatError
			if errors.As(err, &fe) || errors.Is(err, trace.ErrCanceled) {
				return err
			}
			return streamError(path, err) // argument errors as they are
		}
		m, err := resultMoments(res, by, opt, path)
		if err != nil {
			return err
		}
		m.incomplete, m.warnings = ro.Notes.IncompleteReasons(), ro.Notes.Messages()
		r.moments = m
		return nil
	})
	return r, nil
}

// Moments returns the moments computed while reading
// (StartMomentsFromFile), or the error that stopped the read. It waits for
// the end of the read.
func (r *Reading) Moments() (m *Moments, err error) {
	defer guard(&err)
	if err := r.outcome(); err != nil {
		return nil, err
	}
	return r.moments, nil
}

// streamError attributes to the file an inconsistency the accumulator
// found in what the reader delivered (states overlapping, for instance):
// the trace is at fault, not the options.
func streamError(path string, err error) error {
	var ae *errs.ArgumentError
	var ee *errs.EmptyError
	var fe *errs.FormatError
	if errors.As(err, &ae) {
		return err
	}
	if errors.As(err, &ee) || errors.As(err, &fe) {
		// Data that hold nothing for the analysis are not malformed;
		// data the analysis found at fault already say so.
		return errs.NameFile(err, path)
	}
	return &errs.FormatError{File: path, Err: err}
}

// Info describes the table as JSON: row kind, window, rows, source, busy.
func (m *Moments) Info() (js string, err error) {
	defer guard(&err)
	return toJSON(map[string]any{
		"by": m.kind, "start": m.start.Seconds(), "end": m.end.Seconds(),
		"start_ns": int64(m.start), "end_ns": int64(m.end),
		"origin": m.origin.Seconds(), "origin_ns": int64(m.origin),
		"rows": len(m.rows), "source": m.source, "busy": m.busy,
		"incomplete": m.incomplete, "warnings": m.warnings,
	})
}

// Table exports the moments (see arrowio.MomentsTable).
func (m *Moments) Table(addr uintptr) (err error) {
	defer guard(&err)
	meta := map[string]string{
		"macroscope.start": m.start.String(), "macroscope.end": m.end.String(),
		"macroscope.by": m.kind, "macroscope.busy": m.busy,
	}
	return export(arrowio.MomentsTable(m.rows, m.cols, meta, cmem), addr)
}

// Plot draws the moment display and returns the image file's bytes.
func (m *Moments) Plot(options string) (img []byte, err error) {
	defer guard(&err)
	draw, err := m.plotter(options)
	if err != nil {
		return nil, err
	}
	return draw(nil)
}

// StartPlot starts drawing the moment display (options as Plot takes
// them); a Work whose Image is the figure, so that Ctrl-C stops it.
func (m *Moments) StartPlot(options string) (w *Work, err error) {
	defer guard(&err)
	draw, err := m.plotter(options) // bad options fail at once
	if err != nil {
		return nil, err
	}
	var img []byte
	w = startWork(func(ctl *aggregate.Control) (err error) {
		img, err = draw(ctl.Cancel)
		return err
	})
	w.result = func() any { return img }
	return w, nil
}

// plotter checks Plot's options and returns the drawing they ask for,
// stopped by its cancel.
func (m *Moments) plotter(options string) (func(cancel <-chan struct{}) ([]byte, error), error) {
	o := plotOptions{Format: "png"}
	f, err := decodePlotOptions(options, &o, &o.Format)
	if err != nil {
		return nil, err
	}
	colors, err := plots.TraceStateColors(m.types, m.values, o.Colors)
	if err != nil {
		return nil, err
	}
	return func(cancel <-chan struct{}) ([]byte, error) {
		return momentsFigure(m, o.Title, vg.Length(o.Width), vg.Length(o.Height), f, colors, cancel)
	}, nil
}

// momentsFigure draws m, titled after its source and busy states unless
// title is given.
func momentsFigure(m *Moments, title string, width, height vg.Length, f plots.Format, colors map[string]color.RGBA,
	cancel <-chan struct{}) ([]byte, error) {
	if title == "" {
		title = fmt.Sprintf("moments of utilization by %s (busy: %s)", m.kind, m.busy)
		if m.source != "" {
			title = filepath.Base(m.source) + ": " + title
		}
	}
	return m.figure(plots.MomentsOptions{Width: width, Height: height, Format: f, Title: titled(title, m.incomplete),
		StateColors: colors, Cancel: cancel})
}
