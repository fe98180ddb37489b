package trace

import "errors"

// ErrCanceled is the error of a read stopped by ReadOptions.Cancel.
var ErrCanceled = errors.New("reading canceled")

// Canceled returns ErrCanceled if o.Cancel is closed, nil otherwise. It
// does not block, and costs little enough to be called every few thousand
// lines.
func (o ReadOptions) Canceled() error {
	if o.Cancel == nil {
		return nil
	}
	select {
	case <-o.Cancel:
		return ErrCanceled
	default:
		return nil
	}
}

// ErrComputationCanceled is the error of a computation stopped by its
// Cancel channel once the trace is read: an aggregation, a model built
// from a trace in memory, a call tree, a layout, a figure. The front ends
// take it, as ErrCanceled, for the user's interrupt.
var ErrComputationCanceled = errors.New("computation canceled")

// Stopped returns ErrComputationCanceled if cancel is closed, nil
// otherwise, and nil for a nil cancel (never closed). It does not block,
// and costs little enough to be called every few thousand items.
func Stopped(cancel <-chan struct{}) error {
	if cancel == nil {
		return nil
	}
	select {
	case <-cancel:
		return ErrComputationCanceled
	default:
		return nil
	}
}

// StopEvery is how many items (states, nodes) a computation handles
// between two looks at its Cancel channel.
const StopEvery = 1 << 14
