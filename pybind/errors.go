package pybind

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"runtime/debug"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// errorPrefix starts every error message that crosses to Python. gopy
// raises RuntimeError with the message; the Python layer recognises the
// prefix, decodes the JSON after it and raises the matching exception
// class with the file, line and cause as attributes.
const errorPrefix = "macroscope-error:"

// bridgeError is the JSON form of an error.
type bridgeError struct {
	Kind    string `json:"kind"` // format, argument, empty, not_found, io, internal
	Message string `json:"message"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Offset  *int64 `json:"offset,omitempty"` // set when known, 0 included
	Cause   string `json:"cause,omitempty"`
	Param   string `json:"param,omitempty"`
}

func encode(err error) error {
	if err == nil {
		return nil
	}
	be := bridgeError{Kind: "io", Message: errs.Cap(err.Error())}
	var fe *errs.FormatError
	var ae *errs.ArgumentError
	var ee *errs.EmptyError
	var pe *fs.PathError
	var panicked *panicError
	switch {
	case errors.As(err, &panicked):
		be.Kind, be.Message, be.Cause = "internal", "internal error: "+fmt.Sprint(panicked.value), string(panicked.stack)
	case errors.As(err, &fe):
		be.Kind, be.File, be.Line, be.Cause = "format", fe.File, fe.Line, errs.Cap(fe.Err.Error())
		if fe.HasOffset() {
			be.Offset = &fe.Offset
		}
	case errors.As(err, &ae):
		be.Kind, be.Param, be.Cause = "argument", ae.Name, errs.Cap(ae.Reason)
	case errors.As(err, &ee):
		be.Kind, be.File, be.Cause = "empty", ee.File, errs.Cap(ee.Reason)
	case errors.Is(err, fs.ErrNotExist) && errors.As(err, &pe):
		be.Kind, be.File, be.Cause = "not_found", pe.Path, pe.Err.Error()
	case errors.As(err, &pe):
		be.File, be.Cause = pe.Path, pe.Err.Error()
	}
	b, _ := json.Marshal(be)
	return errors.New(errorPrefix + string(b))
}

// panicError is a panic recovered on a goroutine of the facade (see
// Reading), carried to the call that reports it.
type panicError struct {
	value any
	stack []byte
}

func (e *panicError) Error() string { return fmt.Sprintf("internal error: %v", e.value) }

// guard turns a panic into an internal error and encodes *err. Every
// exported function defers it: a Go panic would otherwise abort the
// Python process, and with it the user's Jupyter kernel.
func guard(err *error) {
	if r := recover(); r != nil {
		be := bridgeError{Kind: "internal", Message: fmt.Sprintf("internal error: %v", r), Cause: string(debug.Stack())}
		b, _ := json.Marshal(be)
		*err = errors.New(errorPrefix + string(b))
		return
	}
	*err = encode(*err)
}
