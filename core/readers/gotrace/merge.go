package gotrace

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// The merge of the Ms' event streams, as the Go project's parser does it
// (its internal/trace reader.go and order.go): the same order, contexts
// and times, so that a model built from it is the model built from the
// parser's events. Each M's events are in time order; the merge takes
// the M whose next event is the earliest (a heap keyed by time) if that
// event can happen given the state of the goroutines, Ps and Ms so far
// (the sequence numbers of goroutines and Ps say which of two Ms' events
// on one of them comes first), else the earliest of the others that can.
// The order decides each event's context (the goroutine and P of its M)
// and, because the delivered times are made strictly increasing, the
// time of events that tie with or precede the one before them.
//
// Checked against the parser on the sample traces and a generated one of
// 150 MB, 30 million events (TestMergeAgainstParser). The reader uses it
// when ownDecoder is on.

// none is the ID of no goroutine, P or M, as the parser numbers them.
const none = -1

// sched is the context of an event: the goroutine, P and M it happened on.
type sched struct{ g, p, m int64 }

// Statuses of goroutines and Ps as the wire writes them.
const (
	goRunnable = 1
	goRunning  = 2
	goSyscall  = 3
	goWaiting  = 4
	nGoStatus  = 5

	procRunning          = 1
	procIdle             = 2
	procSyscall          = 3
	procSyscallAbandoned = 4
)

// States of the parser's transitions (x/exp/trace's GoState and
// ProcState), which GoStatus and ProcStatus events carry as their "from".
const (
	stateUndetermined = 0
	stateNotExist     = 1
)

// seq is a sequence number of a goroutine or P, local to a generation.
type seq struct{ gen, n uint64 }

func (a seq) succeeds(b seq) bool { return a.gen == b.gen && a.n == b.n+1 }

// span is a runtime range in flight on a resource: its beginning event's
// type and, for stop-the-world, its kind (a string ID).
type span struct {
	typ  uint8
	desc uint64
}

type spans []span

func (s *spans) begin(r span) error {
	if slices.Contains(*s, r) {
		return fmt.Errorf("a %s begins while one is in flight", wireSpecs[r.typ].name)
	}
	*s = append(*s, r)
	return nil
}

func (s *spans) active(r span, first bool) error {
	if first {
		if slices.Contains(*s, r) {
			return fmt.Errorf("a %s is active twice in the first generation", wireSpecs[r.typ].name)
		}
		*s = append(*s, r)
	} else if !slices.Contains(*s, r) {
		return fmt.Errorf("a %s is active but was not in flight", wireSpecs[r.typ].name)
	}
	return nil
}

// end removes the range that an event of type typ ends, as the parser
// does (the last one moves into its place), and returns its kind.
func (s *spans) end(typ uint8) (uint64, error) {
	begin := rangeBegin(typ)
	i := slices.IndexFunc(*s, func(r span) bool { return r.typ == begin })
	if i < 0 {
		return 0, fmt.Errorf("a %s ends but is not in flight", wireSpecs[begin].name)
	}
	a := *s
	desc := a[i].desc
	a[i], a[len(a)-1] = a[len(a)-1], a[i]
	*s = a[:len(a)-1]
	return desc, nil
}

// rangeBegin returns the event type that begins the range an event of
// type typ belongs to.
func rangeBegin(typ uint8) uint8 {
	switch typ {
	case evSTWEnd:
		return evSTWBegin
	case evGCActive, evGCEnd:
		return evGCBegin
	case evGCSweepActive, evGCSweepEnd:
		return evGCSweepBegin
	case evGCMarkAssistActive, evGCMarkAssistEnd:
		return evGCMarkAssistBegin
	case evGoSyscallEnd, evGoSyscallEndBlocked:
		return evGoSyscallBegin
	case evUserRegionEnd:
		return evUserRegionBegin
	}
	return typ
}

type userRegion struct {
	task uint64
	name string
}

type gState struct {
	status  uint8
	seq     seq
	regions []userRegion
	spans
}

type pState struct {
	status uint8
	seq    seq
	spans
}

type mState struct{ g, p int64 }

// noTask is the ID of no task.
const noTask = ^uint64(0)

type task struct {
	name   string
	parent uint64
}

// mergedEvent is an event in the merged order.
//
// It holds no pointer (its generation is the merger's, and the chunk's),
// so that copying it is a plain copy of its bytes, and takes 64 bytes, a
// cache line: the merge writes millions of them that the builder reads
// on another core.
type mergedEvent struct {
	time int64 // nanoseconds, strictly increasing
	g, p int64 // its context: the goroutine and P of its M
	// The wire's arguments after the time delta, then, as the parser
	// keeps them, what the merge adds: the previous status of a P
	// (ProcStatus, ProcSteal), a task's parent (UserTaskEnd). GoStatus
	// carries the goroutine's previous state in the high half of its
	// status. UserTaskEnd's fourth is the task's name, an index into
	// ordering.taskNames (chunk.names once handed to the builder).
	args [4]uint64
	m    int32 // the M of its context, which the model does not use: its low 32 bits, for the tests
	typ  uint8
}

// setCtx sets the context of e.
func (e *mergedEvent) setCtx(c sched) { e.g, e.p, e.m = c.g, c.p, int32(c.m) }

// ordering is the state the merge keeps across generations.
type ordering struct {
	gs       idTable[int64, gState]
	ps       idTable[int64, pState]
	ms       map[int64]*mState
	tasks    map[uint64]task
	gcSeq    uint64
	gcState  uint8 // 0 undetermined, 1 not running, 2 running
	firstGen uint64
	// Events delivered, in order (the merger's output): those before
	// queueAt are drained (merger.drain), the others wait for it. Each
	// is given a time strictly after the one before it as it is queued
	// (lastTs: the time of the last one queued).
	queue   []mergedEvent
	queueAt int
	lastTs  int64
	// The names of the tasks ended by the events of the queue, which
	// point into it: handed over with them.
	taskNames []string
}

const (
	gcUndetermined = 0
	gcNotRunning   = 1
	gcRunning      = 2
)

func newOrdering() *ordering {
	return &ordering{ms: map[int64]*mState{}, tasks: map[uint64]task{}}
}

func (o *ordering) push(e mergedEvent) {
	o.queue = append(o.queue, e)
	o.later(&o.queue[len(o.queue)-1])
}

// later gives e, just queued, a time strictly after the previous
// event's, as the parser makes the delivered times increase.
func (o *ordering) later(e *mergedEvent) {
	if e.time <= o.lastTs {
		e.time = o.lastTs + 1
	}
	o.lastTs = e.time
}

// need says what an event needs of its context.
type need uint8

const (
	mustNot need = iota
	may
	must
)

type needs struct{ m, p, g need }

var onGoroutine = needs{must, must, must}

func check(ctx sched, n needs) error {
	if meets(ctx.m, n.m) && meets(ctx.p, n.p) && meets(ctx.g, n.g) {
		return nil // the common case, without building the loop below
	}
	for _, c := range []struct {
		id   int64
		n    need
		what string
	}{{ctx.m, n.m, "thread"}, {ctx.p, n.p, "proc"}, {ctx.g, n.g, "goroutine"}} {
		if c.n == must && c.id == none {
			return fmt.Errorf("expected a %s but didn't have one", c.what)
		}
		if c.n == mustNot && c.id != none {
			return fmt.Errorf("expected no %s but had one", c.what)
		}
	}
	return nil
}

// meets reports whether an ID meets what is needed of it.
func meets(id int64, n need) bool {
	return n == may || (n == must) == (id != none)
}

// advance tries to deliver ev, the next event of M m in generation gen:
// ok is false if it cannot happen yet. Delivered events go to the queue
// (some events deliver more than one).
//
// The state of M m is created at its first event, as the parser creates
// it; known, if not nil, is that state (the caller's cache of it: the
// state of an M lives as long as the trace).
func (o *ordering) advance(ev *mergedEvent, m int64, g *wireGeneration, known **mState) (bool, error) {
	if o.firstGen == 0 {
		o.firstGen = g.gen
	}
	cur := sched{g: none, p: none, m: m}
	var ms *mState
	if m != none {
		ms = *known
		if ms == nil {
			ms = o.ms[m]
			if ms == nil {
				ms = &mState{g: none, p: none}
				o.ms[m] = ms
			}
			*known = ms
		}
		cur.p, cur.g = ms.p, ms.g
	}
	next, ok, err := o.dispatch(ev, cur, g)
	if err == nil && ok && ms != nil {
		ms.p, ms.g = next.p, next.g
	}
	// The error goes out as the parser words it, without the event's name.
	return ok, err
}

func (o *ordering) deliver(ev *mergedEvent, ctx sched) {
	o.queue = append(o.queue, *ev) // copied once, into its place
	e := &o.queue[len(o.queue)-1]
	e.setCtx(ctx)
	o.later(e)
}

func (o *ordering) dispatch(ev *mergedEvent, cur sched, g *wireGeneration) (sched, bool, error) {
	gen, first := g.gen, g.gen == o.firstGen
	a := &ev.args
	switch ev.typ {
	case evProcStatus:
		return o.procStatus(ev, cur, gen, first)
	case evProcStart:
		pid, s := int64(a[0]), seq{gen, a[1]}
		st := o.ps.get(pid)
		if st == nil || st.status != procIdle || !s.succeeds(st.seq) || cur.p != none {
			return cur, false, nil
		}
		if err := check(cur, needs{must, mustNot, may}); err != nil {
			return cur, false, err
		}
		st.status, st.seq = procRunning, s
		o.deliver(ev, cur)
		next := cur
		next.p = pid
		return next, true, nil
	case evProcStop:
		st := o.ps.get(cur.p)
		if st == nil {
			return cur, false, fmt.Errorf("proc %d does not exist", cur.p)
		}
		if st.status != procRunning && st.status != procSyscall {
			return cur, false, errors.New("the proc is not running or in a syscall")
		}
		if err := check(cur, needs{must, must, may}); err != nil {
			return cur, false, err
		}
		st.status = procIdle
		o.deliver(ev, cur)
		next := cur
		next.p = none
		return next, true, nil
	case evProcSteal:
		return o.procSteal(ev, cur, gen)
	case evGoStatus, evGoStatusStack:
		return o.goStatus(ev, cur, gen, first)
	case evGoCreate, evGoCreateBlocked:
		if err := check(cur, needs{must, must, may}); err != nil {
			return cur, false, err
		}
		if st := o.gs.get(cur.g); st != nil && st.status != goRunning {
			return cur, false, errors.New("the creating goroutine is not running")
		}
		id := int64(a[0])
		if o.gs.get(id) != nil {
			return cur, false, fmt.Errorf("goroutine %d already exists", id)
		}
		status := uint8(goRunnable)
		if ev.typ == evGoCreateBlocked {
			status = goWaiting
		}
		o.gs.set(id, &gState{status: status, seq: seq{gen, 0}})
		o.deliver(ev, cur)
		return cur, true, nil
	case evGoDestroy, evGoStop, evGoBlock:
		if err := check(cur, onGoroutine); err != nil {
			return cur, false, err
		}
		st := o.gs.get(cur.g)
		if st == nil {
			return cur, false, fmt.Errorf("goroutine %d does not exist", cur.g)
		}
		if st.status != goRunning {
			return cur, false, errors.New("the goroutine is not running")
		}
		switch ev.typ {
		case evGoDestroy:
			o.gs.del(cur.g)
		case evGoStop:
			st.status = goRunnable
		case evGoBlock:
			st.status = goWaiting
		}
		o.deliver(ev, cur)
		next := cur
		next.g = none
		return next, true, nil
	case evGoStart:
		id, s := int64(a[0]), seq{gen, a[1]}
		st := o.gs.get(id)
		if st == nil || st.status != goRunnable || !s.succeeds(st.seq) {
			return cur, false, nil
		}
		if err := check(cur, needs{must, must, mustNot}); err != nil {
			return cur, false, err
		}
		st.status, st.seq = goRunning, s
		o.deliver(ev, cur)
		next := cur
		next.g = id
		return next, true, nil
	case evGoUnblock:
		id, s := int64(a[0]), seq{gen, a[1]}
		st := o.gs.get(id)
		if st == nil || st.status != goWaiting || !s.succeeds(st.seq) {
			return cur, false, nil
		}
		st.status, st.seq = goRunnable, s
		o.deliver(ev, cur)
		return cur, true, nil
	case evGoSwitch, evGoSwitchDestroy:
		return o.goSwitch(ev, cur, gen)
	case evGoSyscallBegin:
		if err := check(cur, onGoroutine); err != nil {
			return cur, false, err
		}
		st := o.gs.get(cur.g)
		if st == nil {
			return cur, false, fmt.Errorf("goroutine %d does not exist", cur.g)
		}
		if st.status != goRunning {
			return cur, false, errors.New("the goroutine is not running")
		}
		st.status = goSyscall
		ps := o.ps.get(cur.p)
		if ps == nil {
			return cur, false, fmt.Errorf("uninitialized proc %d", cur.p)
		}
		ps.status = procSyscall
		s := seq{gen, a[0]}
		if !s.succeeds(ps.seq) {
			return cur, false, fmt.Errorf("can't make sequence: %d -> %d", ps.seq.n, s.n)
		}
		ps.seq = s
		o.deliver(ev, cur)
		return cur, true, nil
	case evGoSyscallEnd:
		if err := check(cur, onGoroutine); err != nil {
			return cur, false, err
		}
		st := o.gs.get(cur.g)
		if st == nil {
			return cur, false, fmt.Errorf("goroutine %d does not exist", cur.g)
		}
		if st.status != goSyscall {
			return cur, false, errors.New("the goroutine is not in a syscall")
		}
		st.status = goRunning
		ps := o.ps.get(cur.p)
		if ps == nil {
			return cur, false, fmt.Errorf("uninitialized proc %d", cur.p)
		}
		if ps.status != procSyscall {
			return cur, false, fmt.Errorf("proc %d is not in a syscall", cur.p)
		}
		ps.status = procRunning
		o.deliver(ev, cur)
		return cur, true, nil
	case evGoSyscallEndBlocked:
		if cur.p != none {
			ps := o.ps.get(cur.p)
			if ps == nil {
				return cur, false, fmt.Errorf("uninitialized proc %d", cur.p)
			}
			if ps.status == procSyscall {
				return cur, false, nil // its P is yet to be stolen
			}
		}
		if err := check(cur, needs{must, may, must}); err != nil {
			return cur, false, err
		}
		st := o.gs.get(cur.g)
		if st == nil {
			return cur, false, fmt.Errorf("goroutine %d does not exist", cur.g)
		}
		if st.status != goSyscall {
			return cur, false, errors.New("the goroutine is not in a syscall")
		}
		st.status = goRunnable
		o.deliver(ev, cur)
		next := cur
		next.g = none
		return next, true, nil
	case evGoCreateSyscall:
		if err := check(cur, needs{must, may, mustNot}); err != nil {
			return cur, false, err
		}
		id := int64(a[0])
		if o.gs.get(id) != nil {
			return cur, false, fmt.Errorf("goroutine %d already exists", id)
		}
		o.gs.set(id, &gState{status: goSyscall, seq: seq{gen, 0}})
		o.deliver(ev, cur)
		next := cur
		next.g = id
		return next, true, nil
	case evGoDestroySyscall:
		if err := check(cur, needs{must, may, must}); err != nil {
			return cur, false, err
		}
		st := o.gs.get(cur.g)
		if st == nil {
			return cur, false, fmt.Errorf("goroutine %d does not exist", cur.g)
		}
		if st.status != goSyscall {
			return cur, false, errors.New("the goroutine is not in a syscall")
		}
		o.gs.del(cur.g)
		next := cur
		next.g = none
		if cur.p != none {
			ps := o.ps.get(cur.p)
			if ps == nil {
				return cur, false, fmt.Errorf("invalid proc %d", cur.p)
			}
			if ps.status != procSyscall {
				return cur, false, fmt.Errorf("proc %d is not in a syscall", cur.p)
			}
			ps.status = procSyscallAbandoned
			next.p = none
			// The P is abandoned: the parser says it is stolen.
			steal := mergedEvent{typ: evProcSteal, time: ev.time}
			steal.setCtx(cur)
			steal.args[0], steal.args[3] = uint64(cur.p), procSyscall
			o.push(steal)
		}
		o.deliver(ev, cur)
		return next, true, nil
	case evUserTaskBegin:
		id := a[0]
		if _, dup := o.tasks[id]; dup {
			return cur, false, fmt.Errorf("task ID conflict: %d", id)
		}
		parent := a[1]
		if parent == 0 { // the background task: no parent
			parent = noTask
			ev.args[1] = noTask
		}
		name, ok := g.str(a[2])
		if !ok && a[2] != 0 {
			return cur, false, fmt.Errorf("invalid string ID %d", a[2])
		}
		o.tasks[id] = task{name, parent}
		if err := check(cur, onGoroutine); err != nil {
			return cur, false, err
		}
		o.deliver(ev, cur)
		return cur, true, nil
	case evUserTaskEnd:
		id := a[0]
		e := *ev
		name := ""
		if t, ok := o.tasks[id]; ok {
			e.args[2], name = t.parent, t.name
			delete(o.tasks, id)
		} else {
			e.args[2] = noTask
		}
		e.args[3] = uint64(len(o.taskNames))
		o.taskNames = append(o.taskNames, name)
		if err := check(cur, onGoroutine); err != nil {
			return cur, false, err
		}
		e.setCtx(cur)
		o.push(e)
		return cur, true, nil
	case evUserRegionBegin, evUserRegionEnd:
		if err := check(cur, onGoroutine); err != nil {
			return cur, false, err
		}
		name, ok := g.str(a[1])
		if !ok && a[1] != 0 {
			return cur, false, fmt.Errorf("invalid string ID %d", a[1])
		}
		st := o.gs.get(cur.g)
		if st == nil {
			return cur, false, fmt.Errorf("no state for the current goroutine %d", cur.g)
		}
		r := userRegion{a[0], name}
		if ev.typ == evUserRegionBegin {
			st.regions = append(st.regions, r)
		} else if n := len(st.regions); n > 0 {
			if st.regions[n-1] != r {
				return cur, false, fmt.Errorf("misuse of region in goroutine %d", cur.g)
			}
			st.regions = st.regions[:n-1]
		}
		o.deliver(ev, cur)
		return cur, true, nil
	case evGCActive:
		s := a[0]
		if first {
			if o.gcState != gcUndetermined {
				return cur, false, errors.New("GCActive in the first generation isn't the first GC event")
			}
			o.gcSeq, o.gcState = s, gcRunning
			o.deliver(ev, cur)
			return cur, true, nil
		}
		if s != o.gcSeq+1 {
			return cur, false, nil
		}
		if o.gcState != gcRunning {
			return cur, false, errors.New("GCActive while GC was not in progress")
		}
		o.gcSeq = s
		if err := check(cur, onGoroutine); err != nil {
			return cur, false, err
		}
		o.deliver(ev, cur)
		return cur, true, nil
	case evGCBegin:
		s := a[0]
		if o.gcState == gcUndetermined {
			o.gcSeq, o.gcState = s, gcRunning
			o.deliver(ev, cur)
			return cur, true, nil
		}
		if s != o.gcSeq+1 {
			return cur, false, nil
		}
		if o.gcState == gcRunning {
			return cur, false, errors.New("GCBegin while GC was already in progress")
		}
		o.gcSeq, o.gcState = s, gcRunning
		if err := check(cur, onGoroutine); err != nil {
			return cur, false, err
		}
		o.deliver(ev, cur)
		return cur, true, nil
	case evGCEnd:
		s := a[0]
		if s != o.gcSeq+1 {
			return cur, false, nil
		}
		if o.gcState == gcNotRunning {
			return cur, false, errors.New("GCEnd when GC was not in progress")
		}
		if o.gcState == gcUndetermined {
			return cur, false, errors.New("GCEnd when GC was in an undetermined state")
		}
		o.gcSeq, o.gcState = s, gcNotRunning
		if err := check(cur, onGoroutine); err != nil {
			return cur, false, err
		}
		o.deliver(ev, cur)
		return cur, true, nil
	case evProcsChange, evGoLabel, evUserLog:
		if err := check(cur, onGoroutine); err != nil {
			return cur, false, err
		}
		o.deliver(ev, cur)
		return cur, true, nil
	case evHeapAlloc, evHeapGoal:
		if err := check(cur, needs{must, must, may}); err != nil {
			return cur, false, err
		}
		o.deliver(ev, cur)
		return cur, true, nil
	case evGCSweepBegin, evGCSweepEnd:
		if err := check(cur, needs{must, must, may}); err != nil {
			return cur, false, err
		}
		ps := o.ps.get(cur.p)
		if ps == nil {
			return cur, false, fmt.Errorf("proc %d does not exist", cur.p)
		}
		if ev.typ == evGCSweepBegin {
			if err := ps.begin(span{evGCSweepBegin, 0}); err != nil {
				return cur, false, err
			}
		} else if _, err := ps.end(ev.typ); err != nil {
			return cur, false, err
		}
		o.deliver(ev, cur)
		return cur, true, nil
	case evGCSweepActive:
		ps := o.ps.get(int64(a[0]))
		if ps == nil {
			return cur, false, fmt.Errorf("GCSweepActive for unknown proc %d", a[0])
		}
		if err := ps.active(span{evGCSweepBegin, 0}, first); err != nil {
			return cur, false, err
		}
		o.deliver(ev, cur)
		return cur, true, nil
	case evSTWBegin, evGCMarkAssistBegin:
		if err := check(cur, onGoroutine); err != nil {
			return cur, false, err
		}
		var desc uint64
		if ev.typ == evSTWBegin {
			desc = a[0]
		}
		st := o.gs.get(cur.g)
		if st == nil {
			return cur, false, fmt.Errorf("no state for the current goroutine %d", cur.g)
		}
		if err := st.begin(span{ev.typ, desc}); err != nil {
			return cur, false, err
		}
		o.deliver(ev, cur)
		return cur, true, nil
	case evGCMarkAssistActive:
		st := o.gs.get(int64(a[0]))
		if st == nil {
			return cur, false, fmt.Errorf("uninitialized goroutine %d", a[0])
		}
		if err := st.active(span{evGCMarkAssistBegin, 0}, first); err != nil {
			return cur, false, err
		}
		o.deliver(ev, cur)
		return cur, true, nil
	case evSTWEnd, evGCMarkAssistEnd:
		if err := check(cur, onGoroutine); err != nil {
			return cur, false, err
		}
		st := o.gs.get(cur.g)
		if st == nil {
			return cur, false, fmt.Errorf("no state for the current goroutine %d", cur.g)
		}
		desc, err := st.end(ev.typ)
		if err != nil {
			return cur, false, err
		}
		e := *ev
		if ev.typ == evSTWEnd {
			e.args[0] = desc
		}
		e.setCtx(cur)
		o.push(e)
		return cur, true, nil
	}
	if ev.typ >= evFirstExperimental {
		if err := check(cur, needs{must, may, may}); err != nil {
			return cur, false, err
		}
		o.deliver(ev, cur)
		return cur, true, nil
	}
	return cur, false, fmt.Errorf("bad event type %d found while ordering", ev.typ)
}

func (o *ordering) procStatus(ev *mergedEvent, cur sched, gen uint64, first bool) (sched, bool, error) {
	pid, status := int64(ev.args[0]), uint8(ev.args[1])
	if status > procSyscallAbandoned { // 0 (bad) passes, as in the parser
		return cur, false, fmt.Errorf("invalid status for proc %d: %d", pid, status)
	}
	e := *ev
	old := procStateOf(status)
	if s := o.ps.get(pid); s != nil {
		switch {
		case status == procSyscallAbandoned && s.status == procSyscall:
			old = procStateRunning
			e.args[1] = procSyscall
		case status == procSyscallAbandoned && s.status == procSyscallAbandoned:
			old = procStateIdle
			e.args[1] = procSyscallAbandoned
		case s.status != status:
			return cur, false, fmt.Errorf("inconsistent status for proc %d: old %d vs. new %d", pid, s.status, status)
		}
		s.seq = seq{gen, 0}
	} else {
		o.ps.set(pid, &pState{status: status, seq: seq{gen, 0}})
		if first {
			old = stateUndetermined
		} else {
			old = stateNotExist
		}
	}
	e.args[2] = uint64(old)
	next := cur
	if status == procRunning || status == procSyscall {
		next.p = pid
	}
	if status == procSyscallAbandoned && old == procStateRunning {
		found := false
		// The parser looks through its map of Ms, in Go's map order:
		// at most one M has the P.
		for mid, ms := range o.ms {
			if ms.p == pid {
				cur.m, cur.p, cur.g = mid, pid, ms.g
				found = true
			}
		}
		if !found {
			return cur, false, fmt.Errorf("failed to find the context of proc %d about to be stolen", pid)
		}
	}
	e.setCtx(cur)
	o.push(e)
	return next, true, nil
}

// States of Ps in the parser's transitions (x/exp/trace's ProcState).
const (
	procStateRunning = 2
	procStateIdle    = 3
)

// procStateOf is the parser's state of a P of status s.
func procStateOf(s uint8) uint8 {
	switch s {
	case procRunning, procSyscall:
		return procStateRunning
	case procIdle, procSyscallAbandoned:
		return procStateIdle
	}
	return stateUndetermined
}

// goStateOf is the parser's state of a goroutine of status s
// (x/exp/trace's GoState: Runnable 2, Running 3, Waiting 4, Syscall 5).
func goStateOf(s uint8) uint8 {
	switch s {
	case goRunnable:
		return 2
	case goRunning:
		return 3
	case goWaiting:
		return 4
	case goSyscall:
		return 5
	}
	return stateUndetermined
}

func (o *ordering) procSteal(ev *mergedEvent, cur sched, gen uint64) (sched, bool, error) {
	pid, s := int64(ev.args[0]), seq{gen, ev.args[1]}
	st := o.ps.get(pid)
	if st == nil || (st.status != procSyscall && st.status != procSyscallAbandoned) || !s.succeeds(st.seq) {
		return cur, false, nil
	}
	if err := check(cur, needs{must, may, may}); err != nil {
		return cur, false, err
	}
	e := *ev
	old := st.status
	e.args[3] = uint64(old)
	st.status, st.seq = procIdle, s
	e.setCtx(cur)
	if old == procSyscallAbandoned {
		o.push(e)
		return cur, true, nil
	}
	mid := int64(ev.args[2])
	next := cur
	if mid == cur.m {
		if cur.p != pid {
			return cur, false, fmt.Errorf("tried to self-steal proc %d (thread %d), but got proc %d instead", pid, mid, cur.p)
		}
		next.p = none
		o.push(e)
		return next, true, nil
	}
	ms := o.ms[mid]
	if ms == nil {
		return cur, false, fmt.Errorf("stole proc from non-existent thread %d", mid)
	}
	if ms.p != pid {
		return cur, false, fmt.Errorf("tried to steal proc %d from thread %d, but got proc %d instead", pid, mid, ms.p)
	}
	ms.p = none
	o.push(e)
	return next, true, nil
}

func (o *ordering) goStatus(ev *mergedEvent, cur sched, gen uint64, first bool) (sched, bool, error) {
	gid, mid, status := int64(ev.args[0]), int64(ev.args[1]), uint8(ev.args[2])
	if status >= nGoStatus { // 0 (bad) passes, as in the parser
		return cur, false, fmt.Errorf("invalid status for goroutine %d: %d", gid, status)
	}
	old := goStateOf(status)
	if s := o.gs.get(gid); s != nil {
		if s.status != status {
			return cur, false, fmt.Errorf("inconsistent status for goroutine %d: old %d vs. new %d", gid, s.status, status)
		}
		s.seq = seq{gen, 0}
	} else if first {
		o.gs.set(gid, &gState{status: status, seq: seq{gen, 0}})
		old = stateUndetermined
	} else {
		return cur, false, fmt.Errorf("found goroutine status for new goroutine after the first generation: id=%d status=%d", gid, status)
	}
	e := *ev
	e.args[2] = uint64(old)<<32 | uint64(status)
	next := cur
	switch status {
	case goRunning:
		next.g = gid
	case goSyscall:
		if mid == none {
			return cur, false, fmt.Errorf("found goroutine %d in syscall without a thread", gid)
		}
		if mid == cur.m {
			if !first && cur.g != gid {
				return cur, false, fmt.Errorf("inconsistent thread for syscalling goroutine %d: thread has goroutine %d", gid, cur.g)
			}
			next.g = gid
			break
		}
		if ms := o.ms[mid]; ms != nil {
			if ms.g != gid {
				return cur, false, fmt.Errorf("inconsistent thread for syscalling goroutine %d: thread has goroutine %d", gid, ms.g)
			}
			cur.g = ms.g
		} else {
			o.ms[mid] = &mState{g: gid, p: none}
		}
		cur.m = mid
	}
	e.setCtx(cur)
	o.push(e)
	return next, true, nil
}

func (o *ordering) goSwitch(ev *mergedEvent, cur sched, gen uint64) (sched, bool, error) {
	if err := check(cur, onGoroutine); err != nil {
		return cur, false, err
	}
	st := o.gs.get(cur.g)
	if st == nil {
		return cur, false, fmt.Errorf("goroutine %d does not exist", cur.g)
	}
	if st.status != goRunning {
		return cur, false, errors.New("the goroutine is not running")
	}
	nextID, s := int64(ev.args[0]), seq{gen, ev.args[1]}
	nst := o.gs.get(nextID)
	if nst == nil || nst.status != goWaiting || !s.succeeds(nst.seq) {
		return cur, false, nil
	}
	o.deliver(ev, cur)
	// The switch is the parser's three events: the goroutine blocks (or
	// ends), the other starts.
	made := func(typ uint8, ctx sched, args ...uint64) {
		e := mergedEvent{typ: typ, time: ev.time}
		e.setCtx(ctx)
		copy(e.args[:], args)
		o.push(e)
	}
	if ev.typ == evGoSwitch {
		st.status = goWaiting
		made(evGoBlock, cur, 0, 0)
	} else {
		o.gs.del(cur.g)
		made(evGoDestroy, cur)
	}
	nst.status, nst.seq = goRunning, s
	next := cur
	next.g = nextID
	start := cur
	start.g = none
	made(evGoStart, start, uint64(nextID), ev.args[1])
	return next, true, nil
}

// cursor walks the events of one M in a generation, in batch order, at
// the parser's nanoseconds: each batch starts at its time, and each
// event adds its delta, each converted and truncated on its own. It
// decodes each event as it reaches it, as the parser does.
type cursor struct {
	m       int64
	ms      *mState // the ordering's state of M m, once known
	batches []*wireBatch
	idx     int        // the batch after the current one
	batch   *wireBatch // the current batch
	data    []byte     // its bytes
	pos     int        // the next event's offset in them
	base    int64      // its time, in nanoseconds
	lastTs  int64
	ev      mergedEvent
	wire    wireEvent // the event being decoded
}

// nsPer is the nanoseconds per timestamp unit of a generation.
func nsPer(g *wireGeneration) float64 { return 1.0 / (float64(g.freq) / 1e9) }

// next decodes the cursor's next event into c.ev: false at the end of
// its batches, or the fault of the batch where the next event should be.
// argc is the arguments (after the time delta) of each event type of
// g's format, -1 for types it does not have.
func (c *cursor) next(f float64, g *wireGeneration, argc *[256]int8) (bool, error) {
	if c.pos == len(c.data) && !c.nextBatch(f) {
		return false, nil
	}
	b := c.batch
	if c.lastTs == 0 {
		c.lastTs = c.base
	}
	data, pos := c.data, c.pos
	typ := data[pos]
	n := int(argc[typ])
	if n < 0 {
		return false, c.fault(b, g)
	}
	pos++
	var dt uint64
	if pos < len(data) && data[pos] < 0x80 {
		dt, pos = uint64(data[pos]), pos+1
	} else if dt, pos = longVarint(data, pos); pos < 0 {
		return false, c.fault(b, g)
	}
	e := &c.ev
	e.args = [4]uint64{}
	for i := range n {
		if pos < len(data) && data[pos] < 0x80 {
			e.args[i], pos = uint64(data[pos]), pos+1
		} else if e.args[i], pos = longVarint(data, pos); pos < 0 {
			return false, c.fault(b, g)
		}
	}
	c.pos = pos
	e.typ, e.g, e.p, e.m = typ, 0, 0, 0
	e.time = int64(float64(dt)*f) + c.lastTs
	c.lastTs = e.time
	return true, nil
}

// nextBatch moves the cursor to the start of its next batch that holds
// events: false if there is none.
func (c *cursor) nextBatch(f float64) bool {
	for c.pos == len(c.data) {
		if c.idx == len(c.batches) {
			return false
		}
		b := c.batches[c.idx]
		c.idx++
		c.batch, c.data, c.pos = b, b.data, 0
		c.base, c.lastTs = int64(float64(b.time)*f), 0
	}
	return true
}

// longVarint decodes the unsigned varint at data[pos:] and returns it
// with the position after it, -1 if data holds none there. The merge
// reads numbers of one byte, most of an event's, itself (a call per
// number costs more than the number).
func longVarint(data []byte, pos int) (uint64, int) {
	v, k := uvarint(data[pos:])
	if k <= 0 {
		return 0, -1
	}
	return v, pos + k
}

// fault returns the error of the event that next could not decode, as
// decodeEvent words it.
func (c *cursor) fault(b *wireBatch, g *wireGeneration) error {
	_, err := decodeEvent(b.data, c.pos, g.ver, wireTypes(g.ver), &c.wire)
	if err == nil {
		err = fmt.Errorf("offset %d: an event the merge cannot read", c.pos)
	}
	return fmt.Errorf("in the batch at byte %d (generation %d, M %d): %w", b.offset, g.gen, int64(b.m), err)
}

// eventArgs returns, by event type, how many arguments follow the time
// delta of the timed events of Go 1.ver's format, -1 for the other types.
func eventArgs(ver int) *[256]int8 {
	argsOnce.Do(func() {
		for _, v := range []int{22, 23, 25, 26} {
			t := new([256]int8)
			for typ := range t {
				t[typ] = -1
				if typ < wireTypes(v) && wireSpecs[typ].timed {
					t[typ] = int8(len(wireSpecs[typ].args) - 1)
				}
			}
			argsByVersion[v] = t
		}
	})
	return argsByVersion[ver]
}

var (
	argsOnce      sync.Once
	argsByVersion [27]*[256]int8
)

// The frontier is a min-heap of cursors by the time of their next event,
// sifted exactly as the parser's, so that ties break the same way.

func heapInsert(h []*cursor, c *cursor) []*cursor {
	h = append(h, c)
	heapUp(h, len(h)-1)
	return h
}

func heapUpdate(h []*cursor, i int) {
	if heapUp(h, i) != i {
		return
	}
	heapDown(h, i)
}

func heapRemove(h []*cursor, i int) []*cursor {
	for i > 0 {
		h[(i-1)/2], h[i] = h[i], h[(i-1)/2]
		i = (i - 1) / 2
	}
	h[0], h[len(h)-1] = h[len(h)-1], h[0]
	h = h[:len(h)-1]
	heapDown(h, 0)
	return h
}

func heapUp(h []*cursor, i int) int {
	for i > 0 && h[(i-1)/2].ev.time > h[i].ev.time {
		h[(i-1)/2], h[i] = h[i], h[(i-1)/2]
		i = (i - 1) / 2
	}
	return i
}

func heapDown(h []*cursor, i int) {
	for {
		m := min3(h, i, 2*i+1, 2*i+2)
		if m == i {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

func min3(h []*cursor, i0, i1, i2 int) int {
	minIdx, minT := i0, int64(1<<63-1)
	if i0 < len(h) {
		minT = h[i0].ev.time
	}
	if i1 < len(h) && h[i1].ev.time < minT {
		minIdx, minT = i1, h[i1].ev.time
	}
	if i2 < len(h) && h[i2].ev.time < minT {
		minIdx = i2
	}
	return minIdx
}

// evSyncMark is the type of the merge's generation marks (the parser's
// Sync events); the wire has no event of that number.
const evSyncMark = 0

// merger delivers the events of generations in the parser's order.
//
// The ordering's queue is the merger's output: events go into it in
// their order as they are delivered, with their final time, are taken
// as delivered (drain) once the cursor that delivered them could move on,
// and are handed over (hand) a buffer at a time.
type merger struct {
	o        *ordering
	frontier []*cursor
	samples  []mergedEvent // the generation's CPU samples, by time
	g        *wireGeneration
	f        float64    // nanoseconds per timestamp unit of g
	argc     *[256]int8 // the arguments of the event types of g's format
	hand     handOver
}

// handOver takes the merged events of generation g and the names of the
// tasks their UserTaskEnd events end, and returns the buffers to fill
// next (empty; they may be the same).
type handOver func(events []mergedEvent, names []string, g *wireGeneration) ([]mergedEvent, []string, error)

// handEvery is how many merged events a buffer handed over holds.
const handEvery = 2048

func newMerger(hand handOver) *merger {
	mg := &merger{o: newOrdering(), hand: hand}
	mg.o.queue = make([]mergedEvent, 0, handEvery+8)
	return mg
}

// newMergerEach is a merger that hands each event to emit.
func newMergerEach(emit func(*mergedEvent) error) *merger {
	return newMerger(func(events []mergedEvent, names []string, g *wireGeneration) ([]mergedEvent, []string, error) {
		for i := range events {
			if err := emit(&events[i]); err != nil {
				return events[:0], names[:0], err
			}
		}
		return events[:0], names[:0], nil
	})
}

// drain takes the queued events as delivered: a fault before the next
// drain drops those queued after it (an event ordered whose cursor then
// fails to decode the next is not delivered, as in the parser). Their
// references to the string and stack tables are checked as they are
// received (checkIDs), by the builder, where a fault stops the events
// short, as the merge would.
func (mg *merger) drain() error {
	mg.o.queueAt = len(mg.o.queue)
	return nil
}

// flush hands over the events drained so far; those queued after them
// (if a fault stopped the merge) are dropped, never delivered.
func (mg *merger) flush() error {
	o := mg.o
	if o.queueAt == 0 {
		o.queue = o.queue[:0]
		return nil
	}
	var err error
	o.queue, o.taskNames, err = mg.hand(o.queue[:o.queueAt], o.taskNames, mg.g)
	o.queue, o.taskNames, o.queueAt = o.queue[:0], o.taskNames[:0], 0
	return err
}

// failed hands over what was delivered before err, and returns err.
func (mg *merger) failed(err error) error {
	if ferr := mg.flush(); ferr != nil {
		return ferr
	}
	return err
}

// generation merges the events of g, after a mark at its start.
func (mg *merger) generation(g *wireGeneration) error {
	if err := mg.flush(); err != nil { // the previous generation's last events
		return err
	}
	mg.g, mg.f, mg.argc = g, nsPer(g), eventArgs(g.ver)
	if err := mg.merge(g); err != nil {
		return mg.failed(err)
	}
	return nil
}

func (mg *merger) merge(g *wireGeneration) error {
	var byM map[uint64]*cursor
	var order []*cursor
	minTs := uint64(0)
	mg.samples = mg.samples[:0]
	for i := range g.batches {
		b := &g.batches[i]
		if minTs == 0 || b.time < minTs {
			minTs = b.time
		}
		switch b.kind {
		case batchEvents:
			if byM == nil {
				byM = map[uint64]*cursor{}
			}
			c := byM[b.m]
			if c == nil {
				c = &cursor{m: int64(b.m)}
				byM[b.m] = c
				order = append(order, c)
			}
			c.batches = append(c.batches, b)
		case batchCPUSamples:
			for _, s := range b.events {
				e := mergedEvent{typ: evCPUSample, time: int64(float64(s.time) * mg.f)}
				e.setCtx(sched{m: int64(s.args[0]), p: int64(s.args[1]), g: int64(s.args[2])})
				e.args[0] = s.args[3]
				mg.samples = append(mg.samples, e)
			}
		}
	}
	slices.SortFunc(mg.samples, func(a, b mergedEvent) int { return cmp.Compare(a.time, b.time) })
	mg.frontier = mg.frontier[:0]
	for _, c := range order {
		ok, err := c.next(mg.f, g, mg.argc)
		if err != nil {
			return err
		}
		if ok {
			mg.frontier = heapInsert(mg.frontier, c)
		}
	}
	mg.o.push(mergedEvent{typ: evSyncMark, time: int64(float64(minTs) * mg.f), g: none, p: none, m: none})
	for {
		if err := mg.drain(); err != nil {
			return err
		}
		if len(mg.o.queue) >= handEvery {
			if err := mg.flush(); err != nil {
				return err
			}
		}
		if len(mg.frontier) == 0 && len(mg.samples) == 0 {
			return nil
		}
		if len(mg.samples) != 0 && (len(mg.frontier) == 0 || mg.samples[0].time < mg.frontier[0].ev.time) {
			mg.o.push(mg.samples[0])
			mg.samples = mg.samples[1:]
			continue
		}
		if len(mg.frontier) == 0 {
			return fmt.Errorf("generation %d: nothing left to merge", g.gen)
		}
		ok, err := mg.try(0)
		if err != nil {
			return err
		}
		if !ok {
			// The earliest event cannot happen yet: the others, in
			// time order, sorted as the parser sorts them.
			slices.SortFunc(mg.frontier, func(a, b *cursor) int { return cmp.Compare(a.ev.time, b.ev.time) })
			for i := 1; i < len(mg.frontier) && !ok; i++ {
				if ok, err = mg.try(i); err != nil {
					return err
				}
			}
			if !ok {
				return fmt.Errorf("broken trace: failed to advance: in generation %d, no M's next event can happen", g.gen)
			}
		}
	}
}

// try delivers the next event of the i-th cursor of the frontier if it
// can happen, and moves the cursor on.
func (mg *merger) try(i int) (bool, error) {
	c := mg.frontier[i]
	ok, err := mg.o.advance(&c.ev, c.m, mg.g, &c.ms)
	if !ok || err != nil {
		return ok, err
	}
	more, err := c.next(mg.f, mg.g, mg.argc)
	if err != nil {
		// As the parser, the event just ordered is not delivered.
		return false, err
	}
	if more {
		heapUpdate(mg.frontier, i)
	} else {
		mg.frontier = heapRemove(mg.frontier, i)
	}
	return true, nil
}

// finish delivers the mark after the last generation, and hands over
// the last events.
func (mg *merger) finish() error {
	mg.o.push(mergedEvent{typ: evSyncMark, time: mg.o.lastTs, g: none, p: none, m: none})
	if err := mg.drain(); err != nil {
		return mg.failed(err)
	}
	return mg.flush()
}

// idArgs are the indexes (after the time delta) of the arguments of an
// event type that are stack IDs and string IDs, in the order the parser
// checks them: fixed arrays, for the check of every event.
type idArgs struct {
	nStacks, nStrings uint8
	stacks, strings   [2]uint8
}

// tableArgs are, by event type, its idArgs.
var tableArgs = func() (a [len(wireSpecs)]idArgs) {
	for typ, ids := range map[uint8]struct{ stacks, strings []uint8 }{
		evProcsChange:       {stacks: []uint8{1}},
		evGoCreate:          {stacks: []uint8{2, 1}},
		evGoCreateBlocked:   {stacks: []uint8{2, 1}},
		evGoStop:            {stacks: []uint8{1}, strings: []uint8{0}},
		evGoBlock:           {stacks: []uint8{1}, strings: []uint8{0}},
		evGoUnblock:         {stacks: []uint8{2}},
		evGoSyscallBegin:    {stacks: []uint8{1}},
		evSTWBegin:          {stacks: []uint8{1}, strings: []uint8{0}},
		evGCBegin:           {stacks: []uint8{1}},
		evGCSweepBegin:      {stacks: []uint8{0}},
		evGCMarkAssistBegin: {stacks: []uint8{0}},
		evGoLabel:           {strings: []uint8{0}},
		evUserTaskBegin:     {stacks: []uint8{3}, strings: []uint8{2}},
		evUserTaskEnd:       {stacks: []uint8{1}},
		evUserRegionBegin:   {stacks: []uint8{2}, strings: []uint8{1}},
		evUserRegionEnd:     {stacks: []uint8{2}, strings: []uint8{1}},
		evUserLog:           {stacks: []uint8{3}, strings: []uint8{1, 2}},
		evGoStatusStack:     {stacks: []uint8{3}},
	} {
		t := &a[typ]
		t.nStacks = uint8(copy(t.stacks[:], ids.stacks))
		t.nStrings = uint8(copy(t.strings[:], ids.strings))
	}
	return a
}()

// checkIDs checks, as the parser does before it delivers an event, that
// the stacks and strings it names exist (0 is none, or "").
func checkIDs(e *mergedEvent, g *wireGeneration) error {
	if e.typ == evSyncMark || e.typ == evCPUSample {
		return nil
	}
	t := &tableArgs[e.typ]
	for k := range t.nStacks { // (k&1, i&3: no bounds to check)
		if id := e.args[t.stacks[k&1]&3]; id != 0 {
			if _, ok := g.stack(id); !ok {
				return fmt.Errorf("found invalid stack ID %d for event %s", id, wireSpecs[e.typ].name)
			}
		}
	}
	for k := range t.nStrings {
		if id := e.args[t.strings[k&1]&3]; !g.hasString(id) {
			return fmt.Errorf("found invalid string ID %d for event %s", id, wireSpecs[e.typ].name)
		}
	}
	return nil
}
