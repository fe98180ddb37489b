package chrome

import (
	"fmt"
	"math"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The collector keeps what the trace's entities need until the end of the
// input, because events come in no particular order and metadata naming
// and ordering the containers may come last. Each record is a few
// fixed-size fields with strings interned: 32 bytes per slice or counter
// sample, 24 per begin/end event or instant, 48 per flow point.

type process struct {
	key          int32 // pid, interned text
	name, labels int32
	sortIndex    int64
	hasSortIndex bool
	threads      []int32
}

type thread struct {
	proc         int32
	key          int32 // tid, interned text
	name         int32
	sortIndex    int64
	hasSortIndex bool
	slices       []slice
	marks        []mark
	lanes        int32 // containers the slices need: 1 + overlap lanes
}

// slice is a complete slice (X, or a matched B/E pair). depth and lane are
// set once the thread's slices are sorted.
type slice struct {
	start, end trace.Time
	name       int32
	seq        int32
	depth      int32
	lane       int32
}

// mark is a B or E event, matched into slices once the input is read.
type mark struct {
	ts    trace.Time
	seq   int32
	line  int32
	name  int32
	begin bool
}

// instant is an instant event on a thread, a process or the whole trace.
type instant struct {
	ts    trace.Time
	seq   int32
	owner int32 // thread or process index; unused for global instants
	name  int32
	scope byte
}

// sample is one value of one counter series.
type sample struct {
	ts    trace.Time
	value float64
	seq   int32
	proc  int32
	typ   int32 // index into collector.counterTypes
}

// flowPoint is an s, t or f event. The flow it belongs to is the key
// (cat, id, and pid when the id is process-local).
type flowPoint struct {
	ts        trace.Time
	cat, id   int32
	scope     int32 // pid for a local id, none otherwise
	seq       int32
	thread    int32
	name      int32
	phase     byte
	enclosing bool // binds to the enclosing slice (always, except f without bp "e")

	// Set by the binding: the lane the point attaches to and the time
	// its link starts or ends at.
	lane int32
	at   trace.Time
}

type counterKey struct{ name, key int32 }

type collector struct {
	strs        *interner
	procs       []process
	procByKey   map[int32]int32
	threads     []thread
	threadByKey map[[2]int32]int32

	instants     []instant
	samples      []sample
	counterTypes []counterKey
	counterByKey map[counterKey]int32
	flows        []flowPoint

	seq         int32
	first, last trace.Time
	timed       bool
}

func newCollector() *collector {
	return &collector{
		strs:         newInterner(),
		procByKey:    map[int32]int32{},
		threadByKey:  map[[2]int32]int32{},
		counterByKey: map[counterKey]int32{},
	}
}

func (c *collector) process(pid int32) int32 {
	if p, ok := c.procByKey[pid]; ok {
		return p
	}
	p := int32(len(c.procs))
	c.procs = append(c.procs, process{key: pid, name: none, labels: none})
	c.procByKey[pid] = p
	return p
}

func (c *collector) thread(pid, tid int32) int32 {
	if t, ok := c.threadByKey[[2]int32{pid, tid}]; ok {
		return t
	}
	p := c.process(pid)
	t := int32(len(c.threads))
	c.threads = append(c.threads, thread{proc: p, key: tid, name: none})
	c.threadByKey[[2]int32{pid, tid}] = t
	c.procs[p].threads = append(c.procs[p].threads, t)
	return t
}

func (c *collector) see(t trace.Time) {
	if !c.timed {
		c.first, c.last, c.timed = t, t, true
		return
	}
	c.first = min(c.first, t)
	c.last = max(c.last, t)
}

// add records one event.
func (c *collector) add(file string, e *rawEvent) error {
	fail := func(format string, args ...any) error {
		return &errs.FormatError{File: file, Line: e.line, Offset: e.offset, Err: fmt.Errorf(format, args...)}
	}
	if c.seq == math.MaxInt32 || e.line > math.MaxInt32 {
		return fail("too many events")
	}
	c.seq++
	need := func(pid, tid, ts bool) error {
		switch {
		case pid && e.pid == none:
			return fail("event with %s has no pid", phaseName(e.ph))
		case tid && e.tid == none:
			return fail("event with %s has no tid", phaseName(e.ph))
		case ts && !e.hasTs:
			return fail("event with %s has no ts", phaseName(e.ph))
		}
		return nil
	}
	switch e.ph {
	case 'X':
		if err := need(true, true, true); err != nil {
			return err
		}
		if !e.hasDur {
			return fail("complete event (ph X) %q has no dur", c.strs.str(e.name))
		}
		if e.dur < 0 {
			return fail("complete event %q has a negative dur", c.strs.str(e.name))
		}
		end := e.ts + e.dur
		if end < e.ts {
			return fail("complete event %q ends beyond the time range", c.strs.str(e.name))
		}
		t := &c.threads[c.thread(e.pid, e.tid)]
		t.slices = append(t.slices, slice{start: e.ts, end: end, name: e.name, seq: c.seq})
		c.see(e.ts)
		c.see(end)
	case 'B', 'E':
		if err := need(true, true, true); err != nil {
			return err
		}
		t := &c.threads[c.thread(e.pid, e.tid)]
		t.marks = append(t.marks, mark{ts: e.ts, seq: c.seq, line: int32(e.line), name: e.name, begin: e.ph == 'B'})
		c.see(e.ts)
	case 'i', 'I', 'n', 'R':
		return c.addInstant(e, need, fail)
	case 'C':
		if err := need(true, false, true); err != nil {
			return err
		}
		c.addCounter(e)
	case 's', 't', 'f':
		if err := need(true, true, true); err != nil {
			return err
		}
		if e.id == none {
			return fail("flow event (%s) has no id", phaseName(e.ph))
		}
		scope := none
		if e.idLocal {
			scope = e.pid
		}
		c.flows = append(c.flows, flowPoint{ts: e.ts, cat: e.cat, id: e.id, scope: scope, seq: c.seq,
			thread: c.thread(e.pid, e.tid), name: e.name, phase: e.ph,
			enclosing: e.ph != 'f' || e.bindEnclosing})
		c.see(e.ts)
	case 'M':
		return c.addMetadata(e, fail)
	default:
		return fail("events with %s are not supported (only X, B, E, i, I, n, R, C, s, t, f and M are)", phaseName(e.ph))
	}
	return nil
}

func (c *collector) addInstant(e *rawEvent, need func(pid, tid, ts bool) error, fail func(string, ...any) error) error {
	scope := e.scope
	if scope == 0 || e.ph == 'n' {
		scope = 't'
	}
	if err := need(scope != 'g', scope == 't', true); err != nil {
		return err
	}
	in := instant{ts: e.ts, seq: c.seq, name: e.name, scope: scope}
	switch scope {
	case 't':
		in.owner = c.thread(e.pid, e.tid)
	case 'p':
		in.owner = c.process(e.pid)
	}
	c.instants = append(c.instants, in)
	c.see(e.ts)
	return nil
}

// addCounter records the series of a counter event. A counter with an id
// is a distinct counter, as in the trace viewers.
func (c *collector) addCounter(e *rawEvent) {
	name := e.name
	if e.id != none {
		name = c.strs.id([]byte(c.strs.str(e.name) + " id: " + c.strs.str(e.id)))
	}
	p := c.process(e.pid)
	for _, s := range e.counters {
		k := counterKey{name, s.key}
		typ, ok := c.counterByKey[k]
		if !ok {
			typ = int32(len(c.counterTypes))
			c.counterTypes = append(c.counterTypes, k)
			c.counterByKey[k] = typ
		}
		c.samples = append(c.samples, sample{ts: e.ts, value: s.value, seq: c.seq, proc: p, typ: typ})
	}
	c.see(e.ts)
}

// addMetadata applies the M events that name and order processes and
// threads; the others (process_uptime_seconds, num_cpus...) describe
// nothing the model holds and are skipped.
func (c *collector) addMetadata(e *rawEvent, fail func(string, ...any) error) error {
	name := c.strs.str(e.name)
	switch name {
	case "process_name", "process_labels", "process_sort_index":
		if e.pid == none {
			return fail("metadata event %s has no pid", name)
		}
		p := &c.procs[c.process(e.pid)]
		switch name {
		case "process_name":
			p.name = e.argName
		case "process_labels":
			p.labels = e.argLabels
		default:
			if !e.hasSortIndex {
				return fail("metadata event %s has no args.sort_index", name)
			}
			p.sortIndex, p.hasSortIndex = e.sortIndex, true
		}
	case "thread_name", "thread_sort_index":
		if e.pid == none || e.tid == none {
			return fail("metadata event %s needs a pid and a tid", name)
		}
		t := &c.threads[c.thread(e.pid, e.tid)]
		if name == "thread_name" {
			t.name = e.argName
		} else {
			if !e.hasSortIndex {
				return fail("metadata event %s has no args.sort_index", name)
			}
			t.sortIndex, t.hasSortIndex = e.sortIndex, true
		}
	}
	return nil
}
