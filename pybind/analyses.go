package pybind

import (
	"io"
	"path/filepath"
	"runtime"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"gonum.org/v1/plot/vg"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
	"github.com/macroscope-hpc/macroscope/core/views/pop"
	"github.com/macroscope-hpc/macroscope/plots"
)

// Analysis is the result of one of the performance analyses (flat
// profile, load imbalance, communication matrix, POP efficiencies,
// critical path, stragglers): named tables, a description and a figure.
// It is built by the analysis' entry in the analyses table, from a trace
// in memory (Trace.Analyze) or while a trace is read (StartAnalyze).
type Analysis struct {
	kind   string
	info   map[string]any
	tables map[string]func(mem memory.Allocator) arrow.RecordBatch
	// figure draws the result; options is the JSON of plot's keyword
	// arguments beyond size, format and title.
	figure func(fig plots.FigureOptions, options string) ([]byte, error)
	// pop holds the factors of a POP analysis, for a Series to add up;
	// popLabels names its runs.
	pop       *pop.Factors
	popLabels []string
	// release frees what the result holds beyond memory (the critical
	// path's temporary file); nil when it holds nothing. closed is set
	// by Close: the tables and the figure are refused from then on.
	release func() error
	closed  bool
	// delays computes the critical path's delay costs, which its
	// delay_costs table and its figure of delays take, stopped by cancel;
	// nil for the other analyses.
	delays func(cancel <-chan struct{}) error
}

// analyzer computes one analysis: sink receives the trace (nil when the
// analysis needs the whole trace in memory, which finish then gets), and
// finish builds the result once the trace has finished; source is the
// trace's file.
type analyzer struct {
	sink   trace.Sink
	finish func(held *trace.Trace, source string) (*Analysis, error)
	// pipe runs the sink on a goroutine of its own while a file is read
	// (trace.Pipe): for a sink whose work is a large part of the read's,
	// which the merge of a reader that orders its records on one
	// goroutine (OTF2's) would otherwise do in turn with its own. Only
	// for sinks without the optional interfaces readers look for
	// (trace.ArgsSink, StreamSink, DeferSink, ingest.EndsKeeper): the
	// Pipe has none of them.
	pipe bool
}

// pipeable reports whether sink loses nothing behind a trace.Pipe: it
// implements none of the optional interfaces readers look for, which the
// Pipe hides.
func pipeable(sink trace.Sink) bool {
	switch sink.(type) {
	case trace.ArgsSink, trace.StreamSink, trace.DeferSink, ingest.EndsKeeper:
		return false
	}
	return true
}

// analysisKinds is the table of the analyses: each makes an analyzer from
// its JSON options and the channel that stops it (the reading's or the
// work's: the user's interrupt).
var analysisKinds = map[string]func(options string, cancel <-chan struct{}) (*analyzer, error){}

// analysisNames lists the analyses, for messages.
func analysisNames() []string {
	names := make([]string, 0, len(analysisKinds))
	for n := range analysisKinds {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func newAnalyzer(kind, options string, cancel <-chan struct{}) (*analyzer, error) {
	make, ok := analysisKinds[kind]
	if !ok {
		return nil, errs.Argument("analysis", "unknown analysis %q (known: %v)", kind, analysisNames())
	}
	return make(options, cancel)
}

// Analyze computes the analysis kind of the trace; options is a JSON
// object of the analysis' options.
func (t *Trace) Analyze(kind, options string) (a *Analysis, err error) {
	defer guard(&err)
	az, err := newAnalyzer(kind, options, nil)
	if err != nil {
		return nil, err
	}
	return t.analyze(az, nil)
}

// StartAnalyze starts computing the analysis kind of the trace (options
// as Analyze takes them); a Work whose Analysis is the result, so that
// Ctrl-C stops it in the replay of the trace or in the analysis.
func (t *Trace) StartAnalyze(kind, options string) (w *Work, err error) {
	defer guard(&err)
	var a *Analysis
	w = startWork(func(ctl *aggregate.Control) error {
		az, err := newAnalyzer(kind, options, ctl.Cancel)
		if err != nil {
			return err
		}
		a, err = t.analyze(az, ctl.Cancel)
		return err
	})
	w.result = func() any { return a }
	return w, nil
}

// analyze replays the trace into az's sink, stopped by cancel, and builds
// the result.
func (t *Trace) analyze(az *analyzer, cancel <-chan struct{}) (*Analysis, error) {
	if az.sink != nil {
		if c, ok := az.sink.(io.Closer); ok {
			defer c.Close() // what a stopped replay spilled; a result keeps its own
		}
		if err := t.t.ReplayCancel(az.sink, cancel); err != nil {
			return nil, err
		}
	}
	a, err := az.finish(t.t, sourceOf(t.t))
	if err != nil {
		return nil, errs.NameFile(err, t.t.Files...)
	}
	a.info["source"] = sourceOf(t.t)
	a.info["incomplete"] = incompleteOf(t)
	return a, nil
}

func sourceOf(t *trace.Trace) string {
	if len(t.Files) > 0 {
		return t.Files[0]
	}
	return ""
}

// StartAnalyze starts computing the analysis kind while reading the trace
// at path (readOptions as StartRead takes them): analyses that stream
// keep only their result's worth of memory; the others read the trace
// into memory first. Reading.Analysis gives the result.
func StartAnalyze(path, readOptions, kind, options string) (r *Reading, err error) {
	defer guard(&err)
	r, ro := newReading()
	// The reading's cancel stops the analysis too, once the trace is read.
	az, err := newAnalyzer(kind, options, ro.Cancel)
	if err != nil {
		return nil, err
	}
	src, _, err := openTrace(path, readOptions)
	if err != nil {
		return nil, err
	}
	go r.run(func() error {
		if c, ok := az.sink.(io.Closer); ok {
			// What a streaming analysis spilled is released even when
			// the read fails before its result.
			defer c.Close()
		}
		sink, held := az.sink, (*trace.Trace)(nil)
		if sink == nil {
			held = trace.New(src.Files...)
			sink = held
		}
		if err := readGuarded(path, func() error {
			if az.pipe && runtime.GOMAXPROCS(0) > 1 && pipeable(sink) {
				p := trace.NewPipe(sink)
				// Once the reader stopped, whatever its reason: the
				// sink's calls made, its panic raised here.
				defer p.Wait()
				return src.Read(p, ro)
			}
			return src.Read(sink, ro)
		}); err != nil {
			return err
		}
		a, err := az.finish(held, path)
		if err != nil {
			return streamError(path, err)
		}
		a.info["source"] = path
		a.info["incomplete"] = ro.Notes.IncompleteReasons()
		a.info["warnings"] = ro.Notes.Messages()
		a.info["streamed"] = az.sink != nil
		r.analysis = a
		return nil
	})
	return r, nil
}

// Analysis returns the result of StartAnalyze once Wait has reported the
// end, or the error that stopped it.
func (r *Reading) Analysis() (a *Analysis, err error) {
	defer guard(&err)
	<-r.done
	if r.err != nil {
		return nil, r.err
	}
	if r.analysis == nil {
		return nil, errs.Argument("reading", "this reading computes no analysis")
	}
	return r.analysis, nil
}

// Kind names the analysis.
func (a *Analysis) Kind() string { return a.kind }

// Info describes the result as JSON: its kind, source, sizes, and what
// the analysis tells beyond its tables.
func (a *Analysis) Info() (js string, err error) {
	defer guard(&err)
	info := map[string]any{"kind": a.kind}
	for k, v := range a.info {
		info[k] = v
	}
	names := make([]string, 0, len(a.tables))
	for n := range a.tables {
		names = append(names, n)
	}
	slices.Sort(names)
	info["tables"] = names
	return toJSON(info)
}

// Close releases what the result holds beyond memory (the temporary file
// of a critical path's calls and activities): its tables and its figure
// are refused after it, its Info still given. It may be called more than
// once.
func (a *Analysis) Close() (err error) {
	defer guard(&err)
	if a.closed {
		return nil
	}
	a.closed = true
	if a.release != nil {
		return a.release()
	}
	return nil
}

// StartDelayCosts starts computing the delay costs of a critical path (its
// delay_costs table and plot(type="delays") then take them as they are);
// a Work, so that Ctrl-C stops it, and a later call computes them again.
func (a *Analysis) StartDelayCosts() (w *Work, err error) {
	defer guard(&err)
	if err := a.refuseClosed(); err != nil {
		return nil, err
	}
	if a.delays == nil {
		return nil, errs.Argument("result", "the %s result has no delay costs", a.kind)
	}
	return startWork(func(ctl *aggregate.Control) error { return a.delays(ctl.Cancel) }), nil
}

// refuseClosed returns the error of a table or figure asked of a closed
// result.
func (a *Analysis) refuseClosed() error {
	if a.closed {
		return errs.Argument("result", "the %s result is closed: compute it again to read its tables or draw it",
			a.kind)
	}
	return nil
}

// Table exports the named table of the result.
func (a *Analysis) Table(name string, addr uintptr) (err error) {
	defer guard(&err)
	if err := a.refuseClosed(); err != nil {
		return err
	}
	build, ok := a.tables[name]
	if !ok {
		return errs.Argument("table", "the %s result has no table %q", a.kind, name)
	}
	return export(build(cmem), addr)
}

// analysisPlotOptions are the keyword arguments every analysis figure
// takes.
type analysisPlotOptions struct {
	Width  float64 `json:"width"`  // points
	Height float64 `json:"height"` // points
	Format string  `json:"format"`
	Title  string  `json:"title"`
}

// Plot draws the result's figure and returns the image file's bytes;
// options is a JSON object: width, height (points), format, title, and
// the analysis' own.
func (a *Analysis) Plot(options string) (img []byte, err error) {
	defer guard(&err)
	return a.plot(options, nil)
}

// StartPlot starts drawing the result's figure (options as Plot's); a
// Work whose Image is the figure, so that Ctrl-C stops the figures whose
// size follows the trace (the communication matrix, the critical path).
func (a *Analysis) StartPlot(options string) (w *Work, err error) {
	defer guard(&err)
	var img []byte
	w = startWork(func(ctl *aggregate.Control) error {
		drawn, err := a.plot(options, ctl.Cancel)
		img = drawn
		return err
	})
	w.result = func() any { return img }
	return w, nil
}

func (a *Analysis) plot(options string, cancel <-chan struct{}) (img []byte, err error) {
	o := analysisPlotOptions{Format: "png"}
	f, err := decodePlotOptions(options, &o, &o.Format)
	if err != nil {
		return nil, err
	}
	if err := a.refuseClosed(); err != nil {
		return nil, err
	}
	if a.figure == nil {
		return nil, errs.Argument("plot", "the %s result has no figure", a.kind)
	}
	title := o.Title
	if title == "" {
		if src, _ := a.info["source"].(string); src != "" {
			title = filepath.Base(src) + ": "
		}
		title += a.kind
	}
	reasons, _ := a.info["incomplete"].([]string)
	return a.figure(plots.FigureOptions{Width: vg.Length(o.Width), Height: vg.Length(o.Height), Format: f,
		Title: titled(title, reasons), Cancel: cancel}, options)
}

// meta is the metadata every table of an analysis carries.
func (a *Analysis) meta() map[string]string {
	m := map[string]string{"macroscope.analysis": a.kind}
	if s, ok := a.info["source"].(string); ok {
		m["macroscope.source"] = s
	}
	return m
}
