package pybind

import (
	"bytes"
	"os"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/ingest"
)

type pjdumpOptions struct {
	Style     string `json:"style"`     // "pajeng" (1.3.6, the default) or "upstream"
	Header    bool   `json:"header"`    // pj_dump -h
	Precision *int   `json:"precision"` // pj_dump -l: decimals of entity times and values (default 6)
}

// Pjdump writes the trace as pj_dump does (the writer of the pjdump
// format) to the file at path, or returns the text if path is empty;
// options is a JSON object (pjdumpOptions).
func (t *Trace) Pjdump(path string, options string) (text string, err error) {
	defer guard(&err)
	var o pjdumpOptions
	if err := decodeOptions(options, &o); err != nil {
		return "", err
	}
	opt := ingest.Values{"header": o.Header}
	if o.Style != "" {
		opt["style"] = o.Style
	}
	if o.Precision != nil {
		opt["precision"] = *o.Precision
	}
	var b bytes.Buffer
	if err := formats.Write(&b, t.t, "pjdump", opt); err != nil {
		return "", err
	}
	if path == "" {
		return b.String(), nil
	}
	return "", os.WriteFile(path, b.Bytes(), 0o644)
}
