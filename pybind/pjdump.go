package pybind

import (
	"bytes"
	"os"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/readers/pjdump"
)

type pjdumpOptions struct {
	Style     string `json:"style"`     // "pajeng" (1.3.6, the default) or "upstream"
	Header    bool   `json:"header"`    // pj_dump -h
	Precision *int   `json:"precision"` // pj_dump -l: decimals of entity times and values (default 6)
}

// Pjdump writes the trace as pj_dump does to the file at path, or returns
// the text if path is empty; options is a JSON object (pjdumpOptions).
func (t *Trace) Pjdump(path string, options string) (text string, err error) {
	defer guard(&err)
	var o pjdumpOptions
	if err := decodeOptions(options, &o); err != nil {
		return "", err
	}
	var opt pjdump.Options
	switch o.Style {
	case "", "pajeng":
	case "upstream":
		opt.Style = pjdump.Upstream
	default:
		return "", errs.Argument("style", "%q is not a style (pajeng or upstream)", o.Style)
	}
	if p := o.Precision; p != nil {
		switch {
		case *p < 0:
			return "", errs.Argument("precision", "must be a number of decimals, not %d", *p)
		case *p == 0:
			opt.Precision = -1 // none (pjdump.Options' zero is the default)
		default:
			opt.Precision = *p
		}
	}
	var b bytes.Buffer
	if o.Header {
		if err := pjdump.WriteHeader(&b, t.t); err != nil {
			return "", err
		}
	}
	if err := pjdump.Write(&b, t.t, opt); err != nil {
		return "", err
	}
	if path == "" {
		return b.String(), nil
	}
	return "", os.WriteFile(path, b.Bytes(), 0o644)
}
