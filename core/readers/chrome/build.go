package chrome

import (
	"bytes"
	"cmp"
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/readers/nesting"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// link is a matched pair of flow points.
type link struct{ from, to int32 }

// unmatched is a flow point no link uses, reported as a point event.
type unmatched struct {
	point int32
	what  string
}

// build turns what was collected into sink calls: types, containers in
// display order, then states, events, variables and links.
func (c *collector) build(file string, sink trace.Sink) error {
	// The CPU profiles are weighed as their samples are read, and once
	// they are states (a profile file is all samples, read here).
	if err := c.addSampledStacks(); err != nil {
		return err
	}
	c.profileSlices()
	if err := c.weigh(); err != nil {
		return err
	}
	c.matchBeginEnd()
	c.splitGPUAnnotations()
	c.gather()
	c.dropLLVMTotals()
	c.closeOpenSlices()
	if err := c.nest(file); err != nil {
		return err
	}
	links, lost := c.matchFlows()
	launches, waits := c.correlate(links)
	async := c.matchAsync()

	e := emitter{c: c, sink: sink, values: map[[3]int32]int32{}}
	if as, ok := sink.(trace.ArgsSink); ok && as.KeepsArgs() {
		e.args = as
	}
	if ss, ok := sink.(trace.StreamSink); ok {
		e.streams = ss
	}
	e.defineTypes(len(links) > 0, len(lost) > 0, &async)
	if len(launches) > 0 {
		e.correlation = e.define(trace.Type{Name: "Correlation", Kind: trace.KindLink, Parent: trace.None, Start: e.thread, End: e.thread,
			Role: trace.RoleLaunchSynced})
	}
	if len(waits) > 0 {
		e.eventWait = e.define(trace.Type{Name: "CUDA event wait", Kind: trace.KindLink, Parent: trace.None, Start: e.thread, End: e.thread,
			Role: trace.RoleEventWait})
	}
	e.createContainers(async.groups)
	e.states()
	lanes, firstSlice, firstEvent := e.lanesInOrder(&async)
	e.asyncStates(&async, lanes, firstSlice)
	e.instants()
	e.asyncEvents(&async, lanes, firstEvent)
	e.flows(links, lost)
	e.gpuLinks(launches, waits)
	e.variables()
	if c.timed {
		sink.Finish(c.first, c.last)
	} else {
		sink.Finish(0, 0)
	}
	return nil
}

// matchBeginEnd pairs each thread's B and E events in time order (file
// order for equal times): an E closes the latest open B, whatever its name,
// as in the trace viewers. An E with nothing open is counted and dropped; a
// B still open at the end of the input was still running when the
// recording stopped and ends with its thread's recording (see
// closeOpenSlices).
func (c *collector) matchBeginEnd() {
	for ti := range c.threads {
		t := &c.threads[ti]
		if t.marks.len() == 0 {
			continue
		}
		marks := t.marks.gather()
		slices.SortFunc(marks, func(a, b mark) int {
			if r := cmp.Compare(a.ts, b.ts); r != 0 {
				return r
			}
			return cmp.Compare(a.seq, b.seq)
		})
		var open []mark
		for _, m := range marks {
			if m.begin {
				open = append(open, m)
				continue
			}
			if len(open) == 0 {
				c.notes.skip("end events (ph E) that close nothing", 1)
				continue
			}
			b := open[len(open)-1]
			open = open[:len(open)-1]
			*t.slices.add() = slice{start: b.ts, end: m.ts, name: b.name, cat: b.cat, args: c.joinArgs(b.args, m.args), seq: b.seq}
		}
		for _, b := range open {
			*t.slices.add() = slice{start: b.ts, end: openEnd, name: b.name, cat: b.cat, args: b.args, seq: b.seq}
			t.open = true
		}
		c.notes.unended.Add(int32(ti), int64(len(open)))
	}
}

// closeOpenSlices ends the slices still running when the recording
// stopped (X without dur, B without E) at the last instant seen on their
// thread, as the trace viewer does: the thread was recorded until then.
// Only the threads that have some are looked through.
func (c *collector) closeOpenSlices() {
	for ti := range c.threads {
		t := &c.threads[ti]
		if !t.open {
			continue
		}
		for i := range t.slices.len() {
			if s := t.slices.at(i); s.end == openEnd {
				s.end = t.last
			}
		}
	}
}

// micros formats nanoseconds as the microseconds the file holds.
func micros(t trace.Time) string {
	s := strconv.FormatFloat(float64(t)/1e3, 'f', 3, 64)
	if t > -1<<53 && t < 1<<53 {
		return s
	}
	return strconv.FormatInt(int64(t), 10) + "ns"
}

// nest assigns depths and lanes thread by thread and binds flow points.
func (c *collector) nest(file string) error {
	order := c.flowsByThread()
	next := 0
	var tracker nesting.Tracker
	for ti := range c.threads {
		t := &c.threads[ti]
		first := next
		for next < len(order) && c.flows.at(int(order[next])).thread == int32(ti) {
			next++
		}
		lanes, ok := nestThread(&tracker, &t.slices, &c.flows, order[first:next])
		if !ok {
			return errs.Format(file, 0, "pid %s tid %s has more than %d mutually overlapping slices",
				c.strs.str(c.procs[t.proc].key), c.strs.str(t.key), nesting.DefaultMaxLanes)
		}
		t.lanes = lanes
	}
	return nil
}

// matchFlows links the flow points of each flow in time order, as Perfetto
// does: s opens the flow, t links from the last point and becomes it, f
// links from the last point and leaves the flow open, so one launch may
// fan out to several kernels. At one instant a start comes before a step,
// a step before an end, whatever their order in the file (Kineto writes
// the end of a launch's flow before its start when both have the call's
// time). The points no link uses are returned too.
func (c *collector) matchFlows() ([]link, []unmatched) {
	order := c.flowsByKey()
	// A link ends at a point of its own: as many as half the points in the
	// usual start-end pairs, made at once rather than grown.
	links := make([]link, 0, len(order)/2)
	var lost []unmatched
	sameFlow := func(a, b *flowPoint) bool { return a.cat == b.cat && a.id == b.id && a.scope == b.scope }
	fl := &c.flows
	for i := 0; i < len(order); {
		from, linked := int32(-1), false
		first := fl.at(int(order[i]))
		j := i
		for ; j < len(order); j++ {
			at := order[j]
			p := fl.at(int(at))
			if !sameFlow(first, p) {
				break
			}
			switch {
			case p.phase == 's':
				if from >= 0 && !linked {
					lost = append(lost, unmatched{from, "start without end"})
				}
				from, linked = at, false
			case from < 0:
				what := "end without start"
				if p.phase == 't' {
					what = "step without start"
				}
				lost = append(lost, unmatched{at, what})
			default:
				links = append(links, link{from, at})
				linked = true
				if p.phase == 't' {
					from = at
				}
			}
		}
		if from >= 0 && !linked {
			lost = append(lost, unmatched{from, "start without end"})
		}
		i = j
	}
	return links, lost
}

// phaseRank orders the flow points of one instant: start, step, end.
func phaseRank(ph byte) int {
	switch ph {
	case 's':
		return 0
	case 't':
		return 1
	}
	return 2
}

// emitter makes the sink calls.
type emitter struct {
	c    *collector
	sink trace.Sink

	args    trace.ArgsSink   // nil when the sink does not keep arguments
	streams trace.StreamSink // nil when the sink does not want streams

	nTypes                                               int32
	process, thread, state, instant, procInstant, global int32
	track, asyncSlice, asyncInstant, asyncStep           int32
	flow, lostFlow                                       int32
	correlation, eventWait                               int32 // the links of correlate
	counters                                             []int32

	values           map[[3]int32]int32 // (type, interned name, interned category) -> value
	launchValues     map[int32]int32    // interned name -> the value of Kineto's launch flows of that name (launchFlowValue)
	recordingValues  map[[2]int32]int32 // (interned name, category) -> the value of Kineto's spans of its recording (recordingValue)
	recentValues     [valueSlots]recentValue
	nValues          int32
	nStates, nEvents int
	groupCont        []int32 // container of an async group's lane 0; lane k is groupCont+k
	nConts           int32
	procCont         []int32
	thrCont          []int32 // container of a thread's lane 0; lane k is thrCont+k
}

func (e *emitter) define(t trace.Type) int32 {
	e.sink.DefineType(t)
	e.nTypes++
	return e.nTypes - 1
}

// defineTypes defines the container types and the entity types the trace
// uses, in a fixed order.
func (e *emitter) defineTypes(links, lostFlows bool, async *asyncResult) {
	c := e.c
	kindOf := func(name string, kind trace.Kind, parent int32) int32 {
		return e.define(trace.Type{Name: name, Kind: kind, Parent: parent, Start: trace.None, End: trace.None})
	}
	e.process = kindOf("Process", trace.KindContainer, trace.None)
	e.thread = kindOf("Thread", trace.KindContainer, e.process)
	e.state, e.instant, e.procInstant, e.global, e.flow, e.lostFlow = trace.None, trace.None, trace.None, trace.None, trace.None, trace.None
	e.track, e.asyncSlice, e.asyncInstant, e.asyncStep = trace.None, trace.None, trace.None, trace.None
	if len(c.tracks) > 0 {
		// Each top-level slice of a lane is an operation of its own async
		// id, whatever came before it on the lane.
		e.track = e.define(trace.Type{Name: "Async track", Kind: trace.KindContainer, Parent: e.process, Start: trace.None, End: trace.None,
			Role: trace.RoleAsyncLane})
	}
	for _, t := range c.threads {
		if t.slices.len() > 0 {
			e.state = kindOf("Slice", trace.KindState, e.thread)
			break
		}
	}
	var scopes [3]bool
	for _, in := range c.instants {
		switch in.scope {
		case 't':
			scopes[0] = true
		case 'p':
			scopes[1] = true
		default:
			scopes[2] = true
		}
	}
	if scopes[0] {
		e.instant = kindOf("Instant", trace.KindEvent, e.thread)
	}
	if scopes[1] {
		e.procInstant = kindOf("Process instant", trace.KindEvent, e.process)
	}
	if scopes[2] {
		e.global = kindOf("Global instant", trace.KindEvent, trace.None)
	}
	if len(async.slices) > 0 {
		e.asyncSlice = kindOf("Async slice", trace.KindState, e.track)
	}
	var instants, steps bool
	for _, ev := range async.events {
		instants = instants || ev.phase == 'n'
		steps = steps || ev.phase != 'n'
	}
	if instants {
		e.asyncInstant = kindOf("Async instant", trace.KindEvent, e.track)
	}
	if steps {
		e.asyncStep = kindOf("Async step", trace.KindEvent, e.track)
	}
	if links {
		e.flow = e.define(trace.Type{Name: "Flow", Kind: trace.KindLink, Parent: trace.None, Start: e.thread, End: e.thread})
	}
	if lostFlows {
		e.lostFlow = kindOf("Unmatched flow", trace.KindEvent, e.thread)
	}
	for _, k := range c.counterTypes {
		name := c.strs.str(k.name) + " " + c.strs.str(k.key)
		e.counters = append(e.counters, kindOf(name, trace.KindVariable, e.process))
	}
}

// valueSlots is the size of the emitter's cache of values, which spares
// most slices a lookup in the map of values (hashing a 12-byte key): a
// trace has a few hundred distinct names per type, met again and again.
const valueSlots = 256

// recentValue is a slot of that cache: a key of values and its value
// plus one, 0 when empty.
type recentValue struct {
	key [3]int32
	v   int32
}

// value returns the value of type typ named by interned string name in
// category cat (none for no category), defining it on first use.
func (e *emitter) value(typ, name, cat int32) int32 {
	k := [3]int32{typ, name, cat}
	h := (uint32(typ)*0x9e3779b1 ^ uint32(name)*0x85ebca6b ^ uint32(cat)*0xc2b2ae35) * 0x27d4eb2f
	slot := &e.recentValues[h>>24&(valueSlots-1)]
	if slot.v != 0 && slot.key == k {
		return slot.v - 1
	}
	v, ok := e.values[k]
	if !ok {
		v = e.defineValue(k)
	}
	*slot = recentValue{k, v + 1}
	return v
}

// launchFlowValue returns the value of the Flow type named name that
// Kineto's launch flows (isLaunchFlow) have: trace.RoleLaunchFlow, apart
// from the value of other flows of that name.
func (e *emitter) launchFlowValue(name int32) int32 {
	if v, ok := e.launchValues[name]; ok {
		return v
	}
	v := e.nValues
	e.nValues++
	if e.launchValues == nil {
		e.launchValues = map[int32]int32{}
	}
	e.launchValues[name] = v
	e.sink.DefineValue(trace.Value{Type: e.flow, Name: e.c.strs.str(name), Role: trace.RoleLaunchFlow})
	return v
}

// recordingValue returns the value of the State type named name in
// category cat that Kineto's spans of its own recording (kinetoSpan)
// have: trace.RoleRecording, apart from the value of another producer's
// slices of that name and category, which are operations.
func (e *emitter) recordingValue(name, cat int32) int32 {
	k := [2]int32{name, cat}
	if v, ok := e.recordingValues[k]; ok {
		return v
	}
	v := e.nValues
	e.nValues++
	if e.recordingValues == nil {
		e.recordingValues = map[[2]int32]int32{}
	}
	e.recordingValues[k] = v
	e.sink.DefineValue(trace.Value{Type: e.state, Name: e.c.strs.str(name), Category: e.c.strs.str(cat), Role: trace.RoleRecording})
	return v
}

// defineValue numbers and delivers a value first met.
func (e *emitter) defineValue(k [3]int32) int32 {
	typ, name, cat := k[0], k[1], k[2]
	v := e.nValues
	e.nValues++
	e.values[k] = v
	n, c := e.c.strs.str(name), e.c.strs.str(cat)
	r := valueRole(n, c)
	var step int32
	if r == trace.RoleStep || r == trace.RoleStepCall {
		var ok bool
		if step, ok = trace.ProfilerStep(n); !ok {
			step, _ = paddleStep(n, c)
		}
	}
	e.sink.DefineValue(trace.Value{Type: typ, Name: n, Category: c, Role: r, Step: step})
	return v
}

// kinetoSyncs are the roles of the synchronisations Kineto records on the
// GPU side (category cuda_sync), by name.
var kinetoSyncs = map[string]trace.Role{"Stream Sync": trace.RoleStreamSync, "Context Sync": trace.RoleContextSync,
	"Event Sync": trace.RoleEventSync, "Stream Wait Event": trace.RoleStreamWaitEvent}

// kinetoCalls are Kineto's categories of the host calls Holistic Trace
// Analysis walks: operators and runtime and driver calls, not annotations
// or Python functions. Kineto's first releases (PyTorch 1.8 and 1.9)
// named them Operator and Runtime.
var kinetoCalls = map[string]bool{"cpu_op": true, "cuda_runtime": true, "cuda_driver": true,
	"Operator": true, "Runtime": true}

// valueRole is the role of the events named name in category cat:
// Kineto's spans of the profiler's recording (kinetoSpan), its copies of
// the host's annotations on the GPU streams (never steps: they trail the
// host's), its synchronisations on the GPU side, NCCL's kernels among its GPU
// operations, the GPU runtime's launching and blocking calls (by name, in
// any category), PyTorch profiler's steps (ProfilerStep#N, whose N the
// value's Step is), Kineto's other host calls, and the compilers'
// outlined OpenMP bodies (in the stacks of any producer; a value has one
// role, and one of Kineto's calls keeps RoleHostCall).
func valueRole(name, cat string) trace.Role {
	switch {
	case cat == gpuAnnotation:
		// Kineto's copies of the host's annotations on the GPU streams,
		// which span idle time between the kernels they mark.
		return trace.RoleDeviceAnnotation
	case cat == "cuda_sync":
		return kinetoSyncs[name]
	case gpuCategory([]byte(cat)) == gpuOp && trace.NCCLKernel(name):
		return trace.RoleCommunicationKernel
	case trace.GPUCallRole(name) != trace.RoleNone:
		return trace.GPUCallRole(name)
	case isProfilerStep(name):
		// PyTorch profiler's steps on the host.
		if kinetoCalls[cat] {
			return trace.RoleStepCall
		}
		return trace.RoleStep
	case isPaddleStep(name, cat):
		// PaddlePaddle's profiler's steps.
		return trace.RoleStep
	case kinetoCalls[cat]:
		return trace.RoleHostCall
	case trace.OutlinedParallelBody(name):
		return trace.RoleParallelRegion
	}
	return trace.RoleNone
}

// kinetoSpan tells whether a slice of category Trace named name, on
// thread tid of process pid, is one of the spans Kineto writes of its
// own recording (libkineto's ChromeTraceLogger::handleTraceSpan): pid
// "Spans", tid the span's name, and named "<prefix><span> (<iteration>)"
// ("PyTorch Profiler (0)" on thread "PyTorch Profiler", and its other
// profilers' "__cupti_profiler__ (-1)", "MTIA Activity Trace (-1)").
// Another producer's category Trace is its own, even named "Iteration
// (3)": its slices stay operations.
func kinetoSpan(pid, tid, name string) bool {
	if pid != "Spans" || tid == "" {
		return false
	}
	rest, ok := strings.CutSuffix(name, ")")
	if !ok {
		return false
	}
	i := strings.LastIndex(rest, " (")
	if i <= 0 || !strings.HasSuffix(rest[:i], tid) {
		return false
	}
	n := strings.TrimPrefix(rest[i+2:], "-")
	return n != "" && strings.Trim(n, "0123456789") == ""
}

// paddleStep reads the number of a step of PaddlePaddle's profiler
// (paddle.profiler.Profiler.step): category ProfileStep, named
// "ProfileStep#<n>" and the step's duration ("ProfileStep#3[22.057 ms]").
func paddleStep(name, cat string) (int32, bool) {
	rest, ok := strings.CutPrefix(name, "ProfileStep#")
	if cat != "ProfileStep" || !ok {
		return 0, false
	}
	d := 0
	for d < len(rest) && rest[d] >= '0' && rest[d] <= '9' {
		d++
	}
	if d == 0 || d < len(rest) && rest[d] != '[' {
		return 0, false
	}
	n, err := strconv.ParseInt(rest[:d], 10, 32)
	return int32(n), err == nil
}

func isPaddleStep(name, cat string) bool {
	_, ok := paddleStep(name, cat)
	return ok
}

// isProfilerStep tells whether name is a step's of PyTorch's profiler,
// whose number trace.ProfilerStep reads.
func isProfilerStep(name string) bool {
	_, ok := trace.ProfilerStep(name)
	return ok
}

// emitState delivers a state, its arguments and its stream.
func (e *emitter) emitState(s trace.State, args int32) {
	e.sink.State(s)
	e.giveArgs(trace.KindState, e.nStates, args)
	if e.streams != nil && args != none {
		r := e.c.argsRefs[args]
		if id, ok := argsStream(e.c.argsArena[r.off : r.off+r.n]); ok {
			e.streams.StateStream(e.nStates, id)
		}
	}
	e.nStates++
}

// argsStream reads the stream an operation ran on from its arguments
// (Kineto's "stream", an integer; the stream ids are 32-bit, and the -1 of
// no stream is written 4294967295).
func argsStream(args []byte) (int32, bool) {
	if !bytes.Contains(args, []byte(`"stream"`)) {
		return 0, false
	}
	var a struct {
		Stream json.RawMessage `json:"stream"`
	}
	if json.Unmarshal(args, &a) != nil || len(a.Stream) == 0 {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(a.Stream), 64)
	if err != nil || f != float64(int64(f)) {
		return 0, false
	}
	return int32(int64(f)), true
}

// emitEvent delivers an event and its arguments.
func (e *emitter) emitEvent(ev trace.Event, args int32) {
	e.sink.Event(ev)
	e.giveArgs(trace.KindEvent, e.nEvents, args)
	e.nEvents++
}

func (e *emitter) giveArgs(kind trace.Kind, index int, args int32) {
	if e.args == nil || args == none {
		return
	}
	r := e.c.argsRefs[args]
	e.args.Args(kind, index, string(e.c.argsArena[r.off:r.off+r.n]))
}

// order sorts items for display: those with a sort index (explicit, or
// their numeric id) by it, the others after them; ties keep the order of
// first appearance.
func order(n int, rank func(i int) (int64, bool)) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		ra, oka := rank(a)
		rb, okb := rank(b)
		switch {
		case oka && okb:
			return cmp.Compare(ra, rb)
		case oka:
			return -1
		case okb:
			return 1
		}
		return 0
	})
	return idx
}

func (e *emitter) rank(explicit bool, index int64, key int32) (int64, bool) {
	if explicit {
		return index, true
	}
	n, err := strconv.ParseInt(e.c.strs.str(key), 10, 64)
	return n, err == nil
}

func (e *emitter) create(name, alias string, typ, parent int32) int32 {
	e.nConts++ // the root is container 0
	e.sink.CreateContainer(trace.Container{Name: name, Alias: alias, Type: typ, Parent: parent,
		Start: e.c.first, End: trace.Unset})
	return e.nConts
}

// createLanes creates the container name of type typ under parent, then,
// up to lanes containers in all, its siblings "<name> (overlap lane k)"
// (alias "<alias>#k"), named by names, the lanes of parent, and returns
// the first.
func (e *emitter) createLanes(names *trace.Lanes, name, alias string, lanes, typ, parent int32) int32 {
	first := e.create(name, alias, typ, parent)
	for lane := int32(1); lane < lanes; lane++ {
		e.create(names.Name(name, int(lane)), alias+"#"+strconv.Itoa(int(lane)), typ, parent)
	}
	return first
}

// siblings returns the lanes of a process whose threads and async groups
// are named names: a lane takes no name of theirs.
func siblings(names ...[]string) *trace.Lanes {
	taken := map[string]bool{}
	for _, ns := range names {
		for _, n := range ns {
			taken[n] = true
		}
	}
	return &trace.Lanes{Taken: func(n string) bool { return taken[n] }}
}

// createContainers creates processes in display order, each followed by
// its threads, each thread followed by its overlap lanes, then by its async
// groups, each followed by its lanes.
//
// Processes are told apart by pid and threads by (pid, tid), never by
// name: when two processes, or two threads of one process, would show the
// same name, each gets its identifier after the name ("worker 12",
// "worker 13"), so that no two containers share a path and none is merged
// downstream. Async groups are told apart by name.
func (e *emitter) createContainers(groups []asyncGroup) {
	c := e.c
	e.procCont = make([]int32, len(c.procs))
	e.thrCont = make([]int32, len(c.threads))
	e.groupCont = make([]int32, len(groups))
	groupsOf := make([][]int32, len(c.procs))
	for g := range groups {
		groupsOf[groups[g].proc] = append(groupsOf[groups[g].proc], int32(g))
	}
	procs := order(len(c.procs), func(i int) (int64, bool) {
		return e.rank(c.procs[i].hasSortIndex, c.procs[i].sortIndex, c.procs[i].key)
	})
	procNames := make([]string, len(c.procs))
	for pi := range c.procs {
		p := &c.procs[pi]
		name := c.strs.str(p.key)
		if p.name != none {
			name = shownName(c.strs.str(p.name), name)
		}
		if labels := c.strs.str(p.labels); labels != "" && labels != name {
			name += " (" + labels + ")"
		}
		procNames[pi] = name
	}
	procNames = distinct(procNames, func(i int) string { return c.strs.str(c.procs[i].key) })
	for _, pi := range procs {
		p := &c.procs[pi]
		e.procCont[pi] = e.create(procNames[pi], c.strs.str(p.key), e.process, 0)
		threads := order(len(p.threads), func(i int) (int64, bool) {
			t := &c.threads[p.threads[i]]
			return e.rank(t.hasSortIndex, t.sortIndex, t.key)
		})
		thrNames := make([]string, len(p.threads))
		for k, ti := range p.threads {
			t := &c.threads[ti]
			thrNames[k] = c.strs.str(t.key)
			if t.name != none {
				thrNames[k] = shownName(c.strs.str(t.name), thrNames[k])
			}
		}
		thrNames = distinct(thrNames, func(k int) string { return c.strs.str(c.threads[p.threads[k]].key) })
		groupNames := apartFrom(e.asyncGroupNames(groups, groupsOf[pi]), thrNames)
		lanes := siblings(thrNames, groupNames)
		for _, k := range threads {
			ti := p.threads[k]
			t := &c.threads[ti]
			name, alias := thrNames[k], c.strs.str(t.key)
			e.thrCont[ti] = e.createLanes(lanes, name, alias, t.lanes, e.thread, e.procCont[pi])
		}
		for k, g := range groupsOf[pi] {
			e.groupCont[g] = e.createLanes(lanes, groupNames[k], "", groups[g].lanes, e.track, e.procCont[pi])
		}
	}
}

// asyncGroupNames returns the names of the containers of the async
// groups mine (of one process, in order of first appearance), whose lanes
// are named as a thread's. An empty name reads "[No name]", as in
// Perfetto.
func (e *emitter) asyncGroupNames(groups []asyncGroup, mine []int32) []string {
	names := make([]string, len(mine))
	for k, g := range mine {
		if names[k] = e.c.strs.str(groups[g].name); names[k] == "" {
			names[k] = "[No name]"
		}
	}
	// The names of groups differ, but for a group without name and one
	// named "[No name]": numbered.
	return distinct(names, func(k int) string { return names[k] })
}

// shownName returns the name a process_name or thread_name gives its
// container, without the white space around it, which no viewer shows
// and no one types in a path: Kineto names its GPU streams "stream 7 ".
// A name of white space alone leaves the container named by its
// identifier, key.
func shownName(name, key string) string {
	if n := strings.TrimSpace(name); n != "" {
		return n
	}
	return key
}

// apartFrom returns the names of the async groups of a process, groups,
// where none is the name of one of its threads: a group named as a
// thread takes the suffix " (async)", or " (async k)" for the least k
// from 2 that no thread or group has, so that the two containers do not
// share a path (as the overlap lanes of trace.Lanes keep apart).
func apartFrom(groups, threads []string) []string {
	thread := make(map[string]bool, len(threads))
	for _, n := range threads {
		thread[n] = true
	}
	var taken map[string]bool
	for k, n := range groups {
		if !thread[n] {
			continue
		}
		if taken == nil {
			taken = maps.Clone(thread)
			for _, g := range groups {
				taken[g] = true
			}
		}
		for i := 1; ; i++ {
			s := n + " (async)"
			if i > 1 {
				s = n + " (async " + strconv.Itoa(i) + ")"
			}
			if !taken[s] {
				groups[k], taken[s] = s, true
				break
			}
		}
	}
	return groups
}

// distinct returns names where every name shared by several items is
// followed by each item's identifier; names already distinct stay as
// they are. A name equal to its item's identifier (a thread without
// thread_name) is not repeated. Items alike in name and identifier are
// then numbered in order.
func distinct(names []string, id func(i int) string) []string {
	count := make(map[string]int, len(names))
	for _, n := range names {
		count[n]++
	}
	for i, n := range names {
		if count[n] > 1 {
			if ident := id(i); ident != n {
				names[i] = n + " " + ident
			}
		}
	}
	clear(count)
	for _, n := range names {
		count[n]++
	}
	seen := make(map[string]int, len(names))
	for i, n := range names {
		if count[n] > 1 {
			seen[n]++
			if seen[n] > 1 {
				names[i] = n + " (" + strconv.Itoa(seen[n]) + ")"
			}
		}
	}
	return names
}

// states emits the slices thread by thread, each thread's in start order.
func (e *emitter) states() {
	c := e.c
	for ti := range c.threads {
		th := &c.threads[ti]
		// Kineto's spans of its recording are on threads of process
		// "Spans" (kinetoSpan), where another producer's are not.
		spans := c.strs.str(c.procs[th.proc].key) == "Spans"
		for _, chunk := range th.slices.parts() {
			for i := range chunk {
				s := &chunk[i]
				var v int32
				if spans && s.cat != none && c.strs.str(s.cat) == "Trace" &&
					kinetoSpan("Spans", c.strs.str(th.key), c.strs.str(s.name)) {
					v = e.recordingValue(s.name, s.cat)
				} else {
					v = e.value(e.state, s.name, s.cat)
				}
				e.emitState(trace.State{Container: e.thrCont[ti] + s.lane, Type: e.state,
					Value: v, Start: s.start, End: s.end, Depth: s.depth}, s.args)
			}
		}
	}
}

// instants emits instant events by container, then time.
func (e *emitter) instants() {
	c := e.c
	type placed struct {
		cont, typ int32
		in        *instant
	}
	all := make([]placed, len(c.instants))
	for i := range c.instants {
		in := &c.instants[i]
		switch in.scope {
		case 't':
			all[i] = placed{e.thrCont[in.owner], e.instant, in}
		case 'p':
			all[i] = placed{e.procCont[in.owner], e.procInstant, in}
		default:
			all[i] = placed{0, e.global, in}
		}
	}
	slices.SortFunc(all, func(a, b placed) int {
		if r := cmp.Compare(a.cont, b.cont); r != 0 {
			return r
		}
		if r := cmp.Compare(a.in.ts, b.in.ts); r != 0 {
			return r
		}
		return cmp.Compare(a.in.seq, b.in.seq)
	})
	for _, p := range all {
		e.emitEvent(trace.Event{Container: p.cont, Type: p.typ, Value: e.value(p.typ, p.in.name, p.in.cat), Time: p.in.ts}, p.in.args)
	}
}

// flows emits the links, then the flow points no link uses.
func (e *emitter) flows(links []link, lost []unmatched) {
	c := e.c
	cont := func(p *flowPoint) int32 { return e.thrCont[p.thread] + p.lane }
	for _, l := range links {
		from, to := c.flows.at(int(l.from)), c.flows.at(int(l.to))
		key := c.strs.str(from.id)
		if from.cat != none {
			key = c.strs.str(from.cat) + ":" + key
		}
		value := e.value(e.flow, from.name, none)
		if c.isLaunchFlow(from) {
			value = e.launchFlowValue(from.name)
		}
		e.sink.Link(trace.Link{Container: 0, Type: e.flow, Value: value,
			Start: from.at, End: to.at, From: cont(from), To: cont(to), Key: key, Size: math.NaN()})
	}
	for _, u := range lost {
		p := c.flows.at(int(u.point))
		what := u.what
		if p.cat != none {
			what = c.strs.str(p.cat) + ": " + what
		}
		name := c.strs.id([]byte(what))
		e.emitEvent(trace.Event{Container: cont(p), Type: e.lostFlow, Value: e.value(e.lostFlow, name, none), Time: p.ts}, none)
	}
}

// gpuLink is a link correlate draws between two slices (an event wait
// leaves from lane 0 of a stream, at the time its event was recorded).
type gpuLink struct {
	fromThread, fromLane, toThread, toLane int32
	start, end                             trace.Time
	name                                   int32 // the slice it leaves from
	key                                    int64 // the correlation id
}

// launchFlows are the categories of Kineto's flows from a call to its
// operations, whose id is the correlation id: ac2g, and async_cpu_to_gpu
// before PyTorch 1.13.
var launchFlows = map[string]bool{"ac2g": true, "async_cpu_to_gpu": true}

// isLaunchFlow tells whether the flow point p starts one of Kineto's
// flows from a call to the GPU operation it enqueued, whose category
// changed with PyTorch's releases: ac2g since 1.13, async_cpu_to_gpu
// before (launchFlows), and in the first releases (1.8, 1.9) the general
// category async, the flow named "launch".
func (c *collector) isLaunchFlow(p *flowPoint) bool {
	if p.cat == none {
		return false
	}
	cat := c.strs.str(p.cat)
	return launchFlows[cat] || cat == "async" && c.strs.str(p.name) == "launch"
}

// correlate draws the links the correlation ids of Kineto's GPU events
// give, as Holistic Trace Analysis reads them:
//   - launches: from a runtime or driver call to each GPU operation or
//     synchronisation of its correlation id, where no matched launch flow
//     (launchFlows) of that id does already (traces written without flows, and
//     Kineto's synchronisation flows, whose two ends are both f);
//   - event waits: from the stream a cudaEventRecord call recorded on
//     (wait_on_stream, on the device of the synchronisation), at the
//     call's start, to the synchronisation that waits for that event
//     ("Event Sync", "Stream Wait Event", whose
//     wait_on_cuda_event_record_corr_id is the call's correlation id).
func (c *collector) correlate(links []link) (launches, waits []gpuLink) {
	if len(c.gpuCalls) == 0 || len(c.gpuOps) == 0 {
		return nil, nil
	}
	// The correlation ids of the matched launch flows, sorted.
	flowed := make([]int64, 0, len(links))
	for _, l := range links {
		if p := c.flows.at(int(l.from)); p.cat != none && launchFlows[c.strs.str(p.cat)] {
			if n, ok := flowID(c.strs.str(p.id)); ok {
				flowed = append(flowed, n)
			}
		}
	}
	flowedSet := newIDSet(flowed)
	var unflowed []int32 // the operations no flow links
	for i, g := range c.gpuOps {
		if !flowedSet.has(g.correlation) {
			unflowed = append(unflowed, int32(i))
		}
	}
	if len(unflowed) == 0 && len(c.gpuWaits) == 0 {
		return nil, nil // Kineto's usual trace: its flows say it all
	}
	calls, ops := c.placeGPU(c.gpuCalls), c.placeGPU(c.gpuOps)
	call := map[int64]int32{} // correlation id -> its call, the first in the file
	for i, g := range c.gpuCalls {
		if _, dup := call[g.correlation]; !dup && calls[i] != nil {
			call[g.correlation] = int32(i)
		}
	}
	for _, i := range unflowed {
		g, op := &c.gpuOps[i], ops[i]
		if k, ok := call[g.correlation]; ok && op != nil {
			from := calls[k]
			launches = append(launches, gpuLink{fromThread: c.gpuCalls[k].thread, fromLane: from.lane, toThread: g.thread,
				toLane: op.lane, start: from.start, end: op.start, name: from.name, key: g.correlation})
		}
	}
	var threadOf map[[2]string]int32 // (pid, tid) as the file writes them -> thread
	for _, w := range c.gpuWaits {
		g, op := &c.gpuOps[w.op], ops[w.op]
		k, ok := call[w.record]
		if !ok || op == nil {
			continue
		}
		if threadOf == nil {
			threadOf = map[[2]string]int32{}
			for ti, t := range c.threads {
				threadOf[[2]string{c.strs.str(c.procs[t.proc].key), c.strs.str(t.key)}] = int32(ti)
			}
		}
		pid := c.strs.str(c.procs[c.threads[g.thread].proc].key)
		stream, ok := threadOf[[2]string{pid, strconv.FormatInt(w.stream, 10)}]
		if !ok {
			continue // nothing ran on the stream: no operation to wait for
		}
		record := calls[k]
		waits = append(waits, gpuLink{fromThread: stream, toThread: g.thread, toLane: op.lane,
			start: record.start, end: op.start, name: record.name, key: w.record})
	}
	return launches, waits
}

// flowID returns the value of a flow's id as strconv.ParseInt reads it,
// and whether it is an integer: a launch flow's id is the correlation id
// its writer counts up, in the form decimal reads without ParseInt's
// generality (a third of correlate's time).
func flowID(id string) (int64, bool) {
	if n, ok := decimal(unsafe.Slice(unsafe.StringData(id), len(id))); ok {
		return int64(n), true
	}
	n, err := strconv.ParseInt(id, 10, 64)
	return n, err == nil
}

// idSet holds the correlation ids of the matched launch flows: a bitmap
// over their range where they are dense (writers number them up, and a
// binary search for each GPU operation took a tenth of the build of a
// Kineto trace), sorted for a binary search otherwise.
type idSet struct {
	min    int64
	bits   []uint64
	sorted []int64
}

func newIDSet(ids []int64) idSet {
	if len(ids) == 0 {
		return idSet{}
	}
	lo, hi := slices.Min(ids), slices.Max(ids)
	if span := uint64(hi) - uint64(lo); span/64 < uint64(len(ids)) { // no more words than ids
		bits := make([]uint64, span/64+1)
		for _, id := range ids {
			d := uint64(id) - uint64(lo)
			bits[d/64] |= 1 << (d % 64)
		}
		return idSet{min: lo, bits: bits}
	}
	slices.Sort(ids)
	return idSet{sorted: ids}
}

// has tells whether id is in the set.
func (s *idSet) has(id int64) bool {
	if s.bits != nil {
		d := uint64(id) - uint64(s.min)
		return d/64 < uint64(len(s.bits)) && s.bits[d/64]&(1<<(d%64)) != 0
	}
	_, ok := slices.BinarySearch(s.sorted, id)
	return ok
}

// placeGPU returns the slice of each GPU event (events are in file
// order, as their sequence numbers), once the threads' slices are nested.
func (c *collector) placeGPU(events []gpuEvent) []*slice {
	at := make([]*slice, len(events))
	for ti := range c.threads {
		t := &c.threads[ti]
		for i := range t.slices.len() {
			s := t.slices.at(i)
			k, ok := slices.BinarySearchFunc(events, s.seq, func(g gpuEvent, seq int32) int { return cmp.Compare(g.seq, seq) })
			if ok && events[k].thread == int32(ti) {
				at[k] = s
			}
		}
	}
	return at
}

// gpuLinks emits the links correlate drew, keyed by their correlation id.
func (e *emitter) gpuLinks(launches, waits []gpuLink) {
	for _, ls := range [...]struct {
		typ   int32
		links []gpuLink
	}{{e.correlation, launches}, {e.eventWait, waits}} {
		for _, l := range ls.links {
			e.sink.Link(trace.Link{Container: 0, Type: ls.typ, Value: e.value(ls.typ, l.name, none),
				Start: l.start, End: l.end, From: e.thrCont[l.fromThread] + l.fromLane, To: e.thrCont[l.toThread] + l.toLane,
				Key: strconv.FormatInt(l.key, 10), Size: math.NaN()})
		}
	}
}

// variables emits each counter series of each process as a piecewise
// constant variable: a sample holds until the next one, the last until the
// end of the trace.
func (e *emitter) variables() {
	c := e.c
	slices.SortFunc(c.samples, compareSamples)
	for i, s := range c.samples {
		end := c.last
		if i+1 < len(c.samples) && c.samples[i+1].proc == s.proc && c.samples[i+1].typ == s.typ {
			end = c.samples[i+1].ts
		}
		e.sink.Variable(trace.Variable{Container: e.procCont[s.proc], Type: e.counters[s.typ],
			Start: s.ts, End: end, Value: s.value})
	}
}

// compareSamples orders counter samples by process, series, time, then in
// file order. Each key is compared only when the ones before it tie: the
// sort calls it a few million times for a DevTools trace.
func compareSamples(a, b sample) int {
	switch {
	case a.proc != b.proc:
		return cmp.Compare(a.proc, b.proc)
	case a.typ != b.typ:
		return cmp.Compare(a.typ, b.typ)
	case a.ts != b.ts:
		return cmp.Compare(a.ts, b.ts)
	}
	return cmp.Compare(a.seq, b.seq)
}
