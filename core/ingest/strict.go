package ingest

import (
	"fmt"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// StrictOption is the option every reader takes (see CommonOptions): an
// incomplete trace fails the read instead of coming back marked
// incomplete. Readers that declare a "strict" option of their own (Pajé:
// read as pj_dump does; rocprof: fail on unreadable rows) get the same
// value, so that strict=True refuses whatever the reader would otherwise
// tolerate.
var StrictOption = Option{
	Name: "strict", Kind: Bool, Default: false,
	Doc: "fail (a format error naming the file) when the trace is incomplete (a cut last record, a missing or empty part) instead of returning it marked incomplete",
}

// CommonOptions are the options every reader takes besides its own.
var CommonOptions = []Option{StrictOption}

// AllOptions returns the reader's options followed by the common ones it
// does not declare itself.
func (f Format) AllOptions() []Option {
	out := append([]Option(nil), f.Options...)
	for _, c := range CommonOptions {
		own := false
		for _, o := range f.Options {
			own = own || o.Name == c.Name
		}
		if !own {
			out = append(out, c)
		}
	}
	return out
}

// Strict wraps src's Read so that a read with ReadOptions.Strict, or of
// a source opened with strict (the option), fails with a FormatError
// naming file and the reasons once the reader has recorded the trace as
// incomplete. It is the one place strictness is enforced: readers only
// record what is missing (ReadOptions.Incomplete).
func Strict(src *Source, file string, strict bool) *Source {
	out := *src
	read := src.Read
	out.Read = func(sink trace.Sink, ro trace.ReadOptions) error {
		ro.Strict = ro.Strict || strict
		if ro.Strict && ro.Notes == nil {
			ro.Notes = &trace.Notes{}
		}
		if err := read(sink, ro); err != nil {
			return err
		}
		return CheckComplete(file, ro)
	}
	return &out
}

// CheckComplete returns the error of a strict read whose notes say the
// trace is incomplete, nil otherwise.
func CheckComplete(file string, ro trace.ReadOptions) error {
	if !ro.Strict {
		return nil
	}
	if reasons := ro.Notes.IncompleteReasons(); len(reasons) > 0 {
		return &errs.FormatError{File: file, Err: fmt.Errorf("the trace is incomplete (strict read): %s", strings.Join(reasons, "; "))}
	}
	return nil
}
