package pybind

import (
	"bytes"
	"io"
	"os"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
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
	return t.pjdump(path, options, nil)
}

// StartPjdump starts Pjdump as a Work whose JSON is the text (empty when
// written to path), so that Ctrl-C stops the dump of a large trace: the
// file is written only once the whole text is.
func (t *Trace) StartPjdump(path string, options string) (w *Work, err error) {
	defer guard(&err)
	if err := decodeOptions(options, &pjdumpOptions{}); err != nil {
		return nil, err // before the work: a wrong option is no interruption
	}
	var text string
	w = startWork(func(ctl *aggregate.Control) error {
		var err error
		text, err = t.pjdump(path, options, ctl.Cancel)
		return err
	})
	w.result = func() any { return text }
	return w, nil
}

// stoppingWriter is a writer that fails with
// trace.ErrComputationCanceled once cancel is closed, looked at every
// stopEveryBytes written: a writer of a format stops at its next write.
type stoppingWriter struct {
	w       io.Writer
	cancel  <-chan struct{}
	written int
}

const stopEveryBytes = 1 << 16

func (s *stoppingWriter) Write(p []byte) (int, error) {
	if s.written += len(p); s.written >= stopEveryBytes {
		s.written = 0
		if err := trace.Stopped(s.cancel); err != nil {
			return 0, err
		}
	}
	return s.w.Write(p)
}

func (t *Trace) pjdump(path string, options string, cancel <-chan struct{}) (string, error) {
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
	var out io.Writer = &b
	if cancel != nil {
		out = &stoppingWriter{w: &b, cancel: cancel, written: stopEveryBytes} // looks at the first write
	}
	if err := formats.Write(out, t.t, "pjdump", opt); err != nil {
		return "", err
	}
	if err := trace.Stopped(cancel); err != nil {
		return "", err
	}
	if path == "" {
		return b.String(), nil
	}
	return "", os.WriteFile(path, b.Bytes(), 0o644)
}
