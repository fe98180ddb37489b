package perfetto

import (
	"sort"
	"strconv"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/readers/pbwalk"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Userspace annotations of Android (atrace) reach ftrace as print events
// whose text is "B|<tgid>|<name>" (a slice begins on the writing thread),
// "E|<tgid>" (the thread's innermost slice ends), "I|<tgid>|<name>" (an
// instant) or "C|<tgid>|<name>|<value>" (a counter of the process); some kernels write begins and ends as tracing_mark_write
// events instead. They become states "Atrace slice" and events "Instant" of the
// thread, the ftrace event's pid being the thread id. The bundles of
// different CPUs interleave in the file while a thread may migrate between
// a begin and its end, so the events are gathered, then applied in time
// order (stable: file order among equal times) at the end, as the trace
// processor sorts them; their slices nest on a stack of their own per
// thread, apart from TrackEvent slices. Async slices (S, F, G, H) and
// instants on named tracks (N) are read in atraceasync.go; other text is
// counted.

// atraceEvent is one begin, end or instant of an atrace annotation.
type atraceEvent struct {
	at        trace.Time
	tid, tgid int32
	phase     byte
	binder    uint8 // a binder send's flags (binder.go)
	name      string
	value     int64  // counters; async slices' cookies
	slice     string // a G event's slice name (name is its track)
	frame     bool   // a frame timeline start or end (frametimeline.go)
}

// atraceCounter identifies a counter of atrace: its process and name.
type atraceCounter struct {
	tgid int32
	name string
}

// print reads the text of an ftrace print event written by thread tid.
func (d *decoder) print(ts trace.Time, tid int32, buf string) {
	buf = strings.TrimRight(buf, "\n\x00")
	phase, rest, _ := strings.Cut(buf, "|")
	tgidText, name, hasName := strings.Cut(rest, "|")
	tgid, err := strconv.ParseUint(tgidText, 10, 32)
	switch {
	case phase == "B" && err == nil:
		if name == "" {
			name = "[empty slice name]"
		}
	case phase == "E":
		tgid = 0 // thread-scoped: the tgid may be absent
	case phase == "C" && err == nil && hasName:
		// C|<tgid>|<name>|<value>, Chromium appending |<category group>.
		n, rest, _ := strings.Cut(name, "|")
		valueText, _, _ := strings.Cut(rest, "|")
		v, verr := strconv.ParseInt(valueText, 10, 64)
		if n == "" || verr != nil {
			d.skip("ftrace print events that are no atrace annotation (text, malformed annotations)", 1)
			return
		}
		d.saw(ts)
		d.atrace = append(d.atrace, atraceEvent{at: ts, tid: tid, tgid: int32(tgid), phase: 'C', name: n, value: v})
		return
	case phase == "I" && err == nil && hasName:
		name, _, _ = strings.Cut(name, "|")
		if name == "" {
			d.skip("ftrace print events that are no atrace annotation (text, malformed annotations)", 1)
			return
		}
	case phase == "S" || phase == "F" || phase == "G" || phase == "H" || phase == "N":
		e, ok := asyncPrint(phase, rest)
		if !ok {
			d.skip("ftrace print events that are no atrace annotation (text, malformed annotations)", 1)
			return
		}
		d.saw(ts)
		e.at, e.tid = ts, tid
		d.atrace = append(d.atrace, e)
		return
	default:
		d.skip("ftrace print events that are no atrace annotation (text, malformed annotations)", 1)
		return
	}
	d.saw(ts)
	d.atrace = append(d.atrace, atraceEvent{at: ts, tid: tid, tgid: int32(tgid), phase: phase[0], name: name})
}

// tracingMarkWrite reads a tracing_mark_write event: an atrace begin
// (trace_begin 1, with the process id and the name) or end (0).
func (d *decoder) tracingMarkWrite(ts trace.Time, tid int32, f field) error {
	var tgid int64
	var name string
	var begin uint64
	if err := pbwalk.Each(f.B, f.Off, func(g field) error {
		switch g.Num {
		case tmwPID:
			tgid = g.Int64()
		case tmwName:
			name = g.String()
		case tmwBegin:
			begin = g.U
		}
		return nil
	}); err != nil {
		return err
	}
	if begin == 0 {
		d.print(ts, tid, "E")
		return nil
	}
	d.print(ts, tid, "B|"+strconv.FormatInt(tgid, 10)+"|"+name)
	return nil
}

// applyAtrace delivers the gathered atrace events in time order.
func (d *decoder) applyAtrace() {
	sort.SliceStable(d.atrace, func(i, j int) bool { return d.atrace[i].at < d.atrace[j].at })
	for _, e := range d.atrace {
		switch e.phase {
		case 'C':
			d.atraceSample(&e)
			continue
		case 'S', 'F':
			d.atraceAsync(&e)
			continue
		case 'N':
			d.atraceTrackInstant(&e)
			continue
		case binderSend, binderReceive:
			d.applyBinder(&e)
			continue
		}
		cont := d.conts.thread(e.tgid, e.tid)
		st := d.atraceStack(cont)
		switch e.phase {
		case 'B':
			st.push(slice{start: e.at, end: open, value: d.m.value(st.typ, e.name), order: st.order})
			st.order++
		case 'E':
			if !st.pop(d, e.at) {
				d.skip("atrace slice ends (E) with no open slice on their thread", 1)
			}
		case 'I':
			typ := d.m.typ(trace.KindEvent, "Instant", d.m.contType[cont])
			d.m.sink.Event(trace.Event{Container: cont, Type: typ, Value: d.m.value(typ, e.name), Time: e.at})
		}
	}
	d.atrace = nil
}

// atraceSample records a value of the counter name of process tgid: a
// variable of the process (of the root without one), each value holding
// until the next, as the trace processor's process counter tracks.
func (d *decoder) atraceSample(e *atraceEvent) {
	k := atraceCounter{tgid: e.tgid, name: e.name}
	c := d.atraceCtrs[k]
	if c == nil {
		cont := int32(0)
		if e.tgid != 0 {
			cont = d.conts.process(e.tgid)
		}
		typ := d.m.typ(trace.KindVariable, e.name, d.m.contType[cont])
		if _, ok := d.ctrNames[[2]int32{cont, typ}]; ok { // a TrackEvent counter of that name
			typ = d.m.typ(trace.KindVariable, e.name+" (atrace)", d.m.contType[cont])
		}
		c = &counterTrack{cont: cont, typ: typ}
		d.atraceCtrs[k] = c
		d.atraceCtrOrder = append(d.atraceCtrOrder, k)
	}
	if !c.add(d, e.at, float64(e.value)) {
		d.skip("atrace counter values earlier than values of their track already placed", 1)
	}
}

func (d *decoder) atraceStack(cont int32) *stack {
	return d.stackOf(cont, "Atrace slice")
}

// stackOf is the stack of atrace's slices on container cont, made with
// states of type typ the first time.
func (d *decoder) stackOf(cont int32, typ string) *stack {
	st := d.atraceStacks[cont]
	if st == nil {
		st = &stack{cont: cont, typ: d.m.typ(trace.KindState, typ, d.m.contType[cont])}
		d.atraceStacks[cont] = st
		d.atraceIDs = append(d.atraceIDs, cont)
	}
	return st
}
