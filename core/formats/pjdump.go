package formats

import (
	"errors"
	"io"

	"github.com/macroscope-hpc/macroscope/core/readers/paje"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// A command that emulates PajeNG's pj_dump reads a Pajé trace as pj_dump
// reads it (DecodePajeNG), writes it in the pjdump format (Write), and
// stops on the problems pj_dump stops on with pj_dump's words
// (PajeNGOutput).

// PajeNGFlags are the flags of pj_dump (PajeNG 1.3.6) that change how it
// reads a Pajé trace.
type PajeNGFlags struct {
	// NoStrict accepts the field names of the original Pajé dialect
	// (ContainerType, EntityType...): pj_dump --no-strict.
	NoStrict bool
	// NoImbrication flattens nested states, PushState ending the state it
	// covers and PopState starting it again: pj_dump --no-imbrication.
	NoImbrication bool
	// IgnoreIncompleteLinks drops the links that never get both ends
	// instead of failing: pj_dump --ignore-incomplete-links.
	IgnoreIncompleteLinks bool
	// Read are the read's options: its cancel channel, and what the
	// reader holds weighed against a memory budget (Hold).
	Read trace.ReadOptions
}

// DecodePajeNG reads the Pajé trace in r into sink as pj_dump reads it
// with flags: refusing what it refuses, rounding variables to single
// precision, its dates in seconds. name labels errors; size is r's, for
// progress reports (0 if unknown).
func DecodePajeNG(r io.Reader, name string, size int64, sink trace.Sink, flags PajeNGFlags) error {
	opt := paje.PajeNG()
	opt.ReadOptions = flags.Read
	opt.Strict = !flags.NoStrict
	opt.NoImbrication = flags.NoImbrication
	opt.IgnoreIncompleteLinks = flags.IgnoreIncompleteLinks
	return paje.Decode(r, name, size, sink, opt)
}

// PajeNGOutput returns what pj_dump writes on its standard output and
// standard error when it stops on the problem err reports (an error of
// DecodePajeNG), before it exits with status 1; ok is false when err
// carries no such text (PajeNG words the problem otherwise, or does not
// detect it).
func PajeNGOutput(err error) (stdout, stderr string, ok bool) {
	var pe *paje.Error
	if !errors.As(err, &pe) {
		return "", "", false
	}
	return pe.PajeNGStreams()
}
