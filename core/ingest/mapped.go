package ingest

import (
	"errors"
	"io"
	"os"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
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

// MapPlain maps f if it is a plain (uncompressed) regular file of at
// least minSize bytes, read from its start; ok is false otherwise, and f
// is then read.
func MapPlain(f *os.File, minSize int64) (data []byte, unmap func(), ok bool) {
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() < minSize {
		return nil, nil, false
	}
	if at, err := f.Seek(0, io.SeekCurrent); err != nil || at != 0 {
		return nil, nil, false
	}
	data, unmap, ok = MapFile(f, st.Size())
	if ok && Sniff(data[:min(len(data), 4)]) != Plain {
		unmap()
		return nil, nil, false
	}
	return data, unmap, ok
}

// ExplainShrank, deferred by a reader of data, the file f mapped (named
// name), makes *err ErrFileShrank when the file is now shorter than data:
// a file cut short may show zeros past its new end, up to the end of that
// page, before the fault, and the error they caused would not say why.
func ExplainShrank(f *os.File, data []byte, name string, err *error) {
	if *err == nil || errors.Is(*err, ErrFileShrank) || errors.Is(*err, trace.ErrCanceled) {
		return
	}
	if st, serr := f.Stat(); serr == nil && st.Size() < int64(len(data)) {
		*err = &errs.FormatError{File: name, Err: ErrFileShrank}
	}
}
