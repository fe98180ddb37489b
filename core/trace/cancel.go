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

// Looker looks at a Cancel channel as a computation goes: at its first
// item, then once every StopEvery items of work. Items may differ in size
// (a treemap node of many leaves and slices, one of a single cell), so a
// step counts the items it did, and the looks follow the work, not the
// calls.
//
// The first item is looked at, as the loops that look when
// i%StopEvery == 0 do: a computation whose channel is already closed does
// none of its work, whatever its size, and a caller's test of a closed
// channel holds on the smallest input. One look costs a non-blocking
// receive, nothing beside the items.
//
// Once it has seen the channel closed, a Looker stays stopped. Its zero
// value never stops; a nil Cancel never stops.
type Looker struct {
	Cancel <-chan struct{}
	// next is the count of items at which to look again; done the items
	// counted so far.
	done, next int
	err        error
}

// Stopped counts items more of work and returns ErrComputationCanceled
// once the channel, looked at when the count reaches the next look, is
// closed; nil otherwise.
func (k *Looker) Stopped(items int) error {
	if k.err != nil || k.Cancel == nil {
		return k.err
	}
	k.done += items
	if k.done < k.next {
		return nil
	}
	k.next = k.done + StopEvery
	k.err = Stopped(k.Cancel)
	return k.err
}
