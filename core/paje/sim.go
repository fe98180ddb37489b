package paje

import (
	"fmt"
	"math"
	"sort"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// simulator turns Pajé events into complete entities, as PajeNG does.
type simulator struct {
	file string
	sink trace.Sink
	line int

	typeKeys   keys
	types      []trace.Type
	contKeys   keys // "0" is the root
	containers []*liveContainer
	valueByKey map[valueKey]int32
	links      map[linkKey]*pendingLink

	started     bool
	first, last trace.Time
}

// liveContainer is what the simulator tracks of a container.
type liveContainer struct {
	typ       int32
	start     trace.Time
	destroyed bool
	stacks    map[int32][]openState   // by state type
	variables map[int32]*openVariable // by variable type
}

type openState struct {
	value int32
	start trace.Time
}

type openVariable struct {
	value float64
	start trace.Time
}

type valueKey struct {
	typ  int32
	name string
}

type linkKey struct {
	typ int32
	key string
}

type pendingLink struct {
	link               trace.Link
	haveStart, haveEnd bool
	line               int
}

func newSimulator(file string, sink trace.Sink) *simulator {
	return &simulator{
		file:       file,
		sink:       sink,
		typeKeys:   newKeys("0", trace.None),
		contKeys:   newKeys("0", 0),
		containers: []*liveContainer{{typ: trace.None}},
		valueByKey: map[valueKey]int32{},
		links:      map[linkKey]*pendingLink{},
	}
}

func (s *simulator) fail(format string, args ...any) error {
	return errs.Format(s.file, s.line, format, args...)
}

// fields gives access to an event's values by role.
type fields struct {
	def    *eventDef
	values [][]byte
}

func (f fields) get(r role) string {
	if c := f.def.column[r]; c >= 0 {
		return string(f.values[c])
	}
	return ""
}

func (f fields) has(r role) bool { return f.def.column[r] >= 0 }

func (s *simulator) event(def *eventDef, values [][]byte, line int) error {
	s.line = line
	f := fields{def, values}
	var at trace.Time
	if f.has(roleTime) {
		var err error
		if at, err = parseDate(values[def.column[roleTime]]); err != nil {
			return s.fail("%v", err)
		}
		if !s.started {
			s.first, s.last, s.started = at, at, true
		}
		if at < s.last {
			return s.fail("time goes backwards: %s after %s", at, s.last)
		}
		s.last = at
	}
	switch def.kind {
	case evDefineContainerType, evDefineStateType, evDefineVariableType, evDefineEventType, evDefineLinkType:
		return s.defineType(def.kind, f)
	case evDefineEntityValue:
		return s.defineValue(f)
	case evCreateContainer:
		return s.createContainer(f, at)
	case evDestroyContainer:
		return s.destroyContainer(f, at)
	case evSetState, evPushState, evPopState, evResetState:
		return s.state(def.kind, f, at)
	case evSetVariable, evAddVariable, evSubVariable:
		return s.variable(def.kind, f, at)
	case evStartLink, evEndLink:
		return s.link(def.kind, f, at)
	case evNewEvent:
		return s.newEvent(f, at)
	}
	return s.fail("event %s is not supported", def.name)
}

var typeKinds = map[eventKind]trace.Kind{
	evDefineContainerType: trace.KindContainer,
	evDefineStateType:     trace.KindState,
	evDefineVariableType:  trace.KindVariable,
	evDefineEventType:     trace.KindEvent,
	evDefineLinkType:      trace.KindLink,
}

// keys finds types and containers by alias or name. Aliases are unique;
// names need not be (g5k.trace has two container types named LINK), and a
// name refers to the most recent definition that carries it.
type keys struct {
	alias, name map[string]int32
}

func newKeys(root string, id int32) keys {
	return keys{alias: map[string]int32{root: id}, name: map[string]int32{root: id}}
}

func (k keys) lookup(key string) (int32, bool) {
	if id, ok := k.alias[key]; ok {
		return id, true
	}
	id, ok := k.name[key]
	return id, ok
}

// add registers id under name and alias; it fails if the alias is taken.
func (k keys) add(id int32, name, alias string) bool {
	if alias != "" {
		if _, dup := k.alias[alias]; dup {
			return false
		}
		k.alias[alias] = id
	}
	k.name[name] = id
	return true
}

func (s *simulator) lookupType(key string, want trace.Kind) (int32, error) {
	id, ok := s.typeKeys.lookup(key)
	if !ok {
		return 0, s.fail("unknown type %q", key)
	}
	if id == trace.None {
		if want == trace.KindContainer {
			return id, nil
		}
		return 0, s.fail("type %q is the root container type, not a %s type", key, want)
	}
	if got := s.types[id].Kind; got != want {
		return 0, s.fail("type %q is a %s type, not a %s type", key, got, want)
	}
	return id, nil
}

func (s *simulator) defineType(kind eventKind, f fields) error {
	name, alias := f.get(roleName), f.get(roleAlias)
	parent, err := s.lookupType(f.get(roleType), trace.KindContainer)
	if err != nil {
		return err
	}
	t := trace.Type{Name: name, Alias: alias, Kind: typeKinds[kind], Parent: parent,
		Start: trace.None, End: trace.None, Color: f.get(roleColor)}
	if kind == evDefineLinkType {
		if t.Start, err = s.lookupType(f.get(roleStartContainerType), trace.KindContainer); err != nil {
			return err
		}
		if t.End, err = s.lookupType(f.get(roleEndContainerType), trace.KindContainer); err != nil {
			return err
		}
	}
	id := int32(len(s.types))
	if !s.typeKeys.add(id, name, alias) {
		return s.fail("type alias %q is defined twice", alias)
	}
	s.types = append(s.types, t)
	s.sink.DefineType(t)
	return nil
}

func (s *simulator) defineValue(f fields) error {
	typ, ok := s.typeKeys.lookup(f.get(roleType))
	if !ok || typ == trace.None {
		return s.fail("unknown type %q", f.get(roleType))
	}
	switch s.types[typ].Kind {
	case trace.KindState, trace.KindEvent, trace.KindLink:
	default:
		return s.fail("type %q is a %s type, which has no named values", f.get(roleType), s.types[typ].Kind)
	}
	name, alias := f.get(roleName), f.get(roleAlias)
	if _, dup := s.valueByKey[valueKey{typ, name}]; dup {
		return s.fail("value %q of type %q is defined twice", name, s.types[typ].Name)
	}
	s.addValue(trace.Value{Type: typ, Name: name, Alias: alias, Color: f.get(roleColor)})
	return nil
}

func (s *simulator) addValue(v trace.Value) int32 {
	id := int32(len(s.valueByKey))
	s.valueByKey[valueKey{v.Type, v.Name}] = id
	if v.Alias != "" {
		s.valueByKey[valueKey{v.Type, v.Alias}] = id
	}
	s.sink.DefineValue(v)
	return id
}

// value finds a value of typ by alias or name, creating it on first use as
// PajeNG does for values that were never defined.
func (s *simulator) value(typ int32, key string) int32 {
	if id, ok := s.valueByKey[valueKey{typ, key}]; ok {
		return id
	}
	return s.addValue(trace.Value{Type: typ, Name: key})
}

func (s *simulator) lookupContainer(key string) (int32, *liveContainer, error) {
	id, ok := s.contKeys.lookup(key)
	if !ok {
		return 0, nil, s.fail("unknown container %q", key)
	}
	return id, s.containers[id], nil
}

func (s *simulator) createContainer(f fields, at trace.Time) error {
	typ, err := s.lookupType(f.get(roleType), trace.KindContainer)
	if err != nil {
		return err
	}
	parent, pc, err := s.lookupContainer(f.get(roleContainer))
	if err != nil {
		return err
	}
	if typ == trace.None {
		return s.fail("a container cannot have the root type")
	}
	if want := s.types[typ].Parent; want != pc.typ {
		return s.fail("container type %q belongs in %s containers, not in %q",
			s.types[typ].Name, s.typeLabel(want), f.get(roleContainer))
	}
	if pc.destroyed {
		return s.fail("parent container %q was destroyed", f.get(roleContainer))
	}
	name, alias := f.get(roleName), f.get(roleAlias)
	id := int32(len(s.containers))
	if !s.contKeys.add(id, name, alias) {
		return s.fail("container alias %q is defined twice", alias)
	}
	s.containers = append(s.containers, &liveContainer{typ: typ, start: at})
	s.sink.CreateContainer(trace.Container{Name: name, Alias: alias, Type: typ, Parent: parent, Start: at, End: trace.Unset})
	return nil
}

func (s *simulator) typeLabel(id int32) string {
	if id == trace.None {
		return "the root"
	}
	return fmt.Sprintf("%q", s.types[id].Name)
}

func (s *simulator) destroyContainer(f fields, at trace.Time) error {
	id, c, err := s.lookupContainer(f.get(roleName))
	if err != nil {
		return err
	}
	typ, err := s.lookupType(f.get(roleType), trace.KindContainer)
	if err != nil {
		return err
	}
	if typ != c.typ {
		return s.fail("container %q is not of type %q", f.get(roleName), f.get(roleType))
	}
	if c.destroyed {
		return s.fail("container %q is destroyed twice", f.get(roleName))
	}
	s.closeContainer(id, c, at)
	c.destroyed = true
	s.sink.DestroyContainer(id, at)
	return nil
}

// closeContainer ends everything still open in container id at time at.
// Types are visited in a fixed order so that output is deterministic.
func (s *simulator) closeContainer(id int32, c *liveContainer, at trace.Time) {
	for _, typ := range sortedKeys(c.stacks) {
		s.closeStates(id, typ, c.stacks[typ], 0, at)
		c.stacks[typ] = c.stacks[typ][:0]
	}
	for _, typ := range sortedKeys(c.variables) {
		v := c.variables[typ]
		s.sink.Variable(trace.Variable{Container: id, Type: typ, Start: v.start, End: at, Value: v.value})
		delete(c.variables, typ)
	}
}

func sortedKeys[V any](m map[int32]V) []int32 {
	keys := make([]int32, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	return keys
}

// closeStates ends the states of stack from the top down to depth from.
func (s *simulator) closeStates(cont, typ int32, stack []openState, from int, at trace.Time) {
	for d := len(stack) - 1; d >= from; d-- {
		st := stack[d]
		s.sink.State(trace.State{Container: cont, Type: typ, Value: st.value, Start: st.start, End: at, Depth: int32(d)})
	}
}

// entityTarget resolves the Type and Container fields of an entity event.
func (s *simulator) entityTarget(f fields, kind trace.Kind) (typ, cont int32, c *liveContainer, err error) {
	if typ, err = s.lookupType(f.get(roleType), kind); err != nil {
		return
	}
	if cont, c, err = s.lookupContainer(f.get(roleContainer)); err != nil {
		return
	}
	if want := s.types[typ].Parent; want != c.typ {
		err = s.fail("%s type %q belongs in %s containers, not in %q",
			kind, s.types[typ].Name, s.typeLabel(want), f.get(roleContainer))
		return
	}
	if c.destroyed {
		err = s.fail("container %q was destroyed", f.get(roleContainer))
	}
	return
}

func (s *simulator) state(kind eventKind, f fields, at trace.Time) error {
	typ, cont, c, err := s.entityTarget(f, trace.KindState)
	if err != nil {
		return err
	}
	if c.stacks == nil {
		c.stacks = map[int32][]openState{}
	}
	stack := c.stacks[typ]
	switch kind {
	case evSetState:
		s.closeStates(cont, typ, stack, 0, at)
		stack = append(stack[:0], openState{s.value(typ, f.get(roleValue)), at})
	case evPushState:
		stack = append(stack, openState{s.value(typ, f.get(roleValue)), at})
	case evPopState:
		if len(stack) == 0 {
			return s.fail("PopState on container %q: no %q state to pop", f.get(roleContainer), s.types[typ].Name)
		}
		s.closeStates(cont, typ, stack, len(stack)-1, at)
		stack = stack[:len(stack)-1]
	case evResetState:
		s.closeStates(cont, typ, stack, 0, at)
		stack = stack[:0]
	}
	c.stacks[typ] = stack
	return nil
}

func (s *simulator) variable(kind eventKind, f fields, at trace.Time) error {
	typ, cont, c, err := s.entityTarget(f, trace.KindVariable)
	if err != nil {
		return err
	}
	v, err := parseDouble([]byte(f.get(roleValue)))
	if err != nil {
		return s.fail("%v", err)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return s.fail("variable value %q is not a finite number", f.get(roleValue))
	}
	if c.variables == nil {
		c.variables = map[int32]*openVariable{}
	}
	prev := c.variables[typ]
	if prev == nil && kind != evSetVariable {
		return s.fail("%s on variable %q of %q, which has no value yet", f.def.name, s.types[typ].Name, f.get(roleContainer))
	}
	next := v
	switch kind {
	case evAddVariable:
		next = prev.value + v
	case evSubVariable:
		next = prev.value - v
	}
	if prev != nil {
		s.sink.Variable(trace.Variable{Container: cont, Type: typ, Start: prev.start, End: at, Value: prev.value})
	}
	c.variables[typ] = &openVariable{value: next, start: at}
	return nil
}

func (s *simulator) link(kind eventKind, f fields, at trace.Time) error {
	typ, cont, _, err := s.entityTarget(f, trace.KindLink)
	if err != nil {
		return err
	}
	k := linkKey{typ, f.get(roleKey)}
	p := s.links[k]
	if p == nil {
		p = &pendingLink{line: s.line, link: trace.Link{Container: cont, Type: typ, Value: trace.None,
			From: trace.None, To: trace.None, Key: k.key, Size: math.NaN()}}
		s.links[k] = p
	}
	endRole := roleStartContainer
	if kind == evEndLink {
		endRole = roleEndContainer
	}
	end, _, err := s.lookupContainer(f.get(endRole))
	if err != nil {
		return err
	}
	if kind == evStartLink {
		if p.haveStart {
			return s.fail("StartLink with key %q of type %q is already open (line %d)", k.key, s.types[typ].Name, p.line)
		}
		p.haveStart, p.link.Start, p.link.From = true, at, end
		p.link.Value = s.value(typ, f.get(roleValue))
	} else {
		if p.haveEnd {
			return s.fail("EndLink with key %q of type %q is already pending (line %d)", k.key, s.types[typ].Name, p.line)
		}
		p.haveEnd, p.link.End, p.link.To = true, at, end
		if p.link.Value == trace.None {
			p.link.Value = s.value(typ, f.get(roleValue))
		}
	}
	if p.haveStart && p.haveEnd {
		if p.link.End < p.link.Start {
			return s.fail("link with key %q ends at %s, before it starts at %s", k.key, p.link.End, p.link.Start)
		}
		s.sink.Link(p.link)
		delete(s.links, k)
	}
	return nil
}

func (s *simulator) newEvent(f fields, at trace.Time) error {
	typ, cont, _, err := s.entityTarget(f, trace.KindEvent)
	if err != nil {
		return err
	}
	s.sink.Event(trace.Event{Container: cont, Type: typ, Value: s.value(typ, f.get(roleValue)), Time: at})
	return nil
}

// finish closes what is still open at the end of the trace.
func (s *simulator) finish() error {
	for _, p := range s.links {
		side := "EndLink"
		if !p.haveStart {
			side = "StartLink"
		}
		return errs.Format(s.file, p.line, "link with key %q of type %q never gets its %s",
			p.link.Key, s.types[p.link.Type].Name, side)
	}
	for id, c := range s.containers {
		if !c.destroyed {
			s.closeContainer(int32(id), c, s.last)
		}
	}
	s.sink.Finish(s.first, s.last)
	return nil
}
