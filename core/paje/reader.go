// Package paje reads traces in the Pajé format (the text format of PajeNG,
// SimGrid, StarPU and Akypuera) and streams them into a trace.Sink with
// PajeNG's semantics.
package paje

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"unicode/utf8"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// ReadFile reads a whole Pajé trace into memory.
func ReadFile(path string) (*trace.Trace, error) {
	t := trace.New(path)
	if err := Read(path, t, trace.ReadOptions{}); err != nil {
		return nil, err
	}
	return t, nil
}

// Read streams the Pajé trace at path into sink.
func Read(path string, sink trace.Sink, opt trace.ReadOptions) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var total int64
	if st, err := f.Stat(); err == nil {
		total = st.Size()
	}
	return Decode(f, path, total, sink, opt)
}

// progressEvery is how many bytes pass between two progress reports.
const progressEvery = 4 << 20

// Decode reads a Pajé trace from r; name labels errors, total is the input
// size for progress reports (0 if unknown).
func Decode(r io.Reader, name string, total int64, sink trace.Sink, opt trace.ReadOptions) error {
	d := decoder{file: name, defs: map[string]*eventDef{}, sim: newSimulator(name, sink)}
	br := bufio.NewReaderSize(r, 1<<20)
	var done, nextReport int64
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A line longer than the buffer: collect it whole.
			long := append([]byte(nil), line...)
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if len(line) > 0 {
			done += int64(len(line))
			d.line++
			if perr := d.parseLine(line); perr != nil {
				return perr
			}
			if opt.Progress != nil && done >= nextReport {
				opt.Progress(done, total)
				nextReport = done + progressEvery
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return &errs.FormatError{File: name, Line: d.line, Offset: done, Err: err}
		}
	}
	if d.open != nil {
		return errs.Format(name, d.open.line, "%%EventDef %s is never closed by %%EndEventDef", d.open.name)
	}
	if err := d.sim.finish(); err != nil {
		return err
	}
	if opt.Progress != nil {
		opt.Progress(done, total)
	}
	return nil
}

type decoder struct {
	file   string
	line   int
	defs   map[string]*eventDef // by event id
	open   *eventDef            // definition being read
	openID string
	fields [][]byte
	sim    *simulator
}

func (d *decoder) fail(format string, args ...any) error {
	return errs.Format(d.file, d.line, format, args...)
}

func (d *decoder) parseLine(line []byte) error {
	line = bytes.TrimRight(line, "\r\n")
	trimmed := bytes.TrimLeft(line, " \t")
	if len(trimmed) == 0 || trimmed[0] == '#' {
		return nil
	}
	if !utf8.Valid(line) {
		return d.fail("line is not valid UTF-8")
	}
	if trimmed[0] == '%' {
		return d.parseHeader(trimmed[1:])
	}
	if d.open != nil {
		return d.fail("event line inside the definition of %s, before %%EndEventDef", d.open.name)
	}
	var err error
	d.fields, err = splitFields(line, d.fields)
	if err != nil {
		return d.fail("%v", err)
	}
	def := d.defs[string(d.fields[0])]
	if def == nil {
		return d.fail("unknown event id %q (no %%EventDef defines it)", d.fields[0])
	}
	values := d.fields[1:]
	if len(values) != len(def.roles) {
		return d.fail("event %s (%s) has %d fields, its definition on line %d has %d",
			d.fields[0], def.name, len(values), def.line, len(def.roles))
	}
	if err := d.sim.event(def, values, d.line); err != nil {
		return err
	}
	return nil
}

func (d *decoder) parseHeader(rest []byte) error {
	words := bytes.Fields(rest)
	switch {
	case len(words) > 0 && string(words[0]) == "EventDef":
		if d.open != nil {
			return d.fail("%%EventDef inside the definition of %s", d.open.name)
		}
		if len(words) != 3 {
			return d.fail("%%EventDef needs an event name and an id")
		}
		def, err := newEventDef(string(words[1]), d.line)
		if err != nil {
			return d.fail("%v", err)
		}
		id := string(words[2])
		if _, dup := d.defs[id]; dup {
			return d.fail("event id %s is defined twice", id)
		}
		d.open, d.openID = def, id
	case len(words) > 0 && string(words[0]) == "EndEventDef":
		if d.open == nil {
			return d.fail("%%EndEventDef without %%EventDef")
		}
		if err := d.open.finish(); err != nil {
			return d.fail("%v", err)
		}
		d.defs[d.openID] = d.open
		d.open = nil
	default:
		if d.open == nil {
			return d.fail("field definition outside %%EventDef")
		}
		if len(words) != 2 {
			return d.fail("a field definition is %% Name type")
		}
		if err := d.open.addField(string(words[0]), string(words[1])); err != nil {
			return d.fail("%v", err)
		}
	}
	return nil
}

// parseDate reads a Time field.
func parseDate(b []byte) (trace.Time, error) {
	t, err := trace.ParseTime(string(b))
	if err != nil {
		return 0, fmt.Errorf("bad time %q: %w", b, err)
	}
	return t, nil
}

func parseDouble(b []byte) (float64, error) {
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) {
			err = ne.Err
		}
		return 0, fmt.Errorf("bad number %q: %w", b, err)
	}
	return v, nil
}
