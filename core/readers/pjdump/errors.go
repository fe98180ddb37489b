package pjdump

import (
	"errors"
	"strings"
)

// pajeNGError is an error that knows what pj_dump (PajeNG 1.3.6) prints
// when it stops on the same problem: the Pajé reader's errors do. It is an
// interface so that the writer of pj_dump's text needs no Pajé reader.
type pajeNGError interface {
	error
	PajeNGOutput() string
}

// ErrorOutput returns what pj_dump (PajeNG 1.3.6) writes on its standard
// output and standard error when it stops on the problem err reports, and
// false when err carries no such text (an error PajeNG would word
// differently, or one it does not detect). pj_dump then exits with status 1.
func ErrorOutput(err error) (stdout, stderr string, ok bool) {
	var pe pajeNGError
	if !errors.As(err, &pe) || pe.PajeNGOutput() == "" {
		return "", "", false
	}
	text := pe.PajeNGOutput()
	if strings.HasPrefix(text, "This event definition is invalid:") {
		// pj_dump reports invalid definitions and exits without raising.
		return text, "", true
	}
	return text, "Error during the parsing of the input file\n", true
}
