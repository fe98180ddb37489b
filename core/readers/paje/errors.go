package paje

import (
	"fmt"
	"strings"
)

// Error is a problem found in a Pajé trace: a malformed line, or an event
// that PajeNG's simulation refuses. Readers return it wrapped in an
// *errs.FormatError that locates it.
type Error struct {
	Msg string
	// PajeNG is the text pj_dump (PajeNG 1.3.6) writes on its standard
	// output when it meets the same problem, ending with a newline, or ""
	// where the text is not reproduced.
	PajeNG string
}

func (e *Error) Error() string { return e.Msg }

// PajeNGStreams returns what pj_dump (PajeNG 1.3.6) writes on its
// standard output and standard error when it stops on this problem,
// before it exits with status 1, so that a command emulating pj_dump can
// repeat it; ok is false where the text is not reproduced (PajeNG words
// the problem otherwise, or does not detect it).
func (e *Error) PajeNGStreams() (stdout, stderr string, ok bool) {
	switch {
	case e.PajeNG == "":
		return "", "", false
	case strings.HasPrefix(e.PajeNG, "This event definition is invalid:"):
		// pj_dump reports invalid definitions and exits without raising.
		return e.PajeNG, "", true
	}
	return e.PajeNG, "Error during the parsing of the input file\n", true
}

// eventText formats the event line the way PajeNG quotes it in its
// messages: the fields joined by single blanks, without quotes.
func eventText(fields [][]byte) string {
	var b strings.Builder
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.Write(f)
	}
	return b.String()
}

// simulationError builds an Error for an event refused by the simulation;
// class is the name of the PajeNG exception that reports it.
func simulationError(class, msg string, line int, fields [][]byte) *Error {
	return &Error{
		Msg: msg,
		PajeNG: fmt.Sprintf("%s: %s in (Line: %d, Fields: '%d, Contents: '%s')\n",
			class, msg, line, len(fields), eventText(fields)),
	}
}

// decodeError builds an Error for a line PajeNG's decoder refuses.
func decodeError(msg string, line int, fields [][]byte) *Error {
	return &Error{
		Msg: msg,
		PajeNG: fmt.Sprintf("PajeDecodeException: %s in (Line: %d, Fields: %d, Contents: '%s')\n",
			msg, line, len(fields), eventText(fields)),
	}
}
