package pjdump

import (
	"errors"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/paje"
)

// ErrorOutput returns what pj_dump (PajeNG 1.3.6) writes on its standard
// output and standard error when it stops on the problem err reports, and
// false when err carries no such text (an error PajeNG would word
// differently, or one it does not detect). pj_dump then exits with status 1.
func ErrorOutput(err error) (stdout, stderr string, ok bool) {
	var pe *paje.Error
	if !errors.As(err, &pe) || pe.PajeNG == "" {
		return "", "", false
	}
	if strings.HasPrefix(pe.PajeNG, "This event definition is invalid:") {
		// pj_dump reports invalid definitions and exits without raising.
		return pe.PajeNG, "", true
	}
	return pe.PajeNG, "Error during the parsing of the input file\n", true
}
