package paraver

import (
	"io"
	"unicode/utf8"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/readers/textlines"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// viewKind chooses the hierarchy records are placed in.
type viewKind int

const (
	// threadView places records on application > task > thread, Paraver's
	// process model.
	threadView viewKind = iota
	// cpuView places them on node > CPU, Paraver's resource model, using the
	// CPU each record names.
	cpuView
)

// readFile reads a whole Paraver trace, with its .pcf and .row when they
// exist, into memory, by thread.
func readFile(path string) (*trace.Trace, error) {
	return trace.Load(path, Read)
}

// Read streams the Paraver trace at path (.prv, or compressed: .prv.gz,
// .prv.bz2, .prv.zst) into sink by
// thread, naming things after the .pcf and .row next to it, if any.
func Read(path string, sink trace.Sink, opt trace.ReadOptions) error {
	return readView(path, threadView, sink, opt)
}

// readView is Read with a choice of hierarchy.
func readView(path string, view viewKind, sink trace.Sink, opt trace.ReadOptions) error {
	return readWith(path, options{View: view}, sink, opt)
}

// options tune the reader beyond trace.ReadOptions.
type options struct {
	View viewKind
	// MaxDecompressed bounds what a compressed .prv (gzip, bzip2, zstd)
	// may expand to: 0 means ingest.DefaultMaxDecompressed, a negative
	// value no limit.
	MaxDecompressed int64
}

// readWith is Read with options.
func readWith(path string, o options, sink trace.Sink, opt trace.ReadOptions) error {
	cfg, err := loadConfig(configPaths(path))
	if err != nil {
		return err
	}
	f, err := ingest.OpenFile(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var total int64
	if st, err := f.Stat(); err == nil {
		total = st.Size()
	}
	return decodeInput(f, textlines.Input{Name: path, Total: total, MaxDecompressed: o.MaxDecompressed, Map: true}, cfg, o.View, sink, opt)
}

// decodeStream reads a .prv trace, plain or compressed (gzip, bzip2, zstd,
// recognised by their magic bytes), from r; name labels errors, total is
// the input size for progress reports (0 if unknown), cfg names things
// (nil names nothing). Records are streamed to sink as they are read.
func decodeStream(r io.Reader, name string, total int64, cfg *config, view viewKind, sink trace.Sink, opt trace.ReadOptions) error {
	return decodeInput(r, textlines.Input{Name: name, Total: total}, cfg, view, sink, opt)
}

func decodeInput(r io.Reader, in textlines.Input, cfg *config, view viewKind, sink trace.Sink, opt trace.ReadOptions) error {
	if cfg == nil {
		cfg = &config{}
	}
	d := &decoder{file: in.Name, cfg: cfg, view: view, sink: sink, opt: opt}
	cfg.noteRemarks(opt)
	_, err := textlines.Scan(r, in, opt, func(line []byte, n int) error {
		d.line = n
		return d.parseLine(line)
	})
	if err != nil {
		return err
	}
	return d.finish()
}

func (d *decoder) parseLine(line []byte) error {
	// Writers end every line; a last line without its end was cut.
	d.cut = len(line) > 0 && line[len(line)-1] != '\n'
	line = trimEOL(line)
	if d.head == nil {
		return d.parseHeaderLine(line)
	}
	if len(line) == 0 || line[0] == '#' {
		return nil
	}
	if err := d.record(line); err != nil {
		return d.skipRecord(line, err)
	}
	return nil
}

func (d *decoder) parseHeaderLine(line []byte) error {
	if !utf8.Valid(line) {
		return d.fail("line is not valid UTF-8")
	}
	if string(line) == "new format" { // a marker some writers put first
		return nil
	}
	h, err := parseHeader(string(line))
	if err != nil {
		return d.fail("%v", err)
	}
	d.head = h
	if h.unknownUnit != "" {
		d.opt.Warn("unknown time unit %s in the header: times are read as microseconds, as Paraver reads them", errs.Quote(h.unknownUnit))
	}
	for _, junk := range h.skipped {
		d.opt.Warn("%s:1: %s between an application's number of tasks and its '(' in the header: skipped, as Paraver skips it", d.file, errs.Quote(junk))
	}
	return d.start()
}

// trimEOL cuts the '\r' and '\n' bytes that end a line, as
// bytes.TrimRight(line, "\r\n") does, without its search of a set.
func trimEOL(line []byte) []byte {
	n := len(line)
	for n > 0 && (line[n-1] == '\n' || line[n-1] == '\r') {
		n--
	}
	return line[:n]
}
