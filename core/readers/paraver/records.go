package paraver

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"strconv"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/swar"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// decoder turns records into sink calls as they are read. It keeps only
// the tables of containers, types and values, never the records.
type decoder struct {
	file string
	line int
	cfg  *config
	view viewKind
	sink trace.Sink
	head *header

	fields []int64
	evals  []eventValue // the values of an event record's type:value pairs

	nTypes, nValues int32
	leafType        int32   // Thread or CPU
	leaves          []int32 // container of each thread, or of each CPU
	taskFirst       []int   // per application, global index of its first task
	threadFirst     []int   // per global task, global index of its first thread

	stateType, linkType, globalOpType int32
	stateValues                       map[int64]int32
	eventTypes                        map[int64]*eventKind
	tagValues                         map[int64]int32
	opValues                          map[int64]int32

	last trace.Time
	cut  bool // the last line read has no end of line

	// ovni, for ovni's traces (see ovni.go), holds the channels whose
	// events become states; nil for the others.
	ovni *channels

	opt trace.ReadOptions
	// badComms counts communicator records that do not fit the header,
	// which Paraver does not check either (communicators are not modelled).
	badComms int64
	// bad counts the records skipped by kind (see skip.go), in badOrder.
	bad      map[string]*badRecords
	badOrder []string
	// intercomms counts intercommunicator lines (i:), not modelled.
	intercomms int64
}

type eventKind struct {
	typ    int32
	role   trace.Role // of the type (eventRole)
	values map[eventValue]int32
	// numeric: an ovni channel read as a variable (see ovni.go).
	numeric bool
}

func (d *decoder) fail(format string, args ...any) error {
	return errs.Format(d.file, d.line, format, args...)
}

// defineType defines t; only link types have Start and End types.
func (d *decoder) defineType(t trace.Type) int32 {
	if t.Kind != trace.KindLink {
		t.Start, t.End = trace.None, trace.None
	}
	d.sink.DefineType(t)
	d.nTypes++
	return d.nTypes - 1
}

func (d *decoder) defineValue(v trace.Value) int32 {
	d.sink.DefineValue(v)
	d.nValues++
	return d.nValues - 1
}

// start creates the containers the header declares.
func (d *decoder) start() error {
	d.stateType, d.linkType, d.globalOpType = trace.None, trace.None, trace.None
	d.stateValues = map[int64]int32{}
	d.eventTypes = map[int64]*eventKind{}
	d.tagValues = map[int64]int32{}
	d.opValues = map[int64]int32{}
	var next int32 // containers created so far, the root being 0
	create := func(name, alias string, typ, parent int32) int32 {
		next++
		d.sink.CreateContainer(trace.Container{Name: name, Alias: alias, Type: typ, Parent: parent, End: trace.Unset})
		return next
	}
	named := func(level string, i int, fallback string) string {
		if name, ok := d.cfg.level(level, i); ok {
			return name
		}
		return fallback
	}
	h := d.head
	if isOvni(h) && d.view == threadView {
		d.ovni = newChannels()
	}
	task, thread := 0, 0
	for _, a := range h.apps {
		d.taskFirst = append(d.taskFirst, task)
		for _, t := range a.tasks {
			d.threadFirst = append(d.threadFirst, thread)
			task++
			thread += t.threads
		}
	}
	if d.view == cpuView {
		if len(h.nodes) == 0 {
			return d.fail("the trace declares no nodes and CPUs (resource model 0), so it cannot be read by CPU")
		}
		node := d.defineType(trace.Type{Name: "Node", Kind: trace.KindContainer, Parent: trace.None})
		d.leafType = d.defineType(trace.Type{Name: "CPU", Kind: trace.KindContainer, Parent: node})
		cpu := 0
		for n, cpus := range h.nodes {
			alias := strconv.Itoa(n + 1)
			nc := create(named("NODE", n, "NODE "+alias), alias, node, 0)
			for range cpus {
				cpu++
				alias := strconv.Itoa(cpu)
				d.leaves = append(d.leaves, create(named("CPU", cpu-1, "CPU "+alias), alias, d.leafType, nc))
			}
		}
		d.cfg.checkLevel(d.opt, "NODE", len(h.nodes))
		d.cfg.checkLevel(d.opt, "CPU", cpu)
		return nil
	}
	// Extrae numbers the communicators of each application apart, and a
	// task's threads share its MPI rank.
	appType := d.defineType(trace.Type{Name: "Application", Kind: trace.KindContainer, Parent: trace.None, Role: trace.RoleApplication})
	taskType := d.defineType(trace.Type{Name: "Task", Kind: trace.KindContainer, Parent: appType})
	d.leafType = d.defineType(trace.Type{Name: "Thread", Kind: trace.KindContainer, Parent: taskType, Role: trace.RoleThread})
	task, thread = 0, 0
	for ai, a := range h.apps {
		alias := strconv.Itoa(ai + 1)
		ac := create(named("APPL", ai, "APPL "+alias), alias, appType, 0)
		for ti, t := range a.tasks {
			alias := fmt.Sprintf("%d.%d", ai+1, ti+1)
			tc := create(named("TASK", task, "TASK "+alias), alias, taskType, ac)
			task++
			for th := range t.threads {
				alias := fmt.Sprintf("%d.%d.%d", ai+1, ti+1, th+1)
				d.leaves = append(d.leaves, create(named("THREAD", thread, "THREAD "+alias), alias, d.leafType, tc))
				thread++
			}
		}
	}
	d.cfg.checkLevel(d.opt, "APPL", len(h.apps))
	d.cfg.checkLevel(d.opt, "TASK", task)
	d.cfg.checkLevel(d.opt, "THREAD", thread)
	return nil
}

// split parses the fields after the record type, all integers, into
// d.fields. In an event record (event true) the values of the type:value
// pairs, unsigned 64-bit integers, go to d.evals instead, their place in
// d.fields holding 0.
func (d *decoder) split(line []byte, event bool) error {
	d.fields, d.evals = d.fields[:0], d.evals[:0]
	i := 2 // past "1:"
	for i <= len(line) {
		if v, end, ok := shortField(line, i); ok {
			// A value as parseEventValue reads it: digits, no sign.
			if n := len(d.fields); event && n >= 6 && n%2 == 0 {
				d.evals = append(d.evals, eventValue{mag: uint64(v)})
				v = 0
			}
			d.fields = append(d.fields, v)
			i = end + 1
			continue
		}
		j := i
		for j < len(line) && line[j] != ':' {
			j++
		}
		// Fields 6, 8... (counted from 0 after the record type) are values.
		if n := len(d.fields); event && n >= 6 && n%2 == 0 {
			v, err := parseEventValue(line[i:j])
			if err != nil {
				return d.fail("field %d: %v", n+2, err)
			}
			d.evals = append(d.evals, v)
			d.fields = append(d.fields, 0)
		} else {
			v, ok := parseInt(line[i:j])
			if !ok && integer(string(line[i:j])) {
				// Read as a wrapped number, it would be another state,
				// type or object.
				return d.fail("field %d is %s, beyond 64 bits", len(d.fields)+2, errs.QuoteBytes(line[i:j]))
			}
			if !ok {
				return d.fail("field %d is %s, not an integer", len(d.fields)+2, errs.QuoteBytes(line[i:j]))
			}
			d.fields = append(d.fields, v)
		}
		i = j + 1
	}
	return nil
}

// shortField reads the field at line[i:] if it is one to fifteen digits
// (nearly every field of a record: objects, times, states, event types
// and values), a word or two at a time: its value and the index of the
// ':' or of the end of the line after it, as parseInt and parseEventValue
// read it. It reports false for any other field, which split reads byte
// by byte.
func shortField(line []byte, i int) (int64, int, bool) {
	w := wordAt(line, i)
	k := bits.TrailingZeros64(swar.NonDigits(w)) >> 3
	v := swar.EightDigits(w << (64 - 8*k)) // k = 8: all of w
	if k == 8 {
		w2 := wordAt(line, i+8)
		k2 := bits.TrailingZeros64(swar.NonDigits(w2)) >> 3
		if k2 == 8 {
			return 0, 0, false
		}
		v = v*pow10[k2] + swar.EightDigits(w2<<(64-8*k2))
		k += k2
	}
	end := i + k
	if k == 0 || end < len(line) && line[end] != ':' {
		return 0, 0, false
	}
	return int64(v), end, true
}

// pow10 holds the powers of ten that shift eight digits left of up to
// seven more.
var pow10 = [8]uint64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7}

// wordAt returns the eight bytes of line from i, those past its end zero:
// past its last eight bytes, the line's last eight shifted down (zeros
// come in above them, which are not digits); 0 if the line is shorter
// than eight bytes, where shortField then finds no digit.
func wordAt(line []byte, i int) uint64 {
	switch n := len(line); {
	case i+8 <= n:
		return binary.LittleEndian.Uint64(line[i : i+8])
	case n >= 8 && i < n:
		return binary.LittleEndian.Uint64(line[n-8:n]) >> (8 * (i + 8 - n))
	}
	return 0
}

func parseInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 19 && !(len(b) == 20 && b[0] == '-') {
		return 0, false
	}
	neg := b[0] == '-'
	if neg {
		b = b[1:]
		if len(b) == 0 {
			return 0, false
		}
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	if v > math.MaxInt64 {
		return 0, false
	}
	if neg {
		return -int64(v), true
	}
	return int64(v), true
}

// record dispatches one record line.
func (d *decoder) record(line []byte) error {
	if len(line) < 2 || line[1] != ':' {
		return d.fail("expected a record (1:, 2:, 3:, 4: or c:), found %s", errs.QuoteBytes(line))
	}
	if line[0] == 'i' || line[0] == 'I' {
		// An intercommunicator, which Paraver's header accepts beside
		// communicators and the model has no place for either.
		d.intercomms++
		return nil
	}
	if err := d.split(line, line[0] == '2'); err != nil {
		return err
	}
	f := d.fields
	switch line[0] {
	case '1':
		if len(f) != 7 {
			return d.fail("a state record has 8 fields, this one has %d", len(f)+1)
		}
		return d.state(f)
	case '2':
		if len(f) < 7 || len(f)%2 == 0 {
			return d.fail("an event record has 6 fields and type:value pairs, this one has %d fields", len(f)+1)
		}
		return d.events(f)
	case '3':
		if len(f) != 14 {
			return d.fail("a communication record has 15 fields, this one has %d", len(f)+1)
		}
		return d.communication(f)
	case '4':
		if len(f) != 10 {
			return d.fail("a global operation record has 11 fields, this one has %d", len(f)+1)
		}
		return d.globalOp(f)
	case 'c', 'C':
		return d.communicator(f)
	}
	return d.fail("unknown record type %q", line[0])
}

// object resolves cpu:appl:task:thread to the container of the view.
func (d *decoder) object(f []int64) (int32, error) {
	cpu, appl, task, thread := f[0], f[1], f[2], f[3]
	h := d.head
	cpus := int64(h.cpus())
	if cpu < 0 || cpu > cpus {
		return 0, d.fail("CPU %d does not exist (the header declares %d)", cpu, cpus)
	}
	if appl < 1 || appl > int64(len(h.apps)) {
		return 0, d.fail("application %d does not exist (the header declares %d)", appl, len(h.apps))
	}
	tasks := h.apps[appl-1].tasks
	if task < 1 || task > int64(len(tasks)) {
		return 0, d.fail("task %d.%d does not exist (application %d has %d tasks)", appl, task, appl, len(tasks))
	}
	if thread < 1 || thread > int64(tasks[task-1].threads) {
		return 0, d.fail("thread %d.%d.%d does not exist (task %d.%d has %d threads)", appl, task, thread, appl, task, tasks[task-1].threads)
	}
	if d.view == cpuView {
		if cpu == 0 {
			return 0, d.fail("the record names no CPU (0), so it cannot be placed by CPU")
		}
		return d.leaves[cpu-1], nil
	}
	return d.leaves[d.threadFirst[d.taskFirst[appl-1]+int(task-1)]+int(thread-1)], nil
}

// time converts a record time to nanoseconds.
func (d *decoder) time(v int64) (trace.Time, error) {
	if v < 0 {
		return 0, d.fail("negative time %d", v)
	}
	t, err := scale(v, d.head.unit)
	if err != nil {
		return 0, d.fail("time %d: %v", v, err)
	}
	d.last = max(d.last, t)
	return t, nil
}

// state: 1:cpu:appl:task:thread:begin:end:state.
func (d *decoder) state(f []int64) error {
	cont, err := d.object(f)
	if err != nil {
		return err
	}
	begin, err := d.time(f[4])
	if err != nil {
		return err
	}
	var end trace.Time
	if f[5] == -1 {
		// A state without end, which Paraver draws until the end of
		// the trace: it lasts until the duration the header gives.
		end = max(d.head.end, begin)
	} else if end, err = d.time(f[5]); err != nil {
		return err
	}
	if end < begin {
		return d.fail("state ends at %d, before it begins at %d", f[5], f[4])
	}
	if d.stateType == trace.None {
		d.stateType = d.defineType(trace.Type{Name: "State", Kind: trace.KindState, Parent: d.leafType})
	}
	v, ok := d.stateValues[f[6]]
	if !ok {
		st := d.cfg.states[f[6]]
		name := st.name
		if name == "" {
			name = strconv.FormatInt(f[6], 10)
		}
		v = d.defineValue(trace.Value{Type: d.stateType, Name: name, Alias: strconv.FormatInt(f[6], 10), Color: st.color,
			Role: stateRole(f[6], name)})
		d.stateValues[f[6]] = v
	}
	d.sink.State(trace.State{Container: cont, Type: d.stateType, Value: v, Start: begin, End: end})
	return nil
}

// events: 2:cpu:appl:task:thread:time:type:value[:type:value...]; each
// pair is a point event.
func (d *decoder) events(f []int64) error {
	cont, err := d.object(f)
	if err != nil {
		return err
	}
	at, err := d.time(f[4])
	if err != nil {
		return err
	}
	for i := 5; i < len(f); i += 2 {
		ev := d.evals[(i-5)/2]
		if d.ovni != nil {
			d.channelEvent(cont, at, f[i], ev)
			continue
		}
		k := d.eventKind(f[i])
		v, ok := k.values[ev]
		if !ok {
			alias := ev.String()
			name := alias
			if et := d.cfg.eventTypes[f[i]]; et != nil && et.values[ev] != "" {
				name = et.values[ev]
			}
			v = d.defineValue(trace.Value{Type: k.typ, Name: name, Alias: alias, Role: valueRole(k.role, ev)})
			k.values[ev] = v
		}
		d.sink.Event(trace.Event{Container: cont, Type: k.typ, Value: v, Time: at})
	}
	return nil
}

// eventKind returns the event type for a Paraver event type, defining it
// on first use with the .pcf's name, or its number.
func (d *decoder) eventKind(id int64) *eventKind {
	if k := d.eventTypes[id]; k != nil {
		return k
	}
	alias := strconv.FormatInt(id, 10)
	name := alias
	if et := d.cfg.eventTypes[id]; et != nil && et.name != "" {
		name = et.name
	}
	role := eventRole(id)
	k := &eventKind{typ: d.defineType(trace.Type{Name: name, Alias: alias, Kind: trace.KindEvent, Parent: d.leafType, Role: role}),
		role: role, values: map[eventValue]int32{}}
	d.eventTypes[id] = k
	return k
}

// communication: 3:cpu:appl:task:thread:logical send:physical send:
// cpu:appl:task:thread:logical receive:physical receive:size:tag. The link
// runs from the logical send, when the sender issued it, to the physical
// receive, when the data arrived.
func (d *decoder) communication(f []int64) error {
	from, err := d.object(f[0:4])
	if err != nil {
		return err
	}
	to, err := d.object(f[6:10])
	if err != nil {
		return err
	}
	var times [4]trace.Time
	for i, j := range [4]int{4, 5, 10, 11} {
		if times[i], err = d.time(f[j]); err != nil {
			return err
		}
	}
	start, end := times[0], times[3]
	if end < start {
		return d.fail("communication is received at %d, before it is sent at %d", f[11], f[4])
	}
	if f[12] < 0 {
		return d.fail("negative communication size %d", f[12])
	}
	if d.linkType == trace.None {
		d.linkType = d.defineType(trace.Type{Name: "Communication", Kind: trace.KindLink, Parent: trace.None,
			Start: d.leafType, End: d.leafType})
	}
	tag, ok := d.tagValues[f[13]]
	if !ok {
		tag = d.defineValue(trace.Value{Type: d.linkType, Name: strconv.FormatInt(f[13], 10)})
		d.tagValues[f[13]] = tag
	}
	d.sink.Link(trace.Link{Container: 0, Type: d.linkType, Value: tag, Start: start, End: end,
		From: from, To: to, Size: float64(f[12])})
	return nil
}

// globalOp: 4:cpu:appl:task:thread:time:communicator:send size:receive
// size:operation:root, the collective records of older traces, become
// point events valued by the operation.
func (d *decoder) globalOp(f []int64) error {
	cont, err := d.object(f)
	if err != nil {
		return err
	}
	at, err := d.time(f[4])
	if err != nil {
		return err
	}
	if d.globalOpType == trace.None {
		d.globalOpType = d.defineType(trace.Type{Name: "Global operation", Kind: trace.KindEvent, Parent: d.leafType})
	}
	v, ok := d.opValues[f[8]]
	if !ok {
		v = d.defineValue(trace.Value{Type: d.globalOpType, Name: strconv.FormatInt(f[8], 10)})
		d.opValues[f[8]] = v
	}
	d.sink.Event(trace.Event{Container: cont, Type: d.globalOpType, Value: v, Time: at})
	return nil
}

// communicator: c:appl:id:n:task1:...:taskn declares which tasks an MPI
// communicator holds. The model has no place for it: it is checked and
// skipped. Paraver keeps these lines as text without looking inside, and
// tools that append an application to a trace leave communicators naming
// tasks the header gives to no application, so a record that does not fit
// is counted in a warning, not refused.
func (d *decoder) communicator(f []int64) error {
	if !d.communicatorFits(f) {
		d.badComms++
	}
	return nil
}

func (d *decoder) communicatorFits(f []int64) bool {
	if len(f) < 3 || f[2] < 0 || int64(len(f)) != 3+f[2] {
		return false
	}
	if f[0] < 1 || f[0] > int64(len(d.head.apps)) {
		return false
	}
	tasks := int64(len(d.head.apps[f[0]-1].tasks))
	for _, t := range f[3:] {
		// -1 is the "self" communicator some writers emit.
		if t != -1 && (t < 1 || t > tasks) {
			return false
		}
	}
	return true
}

// finish ends the trace: Paraver times start at 0 and the header gives
// the duration.
func (d *decoder) finish() error {
	if d.head == nil {
		return errs.Format(d.file, max(d.line, 1), "empty input: no #Paraver header")
	}
	d.noteBadRecords()
	d.opt.Skip("intercommunicator lines (i:), not modelled", d.intercomms)
	if d.badComms > 0 {
		d.opt.Warn("%d communicator records (c:) do not fit the applications of the header (not modelled, ignored)", d.badComms)
	}
	// A file cut short says so: its last line lacks its end. (Records that
	// stop before the header's end are no sign: cutters and tools that
	// append applications leave such headers in complete traces.)
	if d.cut {
		d.opt.Incomplete("%s: the last line (%d) has no end of line: the file is cut", d.file, d.line)
	}
	if d.ovni != nil {
		d.closeChannels(max(d.head.end, d.last))
	}
	d.sink.Finish(0, max(d.head.end, d.last))
	return nil
}
