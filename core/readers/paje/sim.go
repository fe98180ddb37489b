package paje

import (
	"fmt"
	"math"
	"strconv"
	"unsafe"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// simulator turns Pajé events into complete entities, as PajeNG does.
type simulator struct {
	file  string
	sink  trace.Sink
	opt   Options
	line  int
	buf   []byte // the current event's fields, id first, are spans of buf
	spans []span

	types      []typeInfo
	typeIDs    *idTable // by identifier; "0" is the root type (trace.None)
	containers []*container
	contIDs    *idTable // by identifier; "0" is the root
	valueNames []string // by value index

	lastKnown trace.Time // date of the last event that had one, as PajeNG
	timed     bool
	first     trace.Time
	rootEnd   trace.Time // when the file destroys the root
	zero      int32      // the container whose identifier is "0", like the root's; 0 if none
	// lastType is the state type keyedState found last, and
	// lastTypeWord its keyWord (0, no key's, before).
	lastTypeWord uint64
	lastType     int32
	// retyped counts link ends whose container is of another type of
	// the same name as the link type's end (see simulator.link).
	retyped int64
	// shortLines counts event lines that lack trailing user fields of
	// their definition (see decoder.parseLine).
	shortLines int64
	// deeper counts containers created below a container of a type that
	// their type's parent type contains, not in one of that type.
	deeper int64
	// redefined counts entity values whose name or alias is already the
	// identifier of a value of their type (see simulator.defineValue).
	redefined int64
	// generalStates sends every state event through state, without
	// plainState: the reference the tests compare plainState with.
	generalStates bool

	// The simulator's own tables of types and values, weighed against
	// the read's memory budget (trace.ReadOptions.Hold) as types and
	// values are defined: a file of a million type definitions makes
	// them weigh about three times the trace's types. valueTables is what
	// the types' value tables hold, idBytes the identifiers' strings,
	// held what the budget was last told.
	valueTables, idBytes, held int64
}

// tableBytes estimates what the simulator's tables of types and values
// hold: the types, their table of identifiers and its keys, the value
// tables and the values' names.
func (s *simulator) tableBytes() int64 {
	return int64(cap(s.types))*int64(unsafe.Sizeof(typeInfo{})) + s.typeIDs.bytes() + s.valueTables +
		int64(cap(s.valueNames))*int64(unsafe.Sizeof("")) + s.idBytes
}

// weighEvery is how much the tables grow between two weighings.
const weighEvery = 64 << 10

// weigh tells the read's memory budget what the tables hold, when they
// grew by weighEvery since it was last told, and returns its refusal
// placed at the line being read (for the front end to say, budget.Named).
func (s *simulator) weigh() error {
	if s.opt.Hold == nil {
		return nil
	}
	n := s.tableBytes()
	if n-s.held < weighEvery {
		return nil
	}
	delta := n - s.held
	s.held = n
	if err := s.opt.Held(delta); err != nil {
		return &errs.FormatError{File: s.file, Line: s.line, Err: err}
	}
	return nil
}

// release gives the tables' weight back to the budget, at the end of the
// read.
func (s *simulator) release() {
	s.opt.Held(-s.held)
	s.held = 0
}

// resolveZero picks, for a reference to "0", the root or the container
// named "0", whichever has the container type want.
func (s *simulator) resolveZero(id, want int32) int32 {
	if id == 0 && s.zero > 0 && want != trace.None && s.containers[s.zero].typ == want {
		return s.zero
	}
	return id
}

// typeInfo is what the simulator keeps of a type.
type typeInfo struct {
	kind       trace.Kind
	parent     int32
	depth      int32 // 1 for a type under the root's
	start, end int32 // link types: container types of the ends
	name       string
	values     *idTable // by identifier; nil until the first value
}

// container is what the simulator keeps of a container.
//
// Its first slot is part of it (own): most containers hold one type of
// state, whose events then find the container and the slot in one
// allocation rather than one cache miss after the other. The fields are
// laid out for that: a container is 256 bytes, a size class whose objects
// start at a multiple of 256, so that what a state event reads of the
// container is in its first cache line and what it reads and writes of
// own in the second (TestContainerLayout).
type container struct {
	typ       int32
	destroyed bool
	last      trace.Time // date of the last event addressed to it; its end once destroyed
	// used is the slot of the last event addressed to it: most events
	// find theirs there, without a look through slots.
	used     *slot
	name     string
	children []int32
	own      slot    // the first slot
	slots    []*slot // its entity slots, in creation order; own first
	// depth is the container's nesting below the root (1 for the root's
	// children), bounded by trace.MaxDepth: a container may go deeper than
	// its type (see createContainer), so its type's depth bounds nothing.
	depth int32
	_     [44]byte
}

// slot holds the open entities of one type in one container, and what
// PajeNG's time-order check needs of the last entity it recorded there.
// What a state event reads and writes comes first, in 64 bytes: the
// fields of the time-order check and the bottom of the stack of states,
// where most stacks stay (a slot is allocated in a size class of 128
// bytes, whose objects do not cross a 64-byte line at that offset).
type slot struct {
	typ                int32
	order              int32 // next State.Order
	depth              int32 // states on the stack: first, then more
	hasLast            bool
	lastOpen           bool // the last entity has no end yet
	lastStart, lastEnd trace.Time
	first              openState   // the bottom of the stack
	more               []openState // the states above it, bottom first

	varStart trace.Time // the open piece of a variable (when hasLast)
	varValue float64

	pending map[string]*pendingLink // links by key
	used    map[string]struct{}     // keys of the links completed
}

// state returns the state at depth i of the stack (0 is the bottom).
func (sl *slot) state(i int) *openState {
	if i == 0 {
		return &sl.first
	}
	return &sl.more[i-1]
}

// push puts st on the top of the stack.
func (sl *slot) push(st openState) {
	if sl.depth == 0 {
		sl.first = st
	} else {
		sl.more = append(sl.more[:sl.depth-1], st)
	}
	sl.depth++
}

type openState struct {
	start               trace.Time
	coveredAt           trace.Time // NoImbrication: when a PushState covered it
	value, depth, order int32
	covered             bool
}

type pendingLink struct {
	link               trace.Link
	haveStart, haveEnd bool
	line               int
	file               string
}

func newSimulator(sink trace.Sink, opt Options) *simulator {
	s := &simulator{
		sink:       sink,
		opt:        opt,
		typeIDs:    newIDTable(),
		contIDs:    newIDTable(),
		containers: []*container{{typ: trace.None, name: "0"}},
		lastKnown:  -trace.Second,
	}
	s.typeIDs.put("0", trace.None)
	s.contIDs.put("0", 0)
	return s
}

// fail reports an error at the current line.
func (s *simulator) fail(e *Error) error {
	return &errs.FormatError{File: s.file, Line: s.line, Err: e}
}

// failSim reports an event PajeNG's simulation refuses with exception class.
func (s *simulator) failSim(class, msg string) error {
	return s.fail(simulationError(class, msg, s.line, fieldList(s.buf, s.spans)))
}

// failAround reports an error whose PajeNG text quotes the event in the
// middle of the message: before + " in (event)" + after.
func (s *simulator) failAround(class, before, after string) error {
	desc := fmt.Sprintf("(Line: %d, Fields: '%d, Contents: '%s')", s.line, len(s.spans), eventText(fieldList(s.buf, s.spans)))
	return s.fail(&Error{Msg: before + after, PajeNG: class + ": " + before + " in " + desc + after + "\n"})
}

// failf reports an error whose PajeNG text is not reproduced.
func (s *simulator) failf(format string, args ...any) error {
	return s.fail(&Error{Msg: fmt.Sprintf(format, args...)})
}

// eventFields gives access to an event's fields by role.
type eventFields struct {
	def   *eventDef
	buf   []byte
	spans []span // the fields after the event id
}

func (f *eventFields) get(r role) []byte {
	if c := f.def.column[r]; c >= 0 {
		s := f.spans[c]
		return f.buf[s.from:s.to]
	}
	return nil
}

// key returns a field and its hash, for a lookup.
func (f *eventFields) key(r role) ([]byte, uint64) {
	if c := f.def.column[r]; c >= 0 {
		s := &f.spans[c]
		return f.buf[s.from:s.to], s.hash
	}
	return nil, emptyKeyHash
}

// emptyKeyHash is the hash of the empty identifier.
var emptyKeyHash = hashKey(nil)

func (f *eventFields) isQuoted(r role) bool {
	c := f.def.column[r]
	return c >= 0 && f.spans[c].quoted(f.buf)
}

// event simulates the event whose fields, id first, spans locates in buf.
func (s *simulator) event(def *eventDef, buf []byte, spans []span, line int) error {
	var t trace.Time
	if c := def.column[roleTime]; c >= 0 {
		var err error
		f := spans[1+c]
		if t, err = parseDate(buf[f.from:f.to]); err != nil {
			s.line, s.buf, s.spans = line, buf, spans
			return s.fail(&Error{Msg: err.Error()})
		}
	}
	return s.eventAt(def, buf, spans, line, t)
}

// keyedState is eventAt for a record whose keys the tokenizer kept
// (def.stateKeys and r.keyed()), when it is plain (see plainState): it
// reads the record, not the fields. It reports false otherwise, having
// changed nothing eventAt would not change the same way: eventAt then
// simulates the event from its fields. (One function from the record to
// plainStateOf: a call more costs about 2% of a read.)
func (s *simulator) keyedState(def *eventDef, at trace.Time, r *record) bool {
	if s.generalStates || s.zero > 0 || s.opt.NoImbrication {
		return false
	}
	at = s.opt.inUnit(at)
	if def.column[roleTime] >= 0 {
		s.lastKnown = at
		if !s.timed {
			s.first, s.timed = at, true
		}
	}
	cont, ok := s.contIDs.getWord(r.keys[0])
	if !ok {
		return false
	}
	// Most state events of a trace are of one type: the last one looked
	// up is kept (identifiers never change their index).
	typ := s.lastType
	if w := r.keys[1]; w != s.lastTypeWord {
		if typ, ok = s.typeIDs.getWord(w); !ok || typ == trace.None {
			return false
		}
		s.lastTypeWord, s.lastType = w, typ
	}
	var val int32
	if def.kind != evPopState {
		if def.column[roleValue] < 0 {
			return false
		}
		if val, ok = s.types[typ].values.getWord(r.keys[2]); !ok {
			return false
		}
	}
	return s.plainStateOf(def.kind, cont, typ, val)
}

// eventAt simulates an event whose date, if its definition has a Time
// field, was parsed already: at.
func (s *simulator) eventAt(def *eventDef, buf []byte, spans []span, line int, at trace.Time) error {
	at = s.opt.inUnit(at)
	s.line, s.buf, s.spans = line, buf, spans
	// The fields by role, on the stack: stored in the simulator, each
	// event would pay the write barriers of three pointers.
	f := &eventFields{def, buf, spans[1:]}
	if def.column[roleTime] >= 0 {
		s.lastKnown = at
		if !s.timed {
			s.first, s.timed = at, true
		}
	}
	if (def.kind == evSetState || def.kind == evPushState || def.kind == evPopState) && !s.generalStates && s.plainState(def, buf, spans[1:]) {
		return nil
	}
	switch def.kind {
	case evDefineContainerType, evDefineStateType, evDefineVariableType, evDefineEventType, evDefineLinkType:
		return s.defineType(def.kind, f)
	case evDefineEntityValue:
		return s.defineValue(f)
	case evCreateContainer:
		return s.createContainer(f)
	case evDestroyContainer:
		return s.destroyEvent(f)
	case evSetState, evPushState, evPopState, evResetState:
		return s.state(def.kind, f)
	case evSetVariable, evAddVariable, evSubVariable:
		return s.variable(def.kind, f)
	case evStartLink, evEndLink:
		return s.link(def.kind, f)
	case evNewEvent:
		return s.newEvent(f)
	case evTraceFile:
		// PajeNG reads the definition and ignores the event: the file it
		// names is not read.
		return nil
	}
	return s.failf("event %s is not supported", def.name)
}

var typeKinds = map[eventKind]trace.Kind{
	evDefineContainerType: trace.KindContainer,
	evDefineStateType:     trace.KindState,
	evDefineVariableType:  trace.KindVariable,
	evDefineEventType:     trace.KindEvent,
	evDefineLinkType:      trace.KindLink,
}

var kindLabels = map[trace.Kind]string{
	trace.KindContainer: "Container", trace.KindState: "State", trace.KindVariable: "Variable",
	trace.KindEvent: "Event", trace.KindLink: "Link",
}

// identifier is the key PajeNG files a definition under.
func identifier(name, alias []byte) []byte {
	if len(alias) > 0 {
		return alias
	}
	return name
}

func (s *simulator) kindOf(typ int32) trace.Kind {
	if typ == trace.None {
		return trace.KindContainer
	}
	return s.types[typ].kind
}

func (s *simulator) defineType(ev eventKind, f *eventFields) error {
	kind := typeKinds[ev]
	name, alias := f.get(roleName), f.get(roleAlias)
	if kind == trace.KindContainer && string(name) == "0" {
		return s.failSim("PajeTypeException", "The type name '0' is reserved and should not be used")
	}
	parent, ok := s.typeIDs.get(f.get(roleType))
	if !ok {
		return s.failSim("PajeTypeException", "Unknown container type '"+string(f.get(roleType))+"'")
	}
	if s.kindOf(parent) != trace.KindContainer {
		return s.failf("type %s is a %s type, which cannot hold types", errs.QuoteBytes(f.get(roleType)), s.kindOf(parent))
	}
	depth := int32(1)
	if parent != trace.None {
		depth = s.types[parent].depth + 1
	}
	if kind == trace.KindContainer && depth > trace.MaxDepth {
		return s.failf("container type %s would be nested %d levels deep, more than %d: not a trace a tool writes", errs.QuoteBytes(name), depth, trace.MaxDepth)
	}
	t := trace.Type{Name: string(name), Alias: string(alias), Kind: kind, Parent: parent,
		Start: trace.None, End: trace.None, Color: string(f.get(roleColor)), Quoted: f.isQuoted(roleName)}
	if kind == trace.KindLink {
		var ok bool
		if t.Start, ok = s.typeIDs.get(f.get(roleStartContainerType)); !ok {
			return s.failAround("PajeTypeException", "Unknown start container type '"+string(f.get(roleStartContainerType))+"' for link definition", "")
		}
		if t.End, ok = s.typeIDs.get(f.get(roleEndContainerType)); !ok {
			return s.failAround("PajeTypeException", "Unknown end container type '"+string(f.get(roleEndContainerType))+"' for link definition", "")
		}
	}
	id := string(identifier(name, alias))
	if _, dup := s.typeIDs.get([]byte(id)); dup {
		suffix := " already defined"
		if kind == trace.KindContainer {
			suffix += "."
		}
		return s.failAround("PajeTypeException", kindLabels[kind]+" type '"+id+"'", suffix)
	}
	n := int32(len(s.types))
	s.typeIDs.put(id, n)
	s.types = append(s.types, typeInfo{kind: kind, parent: parent, depth: depth, start: t.Start, end: t.End, name: t.Name})
	s.idBytes += int64(len(id))
	s.sink.DefineType(t)
	return s.weigh()
}

func (s *simulator) defineValue(f *eventFields) error {
	typeKey := string(f.get(roleType))
	typ, ok := s.typeIDs.get([]byte(typeKey))
	if !ok {
		return s.failSim("PajeTypeException", "Unknown type '"+typeKey+"'")
	}
	name, alias := f.get(roleName), f.get(roleAlias)
	switch s.kindOf(typ) {
	case trace.KindContainer:
		return s.failSim("PajeTypeException", "Trying to define the value '"+string(name)+"' for the type '"+typeKey+"' (which is a container type) is invalid")
	case trace.KindVariable:
		return s.failSim("PajeTypeException", "Trying to define the value '"+string(name)+"' for the type '"+typeKey+"' (which is a variable type) is invalid")
	}
	// A value is identified by its alias, or its name when it has none.
	// PajeNG refuses a new value whose alias, or whose name (with an alias
	// or not), is already the identifier of a value of the type: EZTrace
	// writes such definitions (GTG's "GOMP_Task" twice, the second with
	// the alias "GOMP_Untied_Task"), and pj_dump stops there. (Two values
	// of one name with distinct aliases are accepted.) Unless as PajeNG,
	// a new alias is defined as if the name were free, and a value whose
	// own identifier is taken keeps the first definition.
	ti := &s.types[typ]
	if len(alias) > 0 {
		if _, dup := ti.values.get(alias); dup {
			if !s.opt.StrictPajeNG {
				s.redefined++
				return nil
			}
			return s.failSim("PajeTypeException", "Trying to redefine the value identified by '"+string(alias)+"' for the type '"+typeKey+"'")
		}
	}
	if _, dup := ti.values.get(name); dup {
		if !s.opt.StrictPajeNG {
			s.redefined++
			if len(alias) == 0 {
				return nil
			}
		} else {
			return s.failSim("PajeTypeException", "Trying to redefine the value identified by '"+string(name)+"' for the type '"+typeKey+"'")
		}
	}
	s.addValue(typ, trace.Value{Type: typ, Name: string(name), Alias: string(alias),
		Color: string(f.get(roleColor)), Quoted: f.isQuoted(roleName)}, string(identifier(name, alias)))
	return s.weigh()
}

func (s *simulator) addValue(typ int32, v trace.Value, id string) int32 {
	ti := &s.types[typ]
	if ti.values == nil {
		ti.values = newIDTable()
		s.valueTables += ti.values.bytes()
	}
	n := int32(len(s.valueNames))
	before := ti.values.bytes()
	ti.values.put(id, n)
	// Values a state event defines are weighed at the next definition
	// (they are weighed with the trace's values too).
	s.valueTables += ti.values.bytes() - before
	s.idBytes += int64(len(id))
	s.valueNames = append(s.valueNames, v.Name)
	s.sink.DefineValue(v)
	return n
}

func (s *simulator) valueName(typ, v int32) string { return s.valueNames[v] }

// value finds a value of typ by identifier, defining it on first use as
// PajeNG does.
func (s *simulator) value(typ int32, f *eventFields, r role) int32 {
	key, h := f.key(r)
	if id, ok := s.types[typ].values.getHashed(key, h); ok {
		return id
	}
	name := string(key)
	return s.addValue(typ, trace.Value{Type: typ, Name: name, Quoted: f.isQuoted(r)}, name)
}

func (s *simulator) createContainer(f *eventFields) error {
	name, alias := f.get(roleName), f.get(roleAlias)
	id := identifier(name, alias)
	zero := string(id) == "0"
	if zero && (s.opt.StrictPajeNG || s.zero > 0) {
		return s.failSim("PajeTypeException", "The container name '0' is reserved and should not be used")
	}
	typeKey := f.get(roleType)
	typ, ok := s.typeIDs.get(typeKey)
	if !ok {
		return s.failSim("PajeTypeException", "Unknown container type '"+string(typeKey)+"'")
	}
	if s.kindOf(typ) != trace.KindContainer {
		return s.failSim("PajeTypeException", "Not a container type '"+string(typeKey)+"'")
	}
	parentKey := f.get(roleContainer)
	parent, ok := s.contIDs.get(parentKey)
	if !ok {
		return s.failSim("PajeContainerException", "Unknown container '"+string(parentKey)+"'")
	}
	if typ != trace.None {
		parent = s.resolveZero(parent, s.types[typ].parent)
	}
	pc := s.containers[parent]
	if typ == trace.None || s.types[typ].parent != pc.typ {
		// PajeNG refuses it. NGSolve's ngcore defines its "Thread" type
		// in "Task Manager" and creates the threads in a "Node" inside
		// it (ViTE shows them there): unlike PajeNG, a container may
		// be created inside a container of a type its own type's
		// parent contains, deeper than its type says.
		if typ == trace.None || s.opt.StrictPajeNG || !s.typeAbove(s.types[typ].parent, pc.typ) {
			return s.failf("container type %s is not a child type of the type of container %s", errs.QuoteBytes(typeKey), errs.QuoteBytes(parentKey))
		}
		s.deeper++
	}
	depth := pc.depth + 1
	if depth > trace.MaxDepth {
		return s.failf("container %s would be nested %d levels deep, more than %d: not a trace a tool writes", errs.QuoteBytes(name), depth, trace.MaxDepth)
	}
	if _, dup := s.contIDs.get(id); dup && !zero {
		return s.failSim("PajeContainerException", "(Container, name: '"+string(name)+"' alias: '"+string(alias)+"') already exists")
	}
	n := int32(len(s.containers))
	if zero {
		s.zero = n
	} else {
		s.contIDs.put(string(id), n)
	}
	s.containers = append(s.containers, &container{typ: typ, name: string(name), last: s.lastKnown, depth: depth})
	pc.children = append(pc.children, n)
	s.sink.CreateContainer(trace.Container{Name: string(name), Alias: string(alias), Type: typ, Parent: parent,
		Start: s.lastKnown, End: trace.Unset, Quoted: f.isQuoted(roleName)})
	return nil
}

func (s *simulator) destroyEvent(f *eventFields) error {
	typeKey := f.get(roleType)
	typ, ok := s.typeIDs.get(typeKey)
	if !ok {
		return s.failSim("PajeTypeException", "Unknown container type '"+string(typeKey)+"'")
	}
	nameKey := f.get(roleName)
	id, ok := s.contIDs.get(nameKey)
	if !ok {
		return s.failSim("PajeContainerException", "Unknown container '"+string(nameKey)+"'")
	}
	id = s.resolveZero(id, typ)
	c := s.containers[id]
	if c.typ != typ {
		return s.failf("container %s is not of type %s", errs.QuoteBytes(nameKey), errs.QuoteBytes(typeKey))
	}
	at := s.lastKnown
	if at < c.last {
		return s.failSim("PajeSimulationException", "Illegal, container events are not time-ordered")
	}
	if c.destroyed {
		return nil // PajeNG ignores what comes to a destroyed container
	}
	if id == 0 {
		s.rootEnd = at
	}
	return s.destroy(id, at)
}

// latestOpen is the latest start of the states and variables still open
// in container c (trace.Time's minimum if none).
func (s *simulator) latestOpen(c *container) trace.Time {
	late := trace.Time(math.MinInt64)
	for _, sl := range c.slots {
		for d := range int(sl.depth) {
			late = max(late, sl.state(d).start)
		}
		if sl.hasLast && s.kindOf(sl.typ) == trace.KindVariable {
			late = max(late, sl.varStart)
		}
	}
	return late
}

// destroy ends container id and its descendants at instant at, closing
// everything still open in them.
func (s *simulator) destroy(id int32, at trace.Time) error {
	c := s.containers[id]
	if !c.destroyed {
		if late := s.latestOpen(c); at < late {
			// The container (a descendant of the one the file destroys, or
			// one with events of several types out of order) has a state or
			// a variable open since after that instant: it would end before
			// it begins.
			return s.failf("the trace is not time-ordered: container %s ends at %s s, before its event at %s s",
				errs.QuoteBytes([]byte(c.name)), at, late)
		}
		c.destroyed, c.last = true, at
		for _, sl := range c.slots {
			if s.kindOf(sl.typ) == trace.KindVariable && sl.hasLast {
				s.sink.Variable(trace.Variable{Container: id, Type: sl.typ, Start: sl.varStart, End: at, Value: sl.varValue})
				sl.lastOpen, sl.lastEnd = false, at
			}
		}
		if !s.opt.IgnoreIncompleteLinks {
			if err := s.checkPendingLinks(id); err != nil {
				return err
			}
		}
		for _, sl := range c.slots {
			if sl.depth > 0 {
				s.closeStates(id, sl, 0, at)
			}
			sl.pending = nil
		}
		s.sink.DestroyContainer(id, at)
	}
	for _, child := range c.children {
		if err := s.destroy(child, at); err != nil {
			return err
		}
	}
	return nil
}

// checkPendingLinks fails on the first slot of container id that holds
// links missing an end, listing them as PajeNG does.
func (s *simulator) checkPendingLinks(id int32) error {
	c := s.containers[id]
	for _, sl := range c.slots {
		if len(sl.pending) == 0 {
			continue
		}
		keys := sortedKeys(sl.pending)
		text := "List of incomplete links in container '" + c.name + "':\n"
		for _, k := range keys {
			text += s.pendingDescription(sl.pending[k]) + "\n"
		}
		text += "PajeLinkException: Incomplete links at the end of container with name '" + c.name + "'\n"
		p := sl.pending[keys[0]]
		side := "EndLink"
		if !p.haveStart {
			side = "StartLink"
		}
		return &errs.FormatError{File: p.file, Line: p.line, Err: &Error{
			// The way out, in both callers' syntax: a cut trace ends with
			// links open, and the reader can drop them.
			Msg: fmt.Sprintf("link with key %q of type %q in container %q never gets its %s (%d incomplete link(s)); "+
				"read the trace without them with ignore_incomplete_links=True (Python) or --read ignore_incomplete_links=true (command line)",
				p.link.Key, s.types[sl.typ].name, c.name, side, len(keys)),
			PajeNG: text,
		}}
	}
	return nil
}

func (s *simulator) pendingDescription(p *pendingLink) string {
	start, end := "-1.000000", "-1.000000"
	from, to := "NULL", "NULL"
	if p.haveStart {
		start = strconv.FormatFloat(p.link.Start.Seconds(), 'f', 6, 64)
		from = s.containers[p.link.From].name
	}
	if p.haveEnd {
		end = strconv.FormatFloat(p.link.End.Seconds(), 'f', 6, 64)
		to = s.containers[p.link.To].name
	}
	return "Link, " + s.containers[p.link.Container].name + ", " + s.types[p.link.Type].name + ", " +
		start + ", " + end + ", 0.000000, " + s.valueName(p.link.Type, p.link.Value) + ", " + from + ", " + to + ", " + p.link.Key
}

// finish destroys what is still alive at the date of the last event, as
// PajeNG does when the file ends.
func (s *simulator) finish() error {
	at := s.lastKnown
	if !s.timed {
		at = 0
	}
	// PajeNG checks the order of events per container and type only: a
	// variable set at 0.5 s after a state set at 1 s on the same container
	// is read. Ending the trace at its last line's date, as PajeNG does,
	// would end that state before it begins (pj_dump prints a negative
	// duration); it ends at its latest event instead, which is the last
	// line's date in every trace in time order.
	for _, c := range s.containers {
		if !c.destroyed {
			at = max(at, s.latestOpen(c))
		}
	}
	end := at
	if s.containers[0].destroyed {
		end = s.rootEnd
	}
	root := s.containers[0]
	if !root.destroyed {
		// The root is never handed to the sink as destroyed: Finish ends it.
		root.destroyed = true
		for _, sl := range root.slots {
			if s.kindOf(sl.typ) == trace.KindVariable && sl.hasLast {
				s.sink.Variable(trace.Variable{Container: 0, Type: sl.typ, Start: sl.varStart, End: at, Value: sl.varValue})
			}
		}
		if !s.opt.IgnoreIncompleteLinks {
			if err := s.checkPendingLinks(0); err != nil {
				return err
			}
		}
		for _, sl := range root.slots {
			if sl.depth > 0 {
				s.closeStates(0, sl, 0, at)
			}
		}
	}
	for _, child := range root.children {
		if err := s.destroy(child, at); err != nil {
			return err
		}
	}
	if s.shortLines > 0 {
		s.opt.Warn("%d event lines lack trailing user fields of their definition (SimGrid's topology links with tracing/smpi/display-sizes lack Size): taken as empty", s.shortLines)
	}
	if s.redefined > 0 {
		s.opt.Warn("%d entity values redefine an identifier already used by a value of their type (EZTrace's GOMP_Task, the second with another alias): "+
			"a new alias defined, a taken one kept as first defined (pj_dump refuses them; strict too)", s.redefined)
	}
	if s.deeper > 0 {
		s.opt.Warn("%d containers are created deeper than their type's parent type (NGSolve's threads in a node, their type in the task manager): taken where they are created (pj_dump refuses them; strict too)", s.deeper)
	}
	if s.retyped > 0 {
		s.opt.Warn("%d link ends are containers of a type other than the link type's end, of the same name (SimGrid's tracing/smpi/group defines the MPI type at two levels): taken as they are", s.retyped)
	}
	s.sink.Finish(s.first, end)
	return nil
}

// typeAbove tells whether type a contains type b, directly or not.
func (s *simulator) typeAbove(a, b int32) bool {
	for range len(s.types) { // a bound: the types form a tree
		if b == trace.None || b < 0 || int(b) >= len(s.types) {
			return false
		}
		b = s.types[b].parent
		if b == a {
			return true
		}
	}
	return false
}
