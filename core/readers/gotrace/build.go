package gotrace

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	xtrace "golang.org/x/exp/trace"

	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Names of the types the reader defines.
const (
	TypeRuntime    = "Runtime"
	TypeGoroutines = "Goroutines"
	TypeGoroutine  = "Goroutine"
	TypeProcs      = "Procs"
	TypeP          = "P"

	StateGoroutine = "Goroutine state"   // on goroutines: running, runnable, waiting: <reason>, syscall
	StateRegion    = "Region"            // on goroutines: trace.WithRegion, nested
	StateP         = "P state"           // on Ps: running, idle
	StatePRunning  = "Running goroutine" // on Ps: the function of the goroutine it runs
	StateSTW       = "STW"               // on the runtime: stop-the-world (reason)
	// Other ranges of the runtime (GC concurrent mark phase, GC
	// incremental sweep, GC mark assist) are state types named after them.

	EventLog       = "Log"        // on goroutines: trace.Log, "category: message"
	EventTaskBegin = "Task begin" // on goroutines: trace.NewTask, the task's type
	EventTaskEnd   = "Task end"
	EventLabel     = "Label" // on goroutines: the runtime's labels (GC workers)

	LinkSpawn = "spawn" // from the creating goroutine to the goroutine it created
)

// Values of the goroutine and P states.
const (
	valueRunning  = "running"
	valueRunnable = "runnable"
	valueWaiting  = "waiting"
	valueSyscall  = "syscall"
	valueIdle     = "idle"
)

// lane is a container's track of one state type whose states follow each
// other without nesting (a goroutine's state, a P's, a range).
type lane struct {
	value int32
	start trace.Time
	open  bool
	order int32 // states begun so far
}

// goroutine is what the reader knows of a goroutine while it lives.
type goroutine struct {
	id      xtrace.GoID
	cid     int32 // container, trace.None until created
	born    trace.Time
	fn      string // the function it runs, "" while unknown
	state   lane
	p       xtrace.ProcID // where it runs while running
	regions []region      // open regions, outermost first
	nRegion int32         // regions begun so far
	ranges  ranges        // GC mark assists
	// The value of its runs on a P (its label) and the function it was
	// found for: a goroutine runs many times, under one name mostly.
	runValue int32
	runFn    string
	runKnown bool
	// pending holds the first states of a goroutine that existed before
	// the trace, while its function is unknown: a goroutine parked at the
	// trace's start is made Runnable, then Running, and only the stack of
	// its parking names it. Created at its first state, it was "G17" in
	// one run and "G17 runtime.updateMaxProcsGoroutine" in another.
	pending []trace.State
}

// maxPending is the most states a goroutine of unknown function keeps
// before its container is made without a function: a stack usually
// comes within the first few transitions.
const maxPending = 8

type region struct {
	value int32
	start trace.Time
	order int32
}

// proc is what the reader knows of a P.
type proc struct {
	cid     int32
	state   lane
	running lane       // the goroutine it runs
	g       *goroutine // the goroutine it runs, nil if none
	ranges  ranges     // GC sweeps
}

// ranges are the tracks of a resource's runtime ranges, by state type.
type ranges map[int32]*lane

func (r *ranges) lane(typ int32) *lane {
	if *r == nil {
		*r = ranges{}
	}
	l := (*r)[typ]
	if l == nil {
		l = &lane{}
		(*r)[typ] = l
	}
	return l
}

// close delivers the open ranges, in type order.
func (r ranges) close(b *builder, container int32, now trace.Time) {
	for _, typ := range sortedKeys(r) {
		b.closeLane(r[typ], container, typ, now)
	}
}

type valueKey struct {
	typ  int32
	name string
}

// metric is a runtime metric, a variable of the runtime container.
type metric struct {
	name  string
	typ   int32
	value float64
	since trace.Time
}

// builder turns the parser's events into the model. Containers, types
// and values are defined when first needed, so the sink receives them
// before anything that refers to them.
type builder struct {
	sink trace.Sink
	opt  trace.ReadOptions
	// unended counts the user regions still open at the end, by goroutine.
	unended trace.Unended
	file    string           // the trace's name, for notes
	text    ingest.ValidText // the names made valid UTF-8 (a damaged string table)

	started bool
	base    xtrace.Time // the first event's time, the trace's 0
	last    trace.Time

	nTypes, nValues, nContainers int32
	values                       map[valueKey]int32
	types                        map[string]int32 // range and metric types by name
	// The values of goroutine states, by state (1 + the value; 0: not
	// yet defined) and, for waiting, by reason: goroutines change state at
	// most of a trace's events, and these spare each change the building
	// and hashing of its value's name.
	goStateValues [8]int32
	waitingValues map[string]int32
	waitingRecent recent // ahead of waitingValues
	regionRecent  recent // the values of region types
	// The values of P states, as goStateValues (1 + the value; 0: not yet
	// defined).
	pRunningValue, pIdleValue int32

	tGoroutine, tP, tRuntime                   int32 // container types
	sGoroutine, sRegion, sP, sPRunning         int32 // state types
	eLog, eTaskBegin, eTaskEnd, eLabel, lSpawn int32
	runtime, goroutines, procs                 int32 // group containers

	gs      idTable[xtrace.GoID, goroutine]
	ps      idTable[xtrace.ProcID, proc]
	global  ranges // GC phases, stop-the-world
	metrics map[string]*metric
	// The metrics last seen, looked up before the map: the heap in use
	// changes at a million events of a large trace.
	metricRecent     [4]*metric
	metricRecentNext int

	skipped map[string]int64
}

func newBuilder(sink trace.Sink, opt trace.ReadOptions, file string) *builder {
	return &builder{
		sink: sink, opt: opt, file: file,
		values:        map[valueKey]int32{},
		types:         map[string]int32{},
		waitingValues: map[string]int32{},
		metrics:       map[string]*metric{},
		skipped:       map[string]int64{},
	}
}

func (b *builder) defineType(t trace.Type) int32 {
	if t.Kind != trace.KindLink {
		t.Start, t.End = trace.None, trace.None
	}
	t.Name = b.text.String(t.Name)
	b.sink.DefineType(t)
	b.nTypes++
	return b.nTypes - 1
}

func (b *builder) value(typ int32, name string) int32 {
	k := valueKey{typ, name}
	if v, ok := b.values[k]; ok {
		return v
	}
	b.sink.DefineValue(trace.Value{Type: typ, Name: b.text.String(name)})
	b.values[k] = b.nValues
	b.nValues++
	return b.nValues - 1
}

func (b *builder) container(name, alias string, typ, parent int32, start trace.Time) int32 {
	b.sink.CreateContainer(trace.Container{Name: b.text.String(name), Alias: b.text.String(alias), Type: typ, Parent: parent, Start: start, End: trace.Unset})
	b.nContainers++
	return b.nContainers // the root is container 0
}

// begin defines the fixed types and the group containers at the first
// event, whose time becomes the trace's 0.
func (b *builder) begin(t xtrace.Time) {
	b.started, b.base = true, t
	c := func(name string, parent int32) int32 {
		return b.defineType(trace.Type{Name: name, Kind: trace.KindContainer, Parent: parent})
	}
	b.tRuntime = c(TypeRuntime, trace.None)
	tGoroutines := c(TypeGoroutines, trace.None)
	b.tGoroutine = c(TypeGoroutine, tGoroutines)
	tProcs := c(TypeProcs, trace.None)
	b.tP = c(TypeP, tProcs)
	s := func(name string, parent int32) int32 {
		return b.defineType(trace.Type{Name: name, Kind: trace.KindState, Parent: parent})
	}
	b.sGoroutine = s(StateGoroutine, b.tGoroutine)
	b.sRegion = s(StateRegion, b.tGoroutine)
	b.sP = s(StateP, b.tP)
	b.sPRunning = s(StatePRunning, b.tP)
	e := func(name string) int32 {
		return b.defineType(trace.Type{Name: name, Kind: trace.KindEvent, Parent: b.tGoroutine})
	}
	b.eLog, b.eTaskBegin, b.eTaskEnd, b.eLabel = e(EventLog), e(EventTaskBegin), e(EventTaskEnd), e(EventLabel)
	b.lSpawn = b.defineType(trace.Type{Name: LinkSpawn, Kind: trace.KindLink, Parent: tGoroutines, Start: b.tGoroutine, End: b.tGoroutine})
	b.runtime = b.container(TypeRuntime, "", b.tRuntime, 0, 0)
	b.goroutines = b.container(TypeGoroutines, "", tGoroutines, 0, 0)
	b.procs = b.container(TypeProcs, "", tProcs, 0, 0)
}

// time converts a parser time to the model's: nanoseconds since the first
// event.
func (b *builder) time(t xtrace.Time) trace.Time {
	now := trace.Time(t - b.base)
	b.last = max(b.last, now)
	return now
}

func (b *builder) skip(what string) { b.skipped[what]++ }

func (b *builder) event(in *input) {
	if !b.started {
		b.begin(in.time)
	}
	now := b.time(in.time)
	switch in.kind {
	case xtrace.EventSync:
		// Generation boundaries: the parser restates every resource's
		// state after them, which changes nothing here.
	case xtrace.EventStateTransition:
		switch in.res {
		case xtrace.ResourceGoroutine:
			b.goTransition(in, now)
		case xtrace.ResourceProc:
			b.procTransition(in, now)
		default:
			b.skip("thread state transitions")
		}
	case xtrace.EventRangeBegin, xtrace.EventRangeActive:
		b.rangeBegin(in, now)
	case xtrace.EventRangeEnd:
		b.rangeEnd(in, now)
	case xtrace.EventRegionBegin:
		g := b.running(in)
		if g == nil {
			b.skip("regions outside any goroutine")
			return
		}
		v, ok := b.regionRecent.get(in.name)
		if !ok {
			v = b.value(b.sRegion, in.name)
			b.regionRecent.put(in.name, v)
		}
		g.regions = append(g.regions, region{v, now, g.nRegion})
		g.nRegion++
	case xtrace.EventRegionEnd:
		g := b.running(in)
		if g == nil || len(g.regions) == 0 {
			// The parser checks that regions nest; an end with nothing
			// open is a region begun before the trace started.
			b.skip("region ends whose beginning precedes the trace")
			return
		}
		b.closeRegion(g, now)
	case xtrace.EventLog:
		text := in.message
		if in.category != "" {
			text = in.category + ": " + in.message
		}
		b.goEvent(in, b.eLog, text, now, "logs")
	case xtrace.EventTaskBegin:
		b.goEvent(in, b.eTaskBegin, in.name, now, "task beginnings")
	case xtrace.EventTaskEnd:
		b.goEvent(in, b.eTaskEnd, in.name, now, "task ends")
	case xtrace.EventLabel:
		g := b.gs.get(in.resG)
		if g == nil {
			b.skip("labels of unknown goroutines")
			return
		}
		b.sink.Event(trace.Event{Container: b.ensure(g), Type: b.eLabel, Value: b.value(b.eLabel, in.name), Time: now})
	case xtrace.EventMetric:
		b.metric(in, now)
	case xtrace.EventStackSample:
		b.skip("CPU profile samples")
	case xtrace.EventExperimental:
		b.skip("experimental events")
	default:
		b.skip("events of kind " + in.kind.String())
	}
}

// running returns the goroutine an event happened on, nil if none or
// unknown; a stack of the event names its function if still unknown.
func (b *builder) running(in *input) *goroutine {
	g := b.gs.get(in.g)
	if g != nil && g.fn == "" {
		g.fn = in.stack.outermost()
	}
	return g
}

// goEvent delivers a point event on the goroutine of in.
func (b *builder) goEvent(in *input, typ int32, value string, now trace.Time, what string) {
	g := b.running(in)
	if g == nil {
		b.skip(what + " outside any goroutine")
		return
	}
	b.sink.Event(trace.Event{Container: b.ensure(g), Type: typ, Value: b.value(typ, value), Time: now})
}

// ensure creates the container of g if it does not exist yet. Goroutines
// that exist when the trace starts are created when first needed, so that
// the stacks seen meanwhile can name their function.
func (b *builder) ensure(g *goroutine) int32 {
	if g.cid == trace.None {
		id := "G" + strconv.FormatInt(int64(g.id), 10)
		name := id
		if g.fn != "" {
			name += " " + g.fn
		}
		g.cid = b.container(name, id, b.tGoroutine, b.goroutines, g.born)
		for _, st := range g.pending {
			st.Container = g.cid
			b.sink.State(st)
		}
		g.pending = nil
	}
	return g.cid
}

// goStateValue is b.value(b.sGoroutine, goState(to, reason)), remembered
// by state and reason.
func (b *builder) goStateValue(to xtrace.GoState, reason string) int32 {
	if to == xtrace.GoWaiting {
		if v, ok := b.waitingRecent.get(reason); ok {
			return v
		}
		v, ok := b.waitingValues[reason]
		if !ok {
			v = b.value(b.sGoroutine, goState(to, reason))
			b.waitingValues[reason] = v
		}
		b.waitingRecent.put(reason, v)
		return v
	}
	if int(to) >= len(b.goStateValues) {
		return b.value(b.sGoroutine, goState(to, reason))
	}
	if v := b.goStateValues[to]; v != 0 {
		return v - 1
	}
	v := b.value(b.sGoroutine, goState(to, reason))
	b.goStateValues[to] = v + 1
	return v
}

// goState is the value of a goroutine state.
func goState(to xtrace.GoState, reason string) string {
	switch to {
	case xtrace.GoRunning:
		return valueRunning
	case xtrace.GoRunnable:
		return valueRunnable
	case xtrace.GoSyscall:
		return valueSyscall
	case xtrace.GoWaiting:
		if reason != "" {
			return valueWaiting + ": " + reason
		}
		return valueWaiting
	}
	return to.String()
}

func (b *builder) goTransition(in *input, now trace.Time) {
	id := in.resG
	from, to := in.goFrom, in.goTo
	g := b.gs.get(id)
	created := from == xtrace.GoNotExist && to != xtrace.GoNotExist
	// A goroutine first seen in a status it had before (a generation's
	// statement of a goroutine parked since before the trace, made as
	// late as the trace's end when it never woke) has been in that state
	// since the trace began: no transition of it went unrecorded. Waiting
	// and runnable need no P, so their lane starts at its birth, 0; the
	// others start when told, as the Ps' lanes do.
	since := now
	if g == nil && from == xtrace.GoUndetermined && (to == xtrace.GoWaiting || to == xtrace.GoRunnable) {
		since = 0
	}
	if g == nil {
		if to == xtrace.GoNotExist { // ends a goroutine never seen: nothing to model
			return
		}
		g = &goroutine{id: id, cid: trace.None, p: xtrace.NoProc}
		if created {
			g.born = now
		} // else it existed before the trace started: it is born at 0
		b.gs.set(id, g)
	}
	if created {
		// The stack of a creation is the new goroutine's start: its
		// first frame is the function it runs. The event's own stack is
		// the creator's.
		g.fn = in.stStack.innermost()
		if parent := b.running(in); parent != nil && parent != g {
			b.sink.Link(trace.Link{Container: b.goroutines, Type: b.lSpawn, Value: b.value(b.lSpawn, g.label()),
				Start: now, End: now, From: b.ensure(parent), To: b.ensure(g), Size: math.NaN()})
		} else if g.fn != "" {
			b.ensure(g)
		} // else (a C thread calling Go) created when needed, once a stack may have named it
	} else if g.fn == "" {
		g.fn = in.stStack.outermost()
	}
	if from == to && g.state.open {
		return // a generation's restatement
	}
	if from == xtrace.GoRunning {
		b.stopRunning(g, now)
	}
	if g.state.open && g.cid == trace.None && g.fn == "" && len(g.pending) < maxPending {
		l := &g.state
		g.pending = append(g.pending, trace.State{Type: b.sGoroutine, Value: l.value, Start: l.start, End: now, Order: l.order})
		l.open = false
		l.order++
	} else if g.state.open {
		b.closeLane(&g.state, b.ensure(g), b.sGoroutine, now)
	}
	if to == xtrace.GoNotExist {
		b.destroy(g, now)
		return
	}
	b.openLane(&g.state, b.goStateValue(to, in.reason), since)
	if to == xtrace.GoRunning {
		if p := b.ps.get(in.p); p != nil {
			if p.g != nil {
				b.stopRunning(p.g, now)
			}
			g.p, p.g = in.p, g
			b.openLane(&p.running, trace.None, now) // valued at its end, when the function is likelier known
		}
	}
}

// destroy ends a goroutine, with its open regions and ranges.
func (b *builder) destroy(g *goroutine, now trace.Time) {
	cid := b.ensure(g)
	for len(g.regions) > 0 {
		b.closeRegion(g, now)
	}
	g.ranges.close(b, cid, now)
	b.sink.DestroyContainer(cid, now)
	b.gs.del(g.id)
}

// stopRunning ends the P track of a goroutine that stops running.
func (b *builder) stopRunning(g *goroutine, now trace.Time) {
	if p := b.ps.get(g.p); p != nil && p.g == g {
		if !g.runKnown || g.runFn != g.fn {
			g.runValue, g.runFn, g.runKnown = b.value(b.sPRunning, g.label()), g.fn, true
		}
		p.running.value = g.runValue
		b.closeLane(&p.running, p.cid, b.sPRunning, now)
		p.g = nil
	}
	g.p = xtrace.NoProc
}

// label names a goroutine by its function.
func (g *goroutine) label() string {
	if g.fn != "" {
		return g.fn
	}
	return "G" + strconv.FormatInt(int64(g.id), 10)
}

func (b *builder) procTransition(in *input, now trace.Time) {
	id := in.resP
	from, to := in.pFrom, in.pTo
	p := b.ps.get(id)
	if p == nil {
		if to == xtrace.ProcNotExist {
			return
		}
		start := now
		if from == xtrace.ProcUndetermined {
			start = 0 // it existed before the trace started
		}
		name := "P" + strconv.FormatInt(int64(id), 10)
		p = &proc{cid: b.container(name, name, b.tP, b.procs, start)}
		b.ps.set(id, p)
	}
	if from == to && p.state.open {
		return
	}
	b.closeLane(&p.state, p.cid, b.sP, now)
	switch to {
	case xtrace.ProcRunning:
		b.openLane(&p.state, b.pStateValue(&b.pRunningValue, valueRunning), now)
	case xtrace.ProcIdle:
		b.openLane(&p.state, b.pStateValue(&b.pIdleValue, valueIdle), now)
	}
}

// pStateValue is b.value(b.sP, name), remembered in *known.
func (b *builder) pStateValue(known *int32, name string) int32 {
	if *known == 0 {
		*known = 1 + b.value(b.sP, name)
	}
	return *known - 1
}

func (b *builder) openLane(l *lane, value int32, now trace.Time) {
	l.value, l.start, l.open = value, now, true
}

// closeLane delivers the open state of a lane, if any.
func (b *builder) closeLane(l *lane, container, typ int32, now trace.Time) {
	if !l.open {
		return
	}
	b.sink.State(trace.State{Container: container, Type: typ, Value: l.value, Start: l.start, End: now, Order: l.order})
	l.open = false
	l.order++
}

// closeRegion delivers the innermost open region of g.
func (b *builder) closeRegion(g *goroutine, now trace.Time) {
	d := len(g.regions) - 1
	r := g.regions[d]
	g.regions = g.regions[:d]
	b.sink.State(trace.State{Container: b.ensure(g), Type: b.sRegion, Value: r.value, Start: r.start, End: now,
		Depth: int32(d), Order: r.order})
}

// rangeTrack returns the track, container and state type of a runtime
// range (GC phases, stop-the-world, sweeping, mark assists), defining its
// type when new, or ok = false when its resource is unknown.
func (b *builder) rangeTrack(in *input) (l *lane, container, typ int32, ok bool) {
	name, scope := in.name, in.res
	if strings.HasPrefix(name, "stop-the-world") {
		// Scoped to the goroutine that stops the world, but global:
		// one at a time, on the runtime.
		name, scope = StateSTW, xtrace.ResourceNone
	}
	var parent int32
	var tracks *ranges
	switch scope {
	case xtrace.ResourceNone:
		parent, container, tracks = b.tRuntime, b.runtime, &b.global
	case xtrace.ResourceGoroutine:
		g := b.gs.get(in.resG)
		if g == nil {
			return nil, 0, 0, false
		}
		parent, container, tracks = b.tGoroutine, b.ensure(g), &g.ranges
	case xtrace.ResourceProc:
		p := b.ps.get(in.resP)
		if p == nil {
			return nil, 0, 0, false
		}
		parent, container, tracks = b.tP, p.cid, &p.ranges
	default:
		return nil, 0, 0, false
	}
	typ, known := b.types[name]
	if !known {
		typ = b.defineType(trace.Type{Name: name, Kind: trace.KindState, Parent: parent})
		b.types[name] = typ
	}
	return tracks.lane(typ), container, typ, true
}

func (b *builder) rangeBegin(in *input, now trace.Time) {
	l, _, typ, ok := b.rangeTrack(in)
	if !ok {
		b.skip("ranges of unknown resources")
		return
	}
	if l.open {
		if in.kind != xtrace.EventRangeActive { // Active restates an open range
			b.skip("ranges begun while another of their type is open")
		}
		return
	}
	b.openLane(l, b.value(typ, in.name), now)
}

func (b *builder) rangeEnd(in *input, now trace.Time) {
	l, container, typ, ok := b.rangeTrack(in)
	if !ok || !l.open {
		b.skip("range ends without a beginning")
		return
	}
	b.closeLane(l, container, typ, now)
}

func (b *builder) metric(in *input, now trace.Time) {
	if !in.isNumber {
		b.skip("metrics that are not numbers")
		return
	}
	v := float64(in.value)
	var s *metric
	for _, m := range b.metricRecent {
		if m != nil && m.name == in.name {
			s = m
			break
		}
	}
	if s == nil {
		s = b.metrics[in.name]
		if s != nil {
			b.metricRecent[b.metricRecentNext] = s
			b.metricRecentNext = (b.metricRecentNext + 1) % len(b.metricRecent)
		}
	}
	if s == nil {
		typ, known := b.types[in.name]
		if !known {
			typ = b.defineType(trace.Type{Name: in.name, Kind: trace.KindVariable, Parent: b.tRuntime})
			b.types[in.name] = typ
		}
		b.metrics[in.name] = &metric{name: in.name, typ: typ, value: v, since: now}
		return
	}
	if v == s.value {
		return // the same value, restated
	}
	b.sink.Variable(trace.Variable{Container: b.runtime, Type: s.typ, Start: s.since, End: now, Value: s.value})
	s.value, s.since = v, now
}

// finish closes what is still open at the last event and finishes the
// trace.
func (b *builder) finish() {
	if !b.started { // an empty trace: a header and nothing else
		b.sink.Finish(0, 0)
		return
	}
	end := b.last
	for _, id := range b.gs.sorted() {
		g := b.gs.get(id)
		b.stopRunning(g, end)
		if g.state.open {
			b.closeLane(&g.state, b.ensure(g), b.sGoroutine, end)
		}
		if len(g.regions) > 0 {
			b.unended.Add(b.ensure(g), int64(len(g.regions)))
		}
		for len(g.regions) > 0 {
			b.closeRegion(g, end)
		}
		if len(g.ranges) > 0 {
			g.ranges.close(b, b.ensure(g), end)
		}
	}
	for _, id := range b.ps.sorted() {
		p := b.ps.get(id)
		b.closeLane(&p.state, p.cid, b.sP, end)
		p.ranges.close(b, p.cid, end)
	}
	b.global.close(b, b.runtime, end)
	for _, name := range sortedKeys(b.metrics) {
		s := b.metrics[name]
		b.sink.Variable(trace.Variable{Container: b.runtime, Type: s.typ, Start: s.since, End: end, Value: s.value})
	}
	for _, what := range sortedKeys(b.skipped) {
		b.opt.Notes.Skip(what, b.skipped[what])
	}
	// Goroutine and P states open at the end are what they were when the
	// tracing stopped; a user region is ended by its code, so one still open
	// is worth a word.
	b.unended.Report(b.opt, "user regions (trace.StartRegion without End)", "goroutines", "they end with it, at "+end.String()+" s")
	b.text.Note(b.opt, b.file)
	b.sink.Finish(0, end)
}

// recent remembers the values of the last few names looked up, ahead of
// a map: a trace repeats a few names (waiting reasons, region types) at
// millions of events, and comparing a string with itself (the string
// table's, the same bytes) is cheaper than hashing it.
type recent struct {
	names  [8]string
	values [8]int32 // 1 + the value; 0: empty
	next   int
}

func (r *recent) get(name string) (int32, bool) {
	for i := range r.names {
		if r.values[i] != 0 && r.names[i] == name {
			return r.values[i] - 1, true
		}
	}
	return 0, false
}

func (r *recent) put(name string, v int32) {
	r.names[r.next], r.values[r.next] = name, v+1
	r.next = (r.next + 1) % len(r.names)
}

func sortedKeys[K cmp.Ordered, V any](m map[K]V) []K {
	return slices.Sorted(maps.Keys(m))
}
