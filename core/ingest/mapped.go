package ingest

import (
	"errors"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// Reading a plain file mapped in memory (MapFile) spares the kernel
// copying each of its bytes into the reader's buffer. A mapped file that
// another program truncates while it is read makes the pages past its
// new end unreadable: reading them raises a fault (SIGBUS), which would
// end the program. A goroutine that reads a mapping turns such faults
// into panics (debug.SetPanicOnFault) and recovers them with
// RecoverFault, which returns ErrFileShrank naming the file.

// ErrFileShrank is the cause of the error on a mapped file that lost its
// end while it was read.
var ErrFileShrank = errors.New("the file changed while it was read: it is now shorter than when it was opened")

// RecoverFault, deferred by a goroutine that reads a mapped input, turns
// the panic of a fault into the error *err, naming the file; any other
// panic goes on.
func RecoverFault(name string, err *error) {
	r := recover()
	if r == nil {
		return
	}
	if IsFault(r) {
		*err = &errs.FormatError{File: name, Err: ErrFileShrank}
		return
	}
	panic(r)
}

// IsFault tells whether the value of a panic is that of a memory fault
// (runtime.Error with the faulting address).
func IsFault(r any) bool {
	_, ok := r.(interface{ Addr() uintptr })
	return ok
}
