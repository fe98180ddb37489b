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
