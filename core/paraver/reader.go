package paraver

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"unicode/utf8"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// View chooses the hierarchy records are placed in.
type View int

const (
	// ByThread places records on application > task > thread, Paraver's
	// process model.
	ByThread View = iota
	// ByCPU places them on node > CPU, Paraver's resource model, using the
	// CPU each record names.
	ByCPU
)

// ReadFile reads a whole Paraver trace, with its .pcf and .row when they
// exist, into memory, by thread.
func ReadFile(path string) (*trace.Trace, error) {
	t := trace.New(path)
	if err := Read(path, t, trace.ReadOptions{}); err != nil {
		return nil, err
	}
	return t, nil
}

// Read streams the Paraver trace at path (.prv, or .prv.gz) into sink by
// thread, naming things after the .pcf and .row next to it, if any.
func Read(path string, sink trace.Sink, opt trace.ReadOptions) error {
	return ReadView(path, ByThread, sink, opt)
}

// ReadView is Read with a choice of hierarchy.
func ReadView(path string, view View, sink trace.Sink, opt trace.ReadOptions) error {
	cfg, err := LoadConfig(ConfigPaths(path))
	if err != nil {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var total int64
	if st, err := f.Stat(); err == nil {
		total = st.Size()
	}
	return Decode(f, path, total, cfg, view, sink, opt)
}

// progressEvery is how many bytes pass between two progress reports and
// two looks at ReadOptions.Cancel.
const progressEvery = 1 << 20

// Decode reads a .prv trace, plain or gzip-compressed (recognised by its
// magic bytes), from r; name labels errors, total is the input size for
// progress reports (0 if unknown), cfg names things (nil names nothing).
// Records are streamed to sink as they are read.
func Decode(r io.Reader, name string, total int64, cfg *Config, view View, sink trace.Sink, opt trace.ReadOptions) error {
	counted := &countingReader{r: r}
	br := bufio.NewReaderSize(counted, 1<<20)
	magic, err := br.Peek(2)
	if err != nil && err != io.EOF {
		return &errs.FormatError{File: name, Err: err}
	}
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return &errs.FormatError{File: name, Err: err}
		}
		defer gz.Close()
		br = bufio.NewReaderSize(gz, 1<<20)
	}
	if cfg == nil {
		cfg = &Config{}
	}
	d := &decoder{file: name, cfg: cfg, view: view, sink: sink}
	var done, nextReport int64
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long := append([]byte(nil), line...)
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if err != nil && err != io.EOF {
			// A read error leaves a partial last line: report the error,
			// not that line.
			if err == io.ErrUnexpectedEOF {
				err = errTruncated
			}
			return &errs.FormatError{File: name, Line: d.line + 1, Offset: done, Err: err}
		}
		if len(line) > 0 {
			done += int64(len(line))
			d.line++
			if perr := d.parseLine(line); perr != nil {
				return perr
			}
			if counted.n >= nextReport {
				if err := opt.Canceled(); err != nil {
					return err
				}
				if opt.Progress != nil {
					opt.Progress(counted.n, total)
				}
				nextReport = counted.n + progressEvery
			}
		}
		if err == io.EOF {
			break
		}
	}
	if err := d.finish(); err != nil {
		return err
	}
	if opt.Progress != nil {
		opt.Progress(counted.n, total)
	}
	return nil
}

var errTruncated = errors.New("compressed data is truncated")

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (d *decoder) parseLine(line []byte) error {
	line = bytes.TrimRight(line, "\r\n")
	if d.head == nil {
		return d.parseHeaderLine(line)
	}
	if len(line) == 0 || line[0] == '#' {
		return nil
	}
	return d.record(line)
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
	return d.start()
}
