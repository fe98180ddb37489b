package micro

import (
	"errors"
	"runtime"
	"sync"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Source streams a trace into a sink. Stream may call it more than once.
type Source func(sink trace.Sink, opt trace.ReadOptions) error

// Probe guesses the first and last instants of the trace a Source
// streams, without reading it (ingest.Source.Probe); ok is false when it cannot.
type Probe func() (start, end trace.Time, ok bool)

// Summary tells what a streaming build read.
type Summary struct {
	Counts
	Start, End trace.Time // the trace's first and last instants
	// Passes counts the reads of the input: 1 when the window was given
	// or guessed right, 2 when a first read had to find it.
	Passes int
	// InMemory tells that the innermost states could not be followed while
	// streaming (ErrNesting): the last read kept the whole trace and the
	// model is Build's.
	InMemory bool
}

// Stream builds the microscopic model of the trace src streams, as Build
// would on the whole trace, without keeping its entities (see
// Accumulator).
//
// The slices depend on the window. With opt.Start and opt.End given, one
// read is enough. Otherwise probe (if not nil) guesses the trace's
// extent; the read checks the guess, and reads again with the right
// window when it was wrong. Without a guess, a first read finds the
// extent. Progress reports count the bytes of every read, the total
// growing with the reads. A stream whose nesting cannot be followed
// (ErrNesting) is read once more into memory and given to Build.
//
// The summary comes with the errors found once the trace is read (those
// of Build on a valid trace: no such state type...), nil with the others.
func Stream(src Source, opt Options, ro trace.ReadOptions, probe Probe) (*Model, *Summary, error) {
	return StreamWith(src, opt, ro, StreamOptions{Probe: probe})
}

// StreamOptions tell Stream about its source.
type StreamOptions struct {
	// Probe, if not nil, guesses the trace's extent.
	Probe Probe
	// StartOrdered tells that the source delivers the states of each
	// container and state type in the order they start, each before the
	// states nested in it (pj_dump's tables), rather than when they end
	// (see Accumulator.StartOrdered).
	StartOrdered bool
}

// StreamWith is Stream with the options of the source.
func StreamWith(src Source, opt Options, ro trace.ReadOptions, sopt StreamOptions) (*Model, *Summary, error) {
	probe := sopt.Probe
	if _, err := ParseMetric(string(opt.Metric)); err != nil {
		return nil, nil, err
	}
	if opt.Start != nil && opt.End != nil && !opt.Relative {
		if *opt.End <= *opt.Start {
			return nil, nil, errs.Argument("window", "empty time window [%s, %s] s", *opt.Start, *opt.End)
		}
		if err := checkGrid(opt, *opt.Start, *opt.End); err != nil {
			return nil, nil, err
		}
	} else if err := checkOptions(opt); err != nil {
		return nil, nil, err
	}
	r := &reads{src: src, ro: ro, expected: 1}
	defer r.finish()
	sum := &Summary{}
	var start, end trace.Time
	guessed := false
	extent := func() error {
		// A first read to find the extent.
		r.expected = 2
		var ext Extent
		if err := r.read(&ext); err != nil {
			return err
		}
		start, end, guessed = ext.Start, ext.End, false
		return nil
	}
	if opt.Start == nil || opt.End == nil || opt.Relative {
		// The window depends on the trace's extent: its start, from which
		// a relative window counts, or an edge the options leave to it.
		known := false
		if probe != nil {
			start, end, known = probe()
			guessed = known
		}
		if !known {
			if err := extent(); err != nil {
				return nil, nil, err
			}
		}
	}
	// The slices of a window counting from the start depend on where the
	// trace starts: they are resolved on the guessed extent, and checked
	// against the extent found (Accumulator.Model: ErrWindow).
	window := func(first, last trace.Time) (trace.Time, trace.Time, error) {
		ropt, err := opt.Resolve(first, last)
		if err != nil {
			return 0, 0, err
		}
		s, e := ropt.Window(first, last)
		return s, e, nil
	}
	var err error
	if start, end, err = window(start, end); err != nil && guessed {
		// Outside the guessed extent: the guess may be wrong, the trace's
		// own says.
		if err := extent(); err != nil {
			return nil, nil, err
		}
		start, end, err = window(start, end)
	}
	if err != nil {
		return nil, nil, err
	}
	for {
		acc, err := NewAccumulator(opt, start, end)
		if err != nil {
			return nil, nil, err
		}
		// The accumulator stops the read when the states turn out not to
		// nest. With cores to spare it works on its own goroutine, beside
		// the reader; with two, the reader's tokenizers take the second core
		// already, and handing the states over would cost more than it saves.
		stop := make(chan struct{})
		var once sync.Once
		acc.OnError = func() { once.Do(func() { close(stop) }) }
		acc.StartOrdered = sopt.StartOrdered
		if runtime.GOMAXPROCS(0) >= asyncMinProcs {
			pipe := newAsync(acc)
			err = r.readUntil(pipe, stop)
			pipe.close()
		} else {
			err = r.readUntil(acc, stop)
		}
		if err != nil && !(errors.Is(err, trace.ErrCanceled) && acc.err != nil && r.ro.Canceled() == nil) {
			return nil, nil, err
		}
		var m *Model
		if acc.err != nil {
			err = acc.err // the read may have stopped short: no Model
		} else {
			sum.Counts = acc.Counts()
			sum.Start, sum.End, _ = acc.Extent()
			m, err = acc.Model()
		}
		switch {
		case errors.Is(err, ErrWindow) && r.passes < 3:
			// The guess was wrong: read again with the window found.
			r.expected++
			if start, end, err = window(sum.Start, sum.End); err != nil {
				return nil, nil, err
			}
			continue
		case errors.Is(err, ErrNesting):
			r.expected++
			t := trace.New()
			if err := r.read(t); err != nil {
				return nil, nil, err
			}
			m, err := Build(t, opt)
			sum.Counts = Counts{Containers: int64(len(t.Containers) - 1), States: int64(t.States.Len()),
				Variables: int64(t.Variables.Len()), Links: int64(t.Links.Len()), Events: int64(t.Events.Len())}
			sum.Start, sum.End = t.Start, t.End
			sum.InMemory = true
			sum.Passes = r.passes
			return m, sum, err
		case err != nil:
			sum.Passes = r.passes
			return nil, sum, err
		}
		sum.Passes = r.passes
		return m, sum, nil
	}
}

// Load builds the model as Build does, from the whole trace src streams
// into memory: for readers that hold the whole input in memory anyway
// (Chrome's JSON), where streaming would save nothing.
func Load(src Source, opt Options, ro trace.ReadOptions) (*Model, *Summary, error) {
	if _, err := ParseMetric(string(opt.Metric)); err != nil {
		return nil, nil, err
	}
	if err := checkOptions(opt); err != nil {
		return nil, nil, err
	}
	t := trace.New()
	if err := src(t, ro); err != nil {
		return nil, nil, err
	}
	sum := &Summary{Start: t.Start, End: t.End, Passes: 1, InMemory: true, Counts: Counts{
		Containers: int64(len(t.Containers) - 1), States: int64(t.States.Len()), Variables: int64(t.Variables.Len()),
		Links: int64(t.Links.Len()), Events: int64(t.Events.Len()),
	}}
	m, err := Build(t, opt)
	return m, sum, err
}

// asyncMinProcs is the number of processors from which Stream runs the
// accumulator on a goroutine of its own.
var asyncMinProcs = 3

// reads runs the reads of a Stream, with progress over all of them.
type reads struct {
	src      Source
	ro       trace.ReadOptions
	passes   int
	expected int          // reads foreseen so far
	offset   int64        // bytes read by the reads before
	total    int64        // bytes of one read (0 if unknown)
	notes    *trace.Notes // what the last read noted
}

// finish hands the last read's notes to the caller.
func (r *reads) finish() { r.ro.Notes.Add(r.notes) }

func (r *reads) read(sink trace.Sink) error {
	if err := r.ro.Canceled(); err != nil {
		return err
	}
	r.passes++
	ro := r.ro
	// Each read notes what it skipped afresh: a trace read twice must not
	// report its skips twice. The last read's notes are the caller's.
	if ro.Notes != nil {
		ro.Notes = &trace.Notes{}
		r.notes = ro.Notes
	}
	if ro.Progress != nil {
		report := r.ro.Progress
		ro.Progress = func(done, total int64) {
			r.total = total
			report(r.offset+done, total*int64(max(r.expected, r.passes)))
		}
	}
	err := r.src(sink, ro)
	r.offset += r.total
	return err
}

// readUntil reads into sink, canceled also when stop is closed.
func (r *reads) readUntil(sink trace.Sink, stop <-chan struct{}) error {
	cancel := make(chan struct{})
	over := make(chan struct{})
	defer close(over)
	saved := r.ro.Cancel
	go func() {
		select {
		case <-saved: // nil: never
		case <-stop:
		case <-over:
			return
		}
		close(cancel)
	}()
	r.ro.Cancel = cancel
	defer func() { r.ro.Cancel = saved }()
	return r.read(sink)
}

// Extent is a sink that keeps only the first and last instants of what it
// is given: a read that finds a trace's window. Several Finish calls (the
// files of a run) widen it.
type Extent struct {
	Start, End trace.Time
	Finished   bool // Finish was called
}

func (*Extent) DefineType(trace.Type)              {}
func (*Extent) DefineValue(trace.Value)            {}
func (*Extent) CreateContainer(trace.Container)    {}
func (*Extent) DestroyContainer(int32, trace.Time) {}
func (*Extent) State(trace.State)                  {}
func (*Extent) Variable(trace.Variable)            {}
func (*Extent) Link(trace.Link)                    {}
func (*Extent) Event(trace.Event)                  {}
func (e *Extent) Finish(start, end trace.Time) {
	if !e.Finished {
		e.Start, e.End, e.Finished = start, end, true
	}
	e.Start, e.End = min(e.Start, start), max(e.End, end)
}

// FromSource builds the microscopic model of an opened trace (see
// package ingest), as Build would on the whole trace: while reading it
// (Stream, with the source's Probe guessing the extent and its order of
// states), or, for readers that hold the whole input in memory anyway
// (Source.Whole: JSON, databases), from the trace in memory (Load).
func FromSource(src *ingest.Source, opt Options, ro trace.ReadOptions) (*Model, *Summary, error) {
	if src.Whole {
		return Load(src.Read, opt, ro)
	}
	return StreamWith(src.Read, opt, ro, StreamOptions{Probe: src.Probe, StartOrdered: src.StartOrdered})
}
