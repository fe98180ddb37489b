package chrome

import (
	"fmt"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// readSystemObject reads systemTraceEvents written as an object, the form
// of Fuchsia's trace2json: {"type": "fuchsia", "events": [...]}, whose
// events describe processes (ph "p": pid and name), threads (ph "t": pid,
// tid and name), context switches (ph "k") and wake-ups (ph "w"). As in
// the trace viewer's Fuchsia importer, processes and threads are created
// and named by them (a name from a metadata event of traceEvents takes
// precedence); context switches and wake-ups, scheduling records of the
// CPUs, are not modelled and are counted. Other keys are checked for
// syntax and ignored; an events value that is not an array is counted.
func (d *decoder) readSystemObject() error {
	s := d.sc
	s.pos++ // '{'
	if s.closesAfterComma('}') {
		return nil
	}
	for {
		key, err := s.str()
		if err != nil {
			return err
		}
		isEvents := string(key) == "events"
		if err := s.expect(':', "systemTraceEvents"); err != nil {
			return err
		}
		if c, ok := s.peek(); isEvents && ok && c == '[' {
			err = d.readSystemEvents()
		} else {
			if isEvents {
				d.col.notes.skip("systemTraceEvents events values that are not arrays", 1)
			}
			err = s.skip(1)
		}
		if err != nil {
			return err
		}
		c, ok := s.peek()
		if !ok {
			return s.failEnd("systemTraceEvents")
		}
		s.pos++
		if c == '}' {
			return nil
		}
		if c != ',' {
			s.pos--
			return s.fail("expected ',' or '}' in systemTraceEvents, found %s", describe(c))
		}
		if s.closesAfterComma('}') {
			return nil
		}
	}
}

// readSystemEvents reads the events array of Fuchsia's systemTraceEvents.
func (d *decoder) readSystemEvents() error {
	s := d.sc
	s.pos++ // '['
	if s.closesAfterComma(']') {
		return nil
	}
	e := &d.ev
	for {
		c, ok := s.peek()
		if !ok {
			return s.failEnd("systemTraceEvents")
		}
		if c != '{' {
			d.col.notes.skip("systemTraceEvents entries that are not objects", 1)
			if err := s.skip(1); err != nil {
				return err
			}
		} else {
			if err := d.readEvent(e); err != nil {
				return err
			}
			d.col.addSystem(e)
		}
		c, ok = s.peek()
		if !ok {
			return s.failEnd("systemTraceEvents")
		}
		s.pos++
		if c == ']' {
			return nil
		}
		if c != ',' {
			s.pos--
			return s.fail("expected ',' or ']' in systemTraceEvents, found %s", describe(c))
		}
		if s.closesAfterComma(']') {
			return nil
		}
	}
}

// addSystem applies one Fuchsia system event (see readSystemObject).
func (c *collector) addSystem(e *rawEvent) {
	switch {
	case e.ph == 'p' && e.pid != none:
		p := &c.procs[c.process(e.pid)]
		if p.name == none {
			p.name = e.name
		}
	case e.ph == 't' && e.pid != none && e.tid != none:
		t := &c.threads[c.thread(e.pid, e.tid)]
		if t.name == none {
			t.name = e.name
		}
	case e.ph == 'k':
		c.notes.skip("Fuchsia context switches (systemTraceEvents ph k)", 1)
	case e.ph == 'w':
		c.notes.skip("Fuchsia wake-ups (systemTraceEvents ph w)", 1)
	default:
		what := "without ph"
		if e.ph != 0 {
			what = fmt.Sprintf("of phase %q", e.ph)
		} else if e.badPh != none {
			what = fmt.Sprintf("of phase %s", errs.Quote(c.strs.str(e.badPh)))
		}
		c.notes.skip("systemTraceEvents entries "+what+" (not modelled)", 1)
	}
}
