package pybind

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/arrowio"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/critpath"
	"github.com/macroscope-hpc/macroscope/plots"
)

func init() {
	analysisKinds["critical_path"] = newCritPathAnalyzer
}

func newCritPathAnalyzer(options string, cancel <-chan struct{}) (*analyzer, error) {
	var o struct {
		WholeRun bool `json:"whole_run"`
		// SpillMemory is critpath.Options.SpillMemory (0: the
		// default), for the tests of Close to spill a small trace.
		SpillMemory int64 `json:"spill_memory"`
	}
	if err := decodeOptions(options, &o); err != nil {
		return nil, err
	}
	// Computed while reading: the accumulator keeps the MPI calls and
	// messages and the other states in 24 bytes each, not the trace.
	acc := critpath.New(critpath.Options{WholeRun: o.WholeRun, SpillMemory: o.SpillMemory, Cancel: cancel})
	return &analyzer{sink: acc, finish: func(*trace.Trace, string) (*Analysis, error) {
		r, err := acc.Result()
		if err != nil {
			return nil, err
		}
		return critPathAnalysis(r, r.Attribution), nil
	}, pipe: true}, nil
}

func critPathAnalysis(r *critpath.Result, at *critpath.Attribution) *Analysis {
	var waited trace.Time
	for _, w := range r.Waits {
		waited += w.Wait
	}
	a := &Analysis{kind: "critical path", info: map[string]any{
		// One clock: seconds from the trace's start (origin, on its clock).
		"start": (r.Start - r.TraceStart()).Seconds(), "end": (r.End - r.TraceStart()).Seconds(),
		"origin": r.TraceStart().Seconds(), "length": r.Length().Seconds(),
		"segments": len(r.Segments), "resources": len(r.Resources), "wait_states": len(r.Waits),
		"waiting": waited.Seconds(), "semantics": r.Semantics,
	}}
	a.tables = map[string]func(memory.Allocator) arrow.RecordBatch{
		"segments": func(mem memory.Allocator) arrow.RecordBatch { return arrowio.CritPathSegmentsTable(r, a.meta(), mem) },
		"pieces": func(mem memory.Allocator) arrow.RecordBatch {
			return arrowio.CritPathPiecesTable(r, at, a.meta(), mem)
		},
		"by_state": func(mem memory.Allocator) arrow.RecordBatch { return arrowio.CritPathByStateTable(at, a.meta(), mem) },
		"by_resource": func(mem memory.Allocator) arrow.RecordBatch {
			return arrowio.CritPathByResourceTable(at, a.meta(), mem)
		},
		"wait_states": func(mem memory.Allocator) arrow.RecordBatch { return arrowio.WaitStatesTable(r, a.meta(), mem) },
		// Computed when asked for: the path alone does not need them.
		"delay_costs": func(mem memory.Allocator) arrow.RecordBatch {
			return arrowio.DelayCostsTable(r, r.DelayCosts(), a.meta(), mem)
		},
	}
	// The temporary file of the calls and activities (wait_states and
	// delay_costs read it back) goes at Close, not when Go collects r.
	a.release = r.Close
	a.delays = func(cancel <-chan struct{}) error {
		_, err := r.DelayCostsCancel(cancel)
		return err
	}
	a.figure = func(fig plots.FigureOptions, options string) ([]byte, error) {
		var o figureOptions
		if err := decodeOptions(options, &o); err != nil {
			return nil, err
		}
		return plots.CriticalPathFigure(r, at, o.Type, o.top(20), fig)
	}
	return a
}
