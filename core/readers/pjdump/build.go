package pjdump

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/swar"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// decoder rebuilds a trace from pj_dump lines. It keeps the containers,
// types and values, and the links until the end (their ends may be printed
// after them); states, variables and events go to the sink at once.
type decoder struct {
	sink       trace.Sink
	onInverted func(file string, line int)
	// unit is the unit of the dates (readOptions.TimeUnit).
	unit trace.Time
	// stop, if set, ends a scan of the container lines (containerLines)
	// once it says so, with errFound.
	stop func() bool
	// held weighs what the decoder holds against the read's budget
	// (trace.ReadOptions.Held): the fields of a long line.
	held func(int64) error
	// long is set while parseLong has the line: its fields are weighed.
	long bool
	// recordsElsewhere tells finish that the file has records outside the
	// byte range read, so a range of blank lines is not an empty input.
	recordsElsewhere bool

	// The file being read.
	file string
	line int
	// base is the number of lines before those decoded (a byte range of
	// the file: see readRange), so that errors name the file's lines.
	base      int
	fields    []field
	layout    layout
	hasHeader bool
	// headerNature is the nature a pj_dump_csv header names ("State,
	// Container, ..."): the file holds lines of that nature only.
	headerNature string
	sawData      bool
	// lines counts the lines that are not blank, in every file read.
	lines int
	// inFileHierarchy tells that this file holds container lines: its
	// entities then name containers on the current depth-first path, as in
	// pj_dump's output, where names need not be unique.
	inFileHierarchy bool

	conts      []cont
	stack      []int32 // depth-first path of the last container line, root first
	byName     map[string][]int32
	rootSeen   bool
	parentType map[string]int32 // container type name -> type of its parent containers
	// fromEntityHierarchy tells that the containers came from an entity
	// hierarchy (entities.csv), which may miss some.
	fromEntityHierarchy bool

	types   []trace.Type
	typeIDs map[typeKey]int32
	// typesNamed lists the types of each name (most names have one), and
	// values the values of each type by name: both are looked up with the
	// bytes of a field, without a string made for each line.
	typesNamed map[string][]int32
	values     []map[string]int32 // by type
	nValues    int32
	// lastType is the type typeOf returned last, which the next line
	// most often names again; recent holds, by type, its first values
	// (most types have a few), looked through before the map.
	lastType int32
	recent   [][]valueID

	links []pendingLink
	ends  []containerEnd // the containers to destroy at the end

	first, last trace.Time
	timed       bool
}

// valueID is a value's name and identifier.
type valueID struct {
	name string
	id   int32
}

// recentValues is how many values of a type recent holds.
const recentValues = 16

type cont struct {
	name string
	typ  int32
}

type typeKey struct {
	name   string
	kind   trace.Kind
	parent int32
}

// containerEnd is the end of a container, given by its line.
type containerEnd struct {
	id int32
	at trace.Time
}

// pendingLink is a link line kept until every container is known.
type pendingLink struct {
	file       string
	line       int
	cont       int32
	typ        field
	from, to   string
	start, end trace.Time
	value, key field
	hasValue   bool
	size       float64
}

func newDecoder(sink trace.Sink) *decoder {
	return &decoder{
		sink:       sink,
		conts:      []cont{{name: "0", typ: trace.None}},
		stack:      []int32{0},
		byName:     map[string][]int32{},
		parentType: map[string]int32{},
		typeIDs:    map[typeKey]int32{},
		typesNamed: map[string][]int32{},
		lastType:   -1,
	}
}

func (d *decoder) startFile(name string) {
	d.file, d.line = name, 0
	d.hasHeader, d.sawData, d.inFileHierarchy, d.headerNature = false, false, false, ""
}

func (d *decoder) fail(format string, args ...any) error {
	return errs.Format(d.file, d.line, format, args...)
}

// col returns the field of role c, if the line has it.
func (d *decoder) col(l *layout, c int) (field, bool) {
	if l[c] < 0 || l[c] >= len(d.fields) {
		return field{}, false
	}
	return d.fields[l[c]], true
}

// data handles one data line.
func (d *decoder) data() error {
	l := &d.layout
	natureCol := 0
	if d.hasHeader {
		natureCol = l[colNature]
	}
	if natureCol < 0 || natureCol >= len(d.fields) {
		return d.fail("line has %d fields, too few for its header", len(d.fields))
	}
	nature := natureName(d.fields[natureCol].text)
	if !d.hasHeader {
		var ok bool
		if l, ok = defaultLayout(nature); !ok {
			return d.fail("expected Container, State, Variable, Event or Link, found %s", errs.Quote(nature))
		}
	}
	if d.headerNature != "" && nature != d.headerNature {
		return d.fail("%s line under a header for %s lines", errs.Excerpt(nature), d.headerNature)
	}
	hierarchy := d.hasHeader && l[colNature] > 0 // "Parent, Name, Type, Nature"
	need := requiredOf(nature)
	if hierarchy {
		need = required["hierarchy"]
	}
	if need == nil {
		return d.fail("unknown nature %s", errs.Quote(nature))
	}
	if !d.hasHeader && nature == "State" && len(d.fields) == stateFields {
		// pj_dump's state line, the most common: every column there.
	} else {
		for _, c := range need {
			if _, ok := d.col(l, c); !ok {
				return d.fail("%s line has %d fields, too few", nature, len(d.fields))
			}
		}
	}
	var err error
	switch {
	case hierarchy && nature != "Container":
		// The entity types a container holds: the entities say it again.
	case nature == "Container":
		err = d.container(l, hierarchy)
	case nature == "Link":
		err = d.link(l)
	default:
		err = d.entity(nature, l)
	}
	if err == errSkip {
		return nil
	}
	return err
}

func (d *decoder) time(f field, what string) (trace.Time, error) {
	// pj_dump's form first, without ParseTimeBytes' call around it.
	ns, ok := swar.Decimal(f.text)
	t := trace.Time(ns)
	if !ok {
		var err error
		if t, err = trace.ParseTimeBytes(f.text); err != nil {
			return 0, d.fail("bad %s %s: %v", what, errs.QuoteBytes(f.text), err)
		}
	}
	t = trace.InUnit(t, d.unit)
	if !d.timed {
		d.first, d.last, d.timed = t, t, true
	}
	d.first, d.last = min(d.first, t), max(d.last, t)
	return t, nil
}

// interval reads the Start and End of a line. An entity row whose end
// precedes its start may be skipped (readOptions.OnInverted), a container's
// may not.
func (d *decoder) interval(l *layout, skippable bool) (start, end trace.Time, err error) {
	s, _ := d.col(l, colStart)
	e, _ := d.col(l, colEnd)
	if start, err = d.time(s, "start"); err != nil {
		return
	}
	if end, err = d.time(e, "end"); err != nil {
		return
	}
	if end < start {
		if skippable && d.onInverted != nil {
			d.onInverted(d.file, d.line)
			err = errSkip
			return
		}
		if skippable {
			// The way out, in both front ends' syntax: the reader cannot
			// tell which one called it.
			err = d.fail("ends at %s, before it starts at %s; read the file anyway, skipping such rows, with "+
				"skip_inverted=True (Python) or --read skip_inverted=true (command line)", e.text, s.text)
			return
		}
		err = d.fail("ends at %s, before it starts at %s", e.text, s.text)
	}
	return
}

// errSkip tells that the row is skipped as readOptions.OnInverted asks.
var errSkip = errors.New("skip this row")

// container handles a container line: pj_dump prints containers depth
// first, so the parent is on the path of the last container line. Names
// need not be unique; the nearest enclosing container of that name whose
// type fits wins.
func (d *decoder) container(l *layout, hierarchy bool) error {
	parentF, _ := d.col(l, colParent)
	typeF, _ := d.col(l, colType)
	nameF, _ := d.col(l, colName)
	d.inFileHierarchy = true
	d.fromEntityHierarchy = d.fromEntityHierarchy || hierarchy
	var start, end trace.Time
	var hasEnd bool
	if _, ok := d.col(l, colStart); ok && !hierarchy {
		if _, ok := d.col(l, colEnd); !ok {
			return d.fail("container line has a start but no end")
		}
		var err error
		if start, end, err = d.interval(l, false); err != nil {
			return err
		}
		hasEnd = true
	}
	if string(typeF.text) == "0" && !typeF.quoted { // the root
		if d.rootSeen || len(d.conts) > 1 {
			return d.fail("the root container (type 0) appears twice, or after other containers")
		}
		d.rootSeen = true
		d.stack = d.stack[:1]
		return nil
	}
	parentName := string(parentF.text)
	typeName := string(typeF.text)
	parent := int32(-1)
	wantType, typed := d.parentType[typeName]
	for i := len(d.stack) - 1; i >= 0; i-- {
		c := d.stack[i]
		if d.conts[c].name != parentName {
			continue
		}
		if parent < 0 {
			parent = int32(i)
		}
		if !typed || d.conts[c].typ == wantType {
			parent = int32(i)
			break
		}
	}
	if parent < 0 {
		return d.fail("parent %s is not among the enclosing containers of this line (pj_dump prints containers depth first)", errs.Quote(parentName))
	}
	if parent+1 > trace.MaxDepth { // the stack holds the root, at depth 0
		return d.fail("container %s would be nested %d levels deep, more than %d: not a trace a tool writes", errs.Quote(string(nameF.text)), parent+1, trace.MaxDepth)
	}
	d.stack = d.stack[:parent+1]
	pc := d.stack[parent]
	ptype := d.conts[pc].typ
	if !typed {
		d.parentType[typeName] = ptype
	}
	typ := d.typeOf(typeF, trace.KindContainer, ptype)
	id := int32(len(d.conts))
	name := string(nameF.text)
	d.conts = append(d.conts, cont{name: name, typ: typ})
	d.byName[name] = append(d.byName[name], id)
	d.stack = append(d.stack, id)
	d.sink.CreateContainer(trace.Container{Name: name, Type: typ, Parent: pc, Start: start, End: trace.Unset, Quoted: nameF.quoted})
	if hasEnd {
		// Destroyed at the end of the read, once its entities, printed
		// after it, have come: a sink that follows time (the moments)
		// takes no entity of a destroyed container.
		d.ends = append(d.ends, containerEnd{id, end})
	}
	return nil
}

// typeOf returns the type named by f of the given kind in containers of
// type parent, defining it on first use.
func (d *decoder) typeOf(f field, kind trace.Kind, parent int32) int32 {
	if id := d.lastType; id >= 0 {
		if t := &d.types[id]; t.Kind == kind && t.Parent == parent && t.Name == string(f.text) {
			return id
		}
	}
	for _, id := range d.typesNamed[string(f.text)] {
		if t := &d.types[id]; t.Kind == kind && t.Parent == parent {
			d.lastType = id
			return id
		}
	}
	k := typeKey{string(f.text), kind, parent}
	t := trace.Type{Name: k.name, Kind: kind, Parent: parent, Start: trace.None, End: trace.None, Quoted: f.quoted}
	return d.addType(k, t)
}

// addType defines the type t, filed under k.
func (d *decoder) addType(k typeKey, t trace.Type) int32 {
	id := int32(len(d.types))
	d.types = append(d.types, t)
	d.values = append(d.values, nil)
	d.recent = append(d.recent, nil)
	d.typeIDs[k] = id
	d.typesNamed[k.name] = append(d.typesNamed[k.name], id)
	d.sink.DefineType(t)
	return id
}

// linkType is typeOf for links, whose type also fixes the types of the
// containers at their ends.
func (d *decoder) linkType(f field, parent, from, to int32) (int32, error) {
	k := typeKey{string(f.text), trace.KindLink, parent}
	if id, ok := d.typeIDs[k]; ok {
		if t := d.types[id]; t.Start != from || t.End != to {
			return 0, fmt.Errorf("link type %s joins %s and %s containers, but earlier links of this type joined %s and %s",
				errs.Quote(k.name), d.typeName(from), d.typeName(to), d.typeName(t.Start), d.typeName(t.End))
		}
		return id, nil
	}
	t := trace.Type{Name: k.name, Kind: trace.KindLink, Parent: parent, Start: from, End: to, Quoted: f.quoted}
	return d.addType(k, t), nil
}

func (d *decoder) typeName(id int32) string {
	if id == trace.None {
		return "root"
	}
	return strconv.Quote(d.types[id].Name)
}

func (d *decoder) value(typ int32, f field) int32 {
	for _, r := range d.recent[typ] {
		if r.name == string(f.text) {
			return r.id
		}
	}
	if v, ok := d.values[typ][string(f.text)]; ok {
		return v
	}
	if d.values[typ] == nil {
		d.values[typ] = map[string]int32{}
	}
	name := string(f.text)
	v := d.nValues
	d.nValues++
	d.values[typ][name] = v
	if len(d.recent[typ]) < recentValues {
		d.recent[typ] = append(d.recent[typ], valueID{name, v})
	}
	d.sink.DefineValue(trace.Value{Type: typ, Name: name, Quoted: f.quoted})
	return v
}

// lookup finds the container an entity line names: on the current
// depth-first path when this file prints the containers too, else by its
// name, which must then be unique.
// The name is a field's bytes: the lookups compare and index with them,
// without a string made for each line.
func (d *decoder) lookup(name []byte, onPath bool) (int32, error) {
	if onPath {
		for i := len(d.stack) - 1; i >= 0; i-- {
			if c := d.stack[i]; d.conts[c].name == string(name) {
				return c, nil
			}
		}
		return 0, fmt.Errorf("container %s is not among the containers enclosing this line (pj_dump prints a container's entities after it)", errs.QuoteBytes(name))
	}
	if string(name) == "0" && len(d.byName["0"]) == 0 {
		return 0, nil
	}
	switch ids := d.byName[string(name)]; len(ids) {
	case 0:
		switch {
		case !d.hierarchyRead():
			return 0, fmt.Errorf("unknown container %s (no container lines or entity hierarchy came before)", errs.QuoteBytes(name))
		case !d.fromEntityHierarchy:
			return 0, fmt.Errorf("unknown container %s", errs.QuoteBytes(name))
		}
		return d.unlisted(string(name)), nil
	case 1:
		return ids[0], nil
	default:
		return 0, fmt.Errorf("container name %s is ambiguous: %d containers have it", errs.QuoteBytes(name), len(ids))
	}
}

// hierarchyRead tells whether some container line came before.
func (d *decoder) hierarchyRead() bool { return d.rootSeen || len(d.conts) > 1 }

// unlisted creates a container that entity lines name but the entity
// hierarchy does not list (StarVZ's lu_trace names workers its
// entities.csv lacks). pj_dump's container lines list every container, so
// this happens only with an entity hierarchy.
// Its place is unknown: it goes under the root, with the container type
// "Unlisted", rather than having its entities dropped.
func (d *decoder) unlisted(name string) int32 {
	typ := d.typeOf(field{text: []byte(unlistedType)}, trace.KindContainer, trace.None)
	id := int32(len(d.conts))
	d.conts = append(d.conts, cont{name: name, typ: typ})
	d.byName[name] = append(d.byName[name], id)
	d.sink.CreateContainer(trace.Container{Name: name, Type: typ, Parent: 0, Start: 0, End: trace.Unset})
	return id
}

// unlistedType names the type of the containers the hierarchy misses.
const unlistedType = "Unlisted"

// entity handles State, Variable and Event lines.
func (d *decoder) entity(nature string, l *layout) error {
	contF, _ := d.col(l, colContainer)
	typeF, _ := d.col(l, colType)
	valueF, _ := d.col(l, colValue)
	cont, err := d.lookup(contF.text, d.inFileHierarchy)
	if err != nil {
		return d.fail("%v", err)
	}
	ctype := d.conts[cont].typ
	switch nature {
	case "State":
		start, end, err := d.interval(l, true)
		if err != nil {
			return err
		}
		depth := int32(0)
		if f, ok := d.col(l, colDepth); ok {
			n, ok := plainDepth(f.text)
			if !ok {
				x, err := strconv.ParseFloat(string(f.text), 64)
				if err != nil || x < 0 || x != math.Trunc(x) || x > math.MaxInt32 {
					return d.fail("imbrication %s is not a natural number", errs.QuoteBytes(f.text))
				}
				n = int32(x)
			}
			depth = n
		}
		typ := d.typeOf(typeF, trace.KindState, ctype)
		d.sink.State(trace.State{Container: cont, Type: typ, Value: d.value(typ, valueF), Start: start, End: end, Depth: depth})
	case "Variable":
		start, end, err := d.interval(l, true)
		if err != nil {
			return err
		}
		x, err := strconv.ParseFloat(string(valueF.text), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return d.fail("variable value %s is not a finite number", errs.QuoteBytes(valueF.text))
		}
		typ := d.typeOf(typeF, trace.KindVariable, ctype)
		d.sink.Variable(trace.Variable{Container: cont, Type: typ, Start: start, End: end, Value: x})
	case "Event":
		at, err := d.time(d.fields[l[colStart]], "time")
		if err != nil {
			return err
		}
		typ := d.typeOf(typeF, trace.KindEvent, ctype)
		d.sink.Event(trace.Event{Container: cont, Type: typ, Value: d.value(typ, valueF), Time: at})
	}
	return nil
}

// link checks a link line and keeps it until the end.
func (d *decoder) link(l *layout) error {
	contF, _ := d.col(l, colContainer)
	cont, err := d.lookup(contF.text, d.inFileHierarchy)
	if err != nil {
		return d.fail("%v", err)
	}
	start, end, err := d.interval(l, true)
	if err != nil {
		return err
	}
	typeF, _ := d.col(l, colType)
	from, _ := d.col(l, colFrom)
	to, _ := d.col(l, colTo)
	p := pendingLink{file: d.file, line: d.line, cont: cont, typ: own(typeF), from: string(from.text), to: string(to.text),
		start: start, end: end, size: math.NaN()}
	if v, ok := d.col(l, colValue); ok {
		p.value, p.hasValue = own(v), true
	}
	if k, ok := d.col(l, colKey); ok {
		p.key = own(k)
	}
	if s, ok := d.col(l, colSize); ok {
		x, err := strconv.ParseFloat(string(s.text), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return d.fail("link size %s is not a size", errs.QuoteBytes(s.text))
		}
		p.size = x
	}
	d.links = append(d.links, p)
	return nil
}

// own copies a field out of the line buffer.
func own(f field) field { return field{text: []byte(string(f.text)), quoted: f.quoted} }

// finish emits the links, whose ends are now known, and ends the trace.
func (d *decoder) finish() error {
	if d.lines == 0 && !d.recordsElsewhere {
		// An empty dump is a file cut to nothing (pj_dump prints at least
		// the root's container line), not an empty trace.
		return errs.Format(d.file, 0, "empty input: no container or entity line")
	}
	for _, p := range d.links {
		fail := func(err error) error { return errs.Format(p.file, p.line, "%v", err) }
		from, err := d.lookup([]byte(p.from), false)
		if err != nil {
			return fail(err)
		}
		to, err := d.lookup([]byte(p.to), false)
		if err != nil {
			return fail(err)
		}
		typ, err := d.linkType(p.typ, d.conts[p.cont].typ, d.conts[from].typ, d.conts[to].typ)
		if err != nil {
			return fail(err)
		}
		value := trace.None
		if p.hasValue {
			value = d.value(typ, p.value)
		}
		d.sink.Link(trace.Link{Container: p.cont, Type: typ, Value: value, Start: p.start, End: p.end,
			From: from, To: to, Key: string(p.key.text), Size: p.size})
	}
	d.links = nil
	for _, e := range d.ends {
		d.sink.DestroyContainer(e.id, e.at)
	}
	d.ends = nil
	if d.timed {
		d.sink.Finish(d.first, d.last)
	} else {
		d.sink.Finish(0, 0)
	}
	return nil
}

// plainDepth reads the imbrication pj_dump writes, a few digits and zero
// decimals ("0.000000"), as strconv.ParseFloat and a conversion would;
// false sends any other text there.
func plainDepth(b []byte) (int32, bool) {
	// One digit and six zero decimals, as nearly every line has it: one
	// word compared.
	const sixZeros = uint64('.') | uint64('0')*0x0001010101010100 // ".000000" above the digit's byte
	if len(b) == 8 {
		if w := binary.LittleEndian.Uint64(b); w>>8 == sixZeros && byte(w)-'0' <= 9 {
			return int32(byte(w) - '0'), true
		}
	}
	i, n := 0, int32(0)
	for ; i < len(b) && b[i]-'0' <= 9; i++ {
		if i == 9 {
			return 0, false
		}
		n = n*10 + int32(b[i]-'0')
	}
	if i == 0 {
		return 0, false
	}
	if i < len(b) {
		if b[i] != '.' {
			return 0, false
		}
		for i++; i < len(b); i++ {
			if b[i] != '0' {
				return 0, false
			}
		}
	}
	return n, true
}
