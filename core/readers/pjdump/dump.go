package pjdump

import (
	"bufio"
	"io"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// dumpStyle selects which PajeNG's output to reproduce.
type dumpStyle uint8

const (
	// pajeNG136 is PajeNG 1.3.6, the pj_dump of Debian and Ubuntu: names are
	// printed without quotes, and of the entities that begin at the last
	// instant of the trace only the first of each type and container is
	// printed (pj_dump selects entities with a binary search on their start
	// that stops one past the end).
	pajeNG136 dumpStyle = iota
	// upstream is PajeNG's development version (the expected outputs of its
	// test suite): the names of containers and types keep the double quotes
	// the file wrote, and every entity is printed.
	upstream
)

// writeOptions select the output.
type writeOptions struct {
	Style dumpStyle
	// Precision is the number of decimals of the times and values of
	// entities, as pj_dump -l sets it: 0 keeps pj_dump's default of 6, and
	// a negative value asks for none (-l 0).
	Precision int
}

// MaxPrecision is the most decimals the writer prints (pj_dump -l): more
// than a double's 17 significant digits print only noise, and a precision
// of a million would make every number a megabyte.
const MaxPrecision = 30

// decimals is the precision the options ask for.
func (o writeOptions) decimals() int {
	switch {
	case o.Precision == 0:
		return 6
	case o.Precision < 0:
		return 0
	}
	return o.Precision
}

// writeFormat is the format's Write: the dump, after pj_dump -h's header when
// asked, or one of the hierarchies, with the options of
// Format.WriteOptions.
func writeFormat(w io.Writer, t *trace.Trace, v ingest.Values) error {
	opt := writeOptions{Precision: v.Int("precision")}
	switch p := opt.Precision; {
	case p < 0:
		return errs.Argument("precision", "must be a number of decimals, not %d", p)
	case p > MaxPrecision:
		return errs.Argument("precision", "must be a number of decimals from 0 to %d, not %d", MaxPrecision, p)
	case p == 0:
		opt.Precision = -1 // none: the zero of Options is the default
	}
	if v.String("style") == "upstream" {
		opt.Style = upstream
	}
	switch v.String("output") {
	case "entity_hierarchy":
		return writeEntityHierarchy(w, t, opt)
	case "type_hierarchy":
		return writeTypeHierarchy(w, t, opt)
	}
	if v.Bool("header") {
		if err := writeHeader(w, t); err != nil {
			return err
		}
	}
	return writeDump(w, t, opt)
}

// writeDump writes t as pj_dump does: each container's line, then the
// entities it holds, depth first.
func writeDump(w io.Writer, t *trace.Trace, opt writeOptions) error {
	x := newIndex(t, opt)
	// Once w fails (a full disk, a dump canceled by its writer), the
	// entities left are not formatted for nothing: each loop looks at
	// ew.err, set by the buffer's flushes (every 64 KiB written), every
	// 1,024 entities (a look per line cost 1 % more).
	ew := &errWriter{w: w}
	bw := bufio.NewWriterSize(ew, 1<<16)
	var line []byte
	end := t.End.Seconds()
	x.walk(func(c int32) {
		line = x.appendContainer(line[:0], c)
		bw.Write(line)
	}, func(c, ty int32) {
		e := x.ents[slot{c, ty}]
		if e == nil {
			return
		}
		switch t.Types[ty].Kind {
		case trace.KindState:
			lo, hi := x.window(len(e.states), func(i int) float64 { return t.States.At(int(e.states[i])).Start.Seconds() }, end)
			for k, i := range e.states[lo:hi] {
				if k%1024 == 0 && ew.err != nil {
					return
				}
				s := t.States.At(int(i))
				line = x.appendState(line[:0], &s)
				bw.Write(line)
			}
		case trace.KindVariable:
			lo, hi := x.window(len(e.variables), func(i int) float64 { return t.Variables.At(int(e.variables[i])).Start.Seconds() }, end)
			for k, i := range e.variables[lo:hi] {
				if k%1024 == 0 && ew.err != nil {
					return
				}
				line = x.appendVariable(line[:0], t.Variables.At(int(i)))
				bw.Write(line)
			}
		case trace.KindLink:
			// The links are read without their keys, which appendLink
			// copies from the column: no string made per link.
			lo, hi := x.window(len(e.links), func(i int) float64 { return t.Links.AtUnkeyed(int(e.links[i])).Start.Seconds() }, end)
			for k, i := range e.links[lo:hi] {
				if k%1024 == 0 && ew.err != nil {
					return
				}
				line = x.appendLink(line[:0], &t.Links, int(i))
				bw.Write(line)
			}
		case trace.KindEvent:
			lo, hi := x.window(len(e.events), func(i int) float64 { return t.Events.At(int(e.events[i])).Time.Seconds() }, end)
			for k, i := range e.events[lo:hi] {
				if k%1024 == 0 && ew.err != nil {
					return
				}
				line = x.appendEvent(line[:0], t.Events.At(int(i)))
				bw.Write(line)
			}
		}
	})
	return bw.Flush()
}

// errWriter keeps the first error of w's writes.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

// window returns the range of the n entities (in PajeNG's order, whose
// starts are given by start) that pj_dump prints for the time window from 0
// to end. PajeNG 1.3.6 takes std::lower_bound of both limits on the starts,
// steps one back from the first and one forward from the second; the order
// need not be sorted (links complete out of order), so the binary search is
// reproduced step by step.
func (x *index) window(n int, start func(int) float64, end float64) (int, int) {
	if x.opt.Style == upstream {
		return 0, n
	}
	lo := lowerBound(n, start, 0)
	hi := lowerBound(n, start, end)
	if lo > 0 {
		lo--
	}
	if hi < n {
		hi++
	}
	if lo > hi {
		return 0, 0
	}
	return lo, hi
}

// lowerBound is libstdc++'s std::lower_bound on n elements.
func lowerBound(n int, at func(int) float64, v float64) int {
	first, count := 0, n
	for count > 0 {
		half := count >> 1
		mid := first + half
		if at(mid) < v {
			first = mid + 1
			count -= half + 1
		} else {
			count = half
		}
	}
	return first
}

func (x *index) appendContainer(b []byte, id int32) []byte {
	var parent, typ string
	var start, end float64
	if id == 0 {
		// PajeNG's root starts at 0 and ends with the trace.
		parent, typ, start, end = "0", "0", 0, x.t.End.Seconds()
	} else {
		c := &x.t.Containers[id]
		parent, typ = x.containerName(c.Parent), x.typeName(c.Type)
		start, end = c.Start.Seconds(), c.End.Seconds()
	}
	b = append(b, "Container, "...)
	b = append(b, parent...)
	b = append(b, ", "...)
	b = append(b, typ...)
	b = append(b, ", "...)
	b = appendShortest(b, start)
	b = append(b, ", "...)
	b = appendShortest(b, end)
	b = append(b, ", "...)
	b = appendShortest(b, end-start)
	b = append(b, ", "...)
	b = append(b, x.containerName(id)...)
	return append(b, '\n')
}

// appendHead appends the columns every entity line starts with.
func (x *index) appendHead(b []byte, kind string, cont, typ int32) []byte {
	b = append(b, kind...)
	b = append(b, ", "...)
	b = append(b, x.containerName(cont)...)
	b = append(b, ", "...)
	b = append(b, x.typeName(typ)...)
	return append(b, ", "...)
}

// appendSpan appends start, end and duration.
func (x *index) appendSpan(b []byte, start, end trace.Time) []byte {
	s, e := start.Seconds(), end.Seconds()
	b = x.appendFixed(b, s)
	b = append(b, ", "...)
	b = x.appendFixed(b, e)
	b = append(b, ", "...)
	b = x.appendFixed(b, e-s)
	return append(b, ", "...)
}

// appendFixed appends v with the chosen number of decimals.
func (x *index) appendFixed(b []byte, v float64) []byte { return appendFixed(b, v, x.prec) }

func (x *index) appendState(b []byte, s *trace.State) []byte {
	b = x.appendHead(b, "State", s.Container, s.Type)
	b = x.appendSpan(b, s.Start, s.End)
	b = x.appendFixed(b, float64(s.Depth))
	b = append(b, ", "...)
	b = append(b, x.valueName(s.Value)...)
	return append(b, '\n')
}

func (x *index) appendVariable(b []byte, v trace.Variable) []byte {
	b = x.appendHead(b, "Variable", v.Container, v.Type)
	b = x.appendSpan(b, v.Start, v.End)
	b = x.appendFixed(b, v.Value)
	return append(b, '\n')
}

func (x *index) appendLink(b []byte, links *trace.LinkColumn, i int) []byte {
	l := links.AtUnkeyed(i)
	b = x.appendHead(b, "Link", l.Container, l.Type)
	b = x.appendSpan(b, l.Start, l.End)
	b = append(b, x.valueName(l.Value)...)
	b = append(b, ", "...)
	b = append(b, x.containerName(l.From)...)
	b = append(b, ", "...)
	b = append(b, x.containerName(l.To)...)
	b = append(b, ", "...)
	b = links.AppendKey(b, i)
	return append(b, '\n')
}

func (x *index) appendEvent(b []byte, e trace.Event) []byte {
	b = x.appendHead(b, "Event", e.Container, e.Type)
	b = x.appendFixed(b, e.Time.Seconds())
	b = append(b, ", "...)
	b = append(b, x.valueName(e.Value)...)
	return append(b, '\n')
}
