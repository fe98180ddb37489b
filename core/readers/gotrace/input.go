package gotrace

import (
	xtrace "golang.org/x/exp/trace"
)

// input is what the builder reads of an event, from the parser's events
// (fromParser) or from the merge of the decoder's (fromMerge): the two
// fill it alike, so that one builder makes the model of both.
type input struct {
	kind  xtrace.EventKind
	time  xtrace.Time
	g     xtrace.GoID   // the goroutine it happened on
	p     xtrace.ProcID // the P it happened on
	stack stackRef      // its stack

	// State transitions: the resource, its states before and after,
	// the reason and the stack of the transition (for a creation, the
	// new goroutine's).
	res          xtrace.ResourceKind
	resG         xtrace.GoID
	resP         xtrace.ProcID
	goFrom, goTo xtrace.GoState
	pFrom, pTo   xtrace.ProcState
	reason       string
	stStack      stackRef

	// Ranges: the name and the resource in scope (resG or resP).
	// Regions, tasks and labels: the type or label (name); labels'
	// goroutine in resG. Logs: category and message. Metrics: the
	// name, and the value if it is a number.
	name     string
	category string
	message  string
	value    uint64
	isNumber bool
}

// stackRef is a stack of either source, read only when needed.
type stackRef struct {
	x  xtrace.Stack
	g  *wireGeneration // nil: the parser's stack x
	id uint64
}

// funcs calls yield with the function of each frame, innermost first,
// until it returns false.
func (s stackRef) funcs(yield func(string) bool) {
	if s.g == nil {
		for f := range s.x.Frames() {
			if !yield(f.Func) {
				return
			}
		}
		return
	}
	if s.id == 0 {
		return
	}
	pcs, _ := s.g.stack(s.id)
	for _, pc := range pcs {
		fn, _ := s.g.str(s.g.pcs[pc].fn)
		if !yield(fn) {
			return
		}
	}
}

// innermost returns the function of the first frame of s, "" if none. The
// stack of a goroutine's creation has one frame, the function the new
// goroutine starts in.
func (s stackRef) innermost() string {
	fn := ""
	s.funcs(func(f string) bool {
		fn = f
		return false
	})
	return fn
}

// outermost returns the function of the last frame of s, the one the
// goroutine started in, "" if none. runtime.goexit, which some stacks
// end with, is the runtime's return address, not the function.
func (s stackRef) outermost() string {
	fn := ""
	s.funcs(func(f string) bool {
		if f != "" && f != "runtime.goexit" {
			fn = f
		}
		return true
	})
	return fn
}

// fromParser fills in with what the builder reads of ev.
func fromParser(ev xtrace.Event, in *input) {
	*in = input{kind: ev.Kind(), time: ev.Time(), g: ev.Goroutine(), p: ev.Proc(), stack: stackRef{x: ev.Stack()}}
	switch in.kind {
	case xtrace.EventStateTransition:
		st := ev.StateTransition()
		in.res, in.reason, in.stStack = st.Resource.Kind, st.Reason, stackRef{x: st.Stack}
		switch st.Resource.Kind {
		case xtrace.ResourceGoroutine:
			in.resG = st.Resource.Goroutine()
			in.goFrom, in.goTo = st.Goroutine()
		case xtrace.ResourceProc:
			in.resP = st.Resource.Proc()
			in.pFrom, in.pTo = st.Proc()
		}
	case xtrace.EventRangeBegin, xtrace.EventRangeActive, xtrace.EventRangeEnd:
		r := ev.Range()
		in.name, in.res = r.Name, r.Scope.Kind
		switch r.Scope.Kind {
		case xtrace.ResourceGoroutine:
			in.resG = r.Scope.Goroutine()
		case xtrace.ResourceProc:
			in.resP = r.Scope.Proc()
		}
	case xtrace.EventRegionBegin, xtrace.EventRegionEnd:
		in.name = ev.Region().Type
	case xtrace.EventLog:
		l := ev.Log()
		in.category, in.message = l.Category, l.Message
	case xtrace.EventTaskBegin, xtrace.EventTaskEnd:
		in.name = ev.Task().Type
	case xtrace.EventLabel:
		l := ev.Label()
		in.name, in.resG = l.Label, l.Resource.Goroutine()
	case xtrace.EventMetric:
		m := ev.Metric()
		in.name = m.Name
		if m.Value.Kind() == xtrace.ValueUint64 {
			in.value, in.isNumber = m.Value.Uint64(), true
		}
	}
}

// stackArg is, by event type, 1 + the index of the argument (after the
// time delta) that holds the event's own stack, 0 if it has none.
var stackArg = func() (a [len(wireSpecs)]uint8) {
	for typ, i := range map[uint8]uint8{
		evProcsChange: 2, evGoCreate: 3, evGoCreateBlocked: 3, evGoStop: 2, evGoBlock: 2, evGoUnblock: 3,
		evGoSyscallBegin: 2, evSTWBegin: 2, evGCBegin: 2, evGCSweepBegin: 1, evGCMarkAssistBegin: 1,
		evUserTaskBegin: 4, evUserTaskEnd: 2, evUserRegionBegin: 3, evUserRegionEnd: 3, evUserLog: 4,
		evGoStatusStack: 4,
	} {
		a[typ] = i
	}
	return a
}()

// The parser's goroutine and P states by the wire's statuses.
var (
	goStateOfStatus   = [nGoStatus]xtrace.GoState{0, xtrace.GoRunnable, xtrace.GoRunning, xtrace.GoSyscall, xtrace.GoWaiting}
	procStateOfStatus = [procSyscallAbandoned + 1]xtrace.ProcState{0, xtrace.ProcRunning, xtrace.ProcIdle, xtrace.ProcRunning, xtrace.ProcIdle}
)

// fromMerge fills in with what the builder reads of a merged event of
// generation g, as fromParser does of the parser's; taskNames are the
// names of the tasks its UserTaskEnd events end.
func fromMerge(e *mergedEvent, g *wireGeneration, taskNames []string, in *input) {
	str := func(id uint64) string { s, _ := g.str(id); return s }
	stack := func(id uint64) stackRef { return stackRef{g: g, id: id} }
	*in = input{time: xtrace.Time(e.time), g: xtrace.GoID(e.g), p: xtrace.ProcID(e.p)}
	a := &e.args
	if e.typ != evSyncMark && e.typ != evCPUSample {
		if i := stackArg[e.typ]; i > 0 {
			in.stack = stack(a[i-1])
		}
	}
	goes := func(id int64, from, to xtrace.GoState) {
		in.kind, in.res, in.resG, in.goFrom, in.goTo = xtrace.EventStateTransition, xtrace.ResourceGoroutine, xtrace.GoID(id), from, to
	}
	procs := func(id int64, from, to xtrace.ProcState) {
		in.kind, in.res, in.resP, in.pFrom, in.pTo = xtrace.EventStateTransition, xtrace.ResourceProc, xtrace.ProcID(id), from, to
	}
	ranges := func(kind xtrace.EventKind, name string, res xtrace.ResourceKind, id int64) {
		in.kind, in.name, in.res = kind, name, res
		switch res {
		case xtrace.ResourceGoroutine:
			in.resG = xtrace.GoID(id)
		case xtrace.ResourceProc:
			in.resP = xtrace.ProcID(id)
		}
	}
	metric := func(name string) {
		in.kind, in.name, in.value, in.isNumber = xtrace.EventMetric, name, a[0], true
	}
	switch e.typ {
	case evSyncMark:
		in.kind = xtrace.EventSync
	case evCPUSample:
		in.kind = xtrace.EventStackSample
	case evProcStart:
		procs(int64(a[0]), xtrace.ProcIdle, xtrace.ProcRunning)
	case evProcStop:
		procs(e.p, xtrace.ProcRunning, xtrace.ProcIdle)
	case evProcSteal:
		from := xtrace.ProcRunning
		if a[3] == procSyscallAbandoned {
			from = xtrace.ProcIdle
		}
		procs(int64(a[0]), from, xtrace.ProcIdle)
	case evProcStatus:
		procs(int64(a[0]), xtrace.ProcState(a[2]), procStateOfStatus[a[1]])
	case evGoCreate, evGoCreateBlocked:
		to := xtrace.GoRunnable
		if e.typ == evGoCreateBlocked {
			to = xtrace.GoWaiting
		}
		goes(int64(a[0]), xtrace.GoNotExist, to)
		in.stStack = stack(a[1])
	case evGoCreateSyscall:
		goes(int64(a[0]), xtrace.GoNotExist, xtrace.GoSyscall)
	case evGoStart:
		goes(int64(a[0]), xtrace.GoRunnable, xtrace.GoRunning)
	case evGoDestroy:
		goes(e.g, xtrace.GoRunning, xtrace.GoNotExist)
	case evGoDestroySyscall:
		goes(e.g, xtrace.GoSyscall, xtrace.GoNotExist)
	case evGoStop, evGoBlock:
		to := xtrace.GoRunnable
		if e.typ == evGoBlock {
			to = xtrace.GoWaiting
		}
		goes(e.g, xtrace.GoRunning, to)
		in.reason, in.stStack = str(a[0]), in.stack
	case evGoUnblock, evGoSwitch, evGoSwitchDestroy:
		goes(int64(a[0]), xtrace.GoWaiting, xtrace.GoRunnable)
	case evGoSyscallBegin:
		goes(e.g, xtrace.GoRunning, xtrace.GoSyscall)
		in.stStack = in.stack
	case evGoSyscallEnd:
		goes(e.g, xtrace.GoSyscall, xtrace.GoRunning)
	case evGoSyscallEndBlocked:
		goes(e.g, xtrace.GoSyscall, xtrace.GoRunnable)
	case evGoStatus, evGoStatusStack:
		goes(int64(a[0]), xtrace.GoState(a[2]>>32), goStateOfStatus[a[2]&(1<<32-1)])
		in.stStack = in.stack
	case evSTWBegin, evSTWEnd:
		kind := xtrace.EventRangeBegin
		if e.typ == evSTWEnd {
			kind = xtrace.EventRangeEnd
		}
		ranges(kind, "stop-the-world ("+str(a[0])+")", xtrace.ResourceGoroutine, e.g)
	case evGCBegin, evGCActive, evGCEnd:
		ranges(rangeKind(e.typ), "GC concurrent mark phase", xtrace.ResourceNone, 0)
	case evGCSweepBegin, evGCSweepEnd:
		ranges(rangeKind(e.typ), "GC incremental sweep", xtrace.ResourceProc, e.p)
	case evGCSweepActive:
		ranges(xtrace.EventRangeActive, "GC incremental sweep", xtrace.ResourceProc, int64(a[0]))
	case evGCMarkAssistBegin, evGCMarkAssistEnd:
		ranges(rangeKind(e.typ), "GC mark assist", xtrace.ResourceGoroutine, e.g)
	case evGCMarkAssistActive:
		ranges(xtrace.EventRangeActive, "GC mark assist", xtrace.ResourceGoroutine, int64(a[0]))
	case evProcsChange:
		metric("/sched/gomaxprocs:threads")
	case evHeapAlloc:
		metric("/memory/classes/heap/objects:bytes")
	case evHeapGoal:
		metric("/gc/heap/goal:bytes")
	case evGoLabel:
		in.kind, in.name, in.resG = xtrace.EventLabel, str(a[0]), in.g
	case evUserTaskBegin:
		in.kind, in.name = xtrace.EventTaskBegin, str(a[2])
	case evUserTaskEnd:
		in.kind, in.name = xtrace.EventTaskEnd, taskNames[a[3]]
	case evUserRegionBegin, evUserRegionEnd:
		in.kind, in.name = xtrace.EventRegionBegin, str(a[1])
		if e.typ == evUserRegionEnd {
			in.kind = xtrace.EventRegionEnd
		}
	case evUserLog:
		in.kind, in.category, in.message = xtrace.EventLog, str(a[1]), str(a[2])
	default:
		in.kind = xtrace.EventExperimental
	}
}

// rangeKind is the kind of a range's beginning, active mark or end.
func rangeKind(typ uint8) xtrace.EventKind {
	switch typ {
	case evGCActive, evGCSweepActive, evGCMarkAssistActive:
		return xtrace.EventRangeActive
	case evSTWEnd, evGCEnd, evGCSweepEnd, evGCMarkAssistEnd:
		return xtrace.EventRangeEnd
	}
	return xtrace.EventRangeBegin
}
