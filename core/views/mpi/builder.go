package mpi

import (
	"cmp"
	"fmt"
	"github.com/macroscope-hpc/macroscope/core/intern"
	"math"
	"slices"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Builder is a trace.Sink that gathers a Run while a reader streams a
// trace: it keeps the MPI calls, the links and the few events that tie
// collectives to communicators, never the other states and events, so
// its memory grows with the number of MPI calls and messages only.
type Builder struct {
	// CollectivesOnly keeps only the collective calls, and no messages:
	// for the analyses that need no more (stragglers), memory grows with
	// the collectives only.
	CollectivesOnly bool
	// OnMessage, when set, is handed each message once Run or Blocks
	// has tied it to its calls, in the order of the links, with the
	// classes of its send and receive calls (Local for a call -1), and
	// the message is not kept in Run.Messages (Run.NumMessages counts
	// it): an analysis that turns the messages into something smaller
	// (the ideal replay's waits) never holds them all. Under Run it runs
	// while the collectives are paired, on another goroutine.
	OnMessage func(m *Message, send, recv Class)
	// OnCalls, when set, is handed by Blocks each resource's calls once
	// they are set aside (r their resource among blocks.Resources, and
	// blocks.Calls[r] their spool; blocks has its Resources, Names,
	// Comms, Start and End, its Calls up to r's): sorted, with their
	// communicators and collectives, in a slice that Blocks then lets
	// go. An analysis that turns the calls into something of its own
	// does it while they are in memory, rather than reading them back
	// from the spool; it may keep the slice, and read it on another
	// goroutine.
	OnCalls func(blocks *Blocks, r int, calls []Call)
	// OnTied, when set, is handed by Blocks each message tied to a call
	// at both ends (a link between two resources), with those calls, as
	// soon as both are known: while the calls of the later of its two
	// resources are in hand (a message within one resource while its
	// receive's are). link numbers the message among the links, in the
	// order of OnMessage's; the messages come in the order of the
	// resources, not of the links. An analysis that needs of each
	// message its two calls' times takes them here rather than reading
	// the calls back from their spools, out of order, after Blocks.
	OnTied func(link int32, send, recv TiedCall)
	// SpillCalls lets the calls, too, go to the spill file (SpillTo)
	// while the trace streams: for the analyses that read them back by
	// resource (Blocks) rather than all at once (Run).
	SpillCalls bool
	// Cancel, once closed, stops Blocks and Run: they look at their
	// first link, then every trace.StopEvery links, calls or messages (a
	// resource's calls at a time), and return
	// trace.ErrComputationCanceled and nothing. Nil: never.
	Cancel <-chan struct{}

	types      []typeInfo
	values     []valueInfo
	containers []containerInfo
	res        []int32 // resource of each container, -1 if none yet
	building   []building
	links      Spool[rawLink]
	collEvents Spool[collEvent]
	spill      *Spill

	names     intern.Table // the calls' names
	comms     []commKey
	commIndex map[commKey]int32
	// endComm is the communicator of the last collective's end
	// (trace.RoleCollectiveEnd) of value endValue in application endApp:
	// the ends of a trace come in runs of one value, and commOf hashes
	// the name.
	endApp, endValue, endComm int32

	start, end trace.Time
	finished   bool
	err        error
}

type typeInfo struct {
	kind   trace.Kind
	role   trace.Role // of event types, and of the applications' type
	thread bool       // containers of this type are threads (trace.IsThread)
}

type valueInfo struct {
	alias, category string
	role            trace.Role
	call            int32 // index in names of the MPI call it stands for, -1
	class           Class
}

type containerInfo struct {
	name        string
	parent, typ int32
	// app is the application (trace.RoleApplication) that holds the
	// container, itself or an ancestor, or -1: set once at its creation
	// (its parent's is known by then), so that each collective's end and
	// each resource look it up instead of walking up the tree.
	app         int32
	first, last trace.Time
	seen        bool
}

// building holds what a resource's calls need while the trace streams.
type building struct {
	container int32
	// comm is the communicator of the calls no event names one of: the
	// unnamed one of the resource's application (trace.RoleApplication),
	// so that the runs of a trace of several pair their collectives apart.
	comm  int32
	calls Spool[Call]
	// Calls recorded as events (trace.RoleCall): the call entered and
	// not yet left (open), kept aside until
	// left (it is still changed) at index openAt of calls; flushed to
	// calls before another call is appended (a state), then fixes holds
	// its last version.
	open, flushed bool
	openAt        int32
	openCall      Call
	fixes         []fixedCall
}

// fixedCall is the final version of call at of a resource.
type fixedCall struct {
	at   int32
	call Call
}

// appendCall appends c to the calls, after the open call if any.
func (bl *building) appendCall(c Call) {
	if bl.open && !bl.flushed {
		bl.calls.Append(bl.openCall)
		bl.flushed = true
	}
	bl.calls.Append(c)
}

// closeOpen ends the call entered by an event and not yet left, if any.
func (bl *building) closeOpen() {
	if !bl.open {
		return
	}
	if bl.flushed {
		bl.fixes = append(bl.fixes, fixedCall{bl.openAt, bl.openCall})
	} else {
		bl.calls.Append(bl.openCall)
	}
	bl.open, bl.flushed = false, false
}

// takeCalls returns the calls of the resource, in the order they came,
// and empties it.
func (bl *building) takeCalls() []Call {
	bl.closeOpen()
	calls := bl.calls.Take()
	for _, f := range bl.fixes {
		calls[f.at] = f.call
	}
	bl.fixes = nil
	return calls
}

type rawLink struct {
	from, to   int32
	start, end trace.Time
	size       float64
}

type collEvent struct {
	container int32
	at        trace.Time
	comm      int32
	root      bool // the event is the root's (trace.RoleRoot)
}

// NewBuilder returns an empty builder.
func NewBuilder() *Builder {
	return &Builder{
		containers: []containerInfo{{name: "0", parent: trace.None, typ: trace.None, app: -1}},
		res:        []int32{-1},
		comms:      []commKey{{app: -1}},
		commIndex:  map[commKey]int32{{app: -1}: 0},
		endValue:   -1,
	}
}

// SpillTo lets the links and the collectives' events the builder keeps
// while the trace streams go to s's file beyond s's memory (Spill): they
// are read back once, in order, by Run. It is called before the stream
// begins; the caller closes s once Run has returned.
func (b *Builder) SpillTo(s *Spill) {
	b.spill = s
	b.links, b.collEvents = NewSpool[rawLink](s), NewSpool[collEvent](s)
}

// FromTrace gathers the Run of a trace held in memory.
func FromTrace(t *trace.Trace) (*Run, error) {
	b := NewBuilder()
	t.Replay(b)
	return b.Run()
}

func (b *Builder) fail(format string, args ...any) {
	if b.err == nil {
		b.err = fmt.Errorf("mpi: "+format, args...)
	}
}

func (b *Builder) name(n string) int32 { return b.names.ID(n) }

// commKey identifies a communicator: its name, and the application
// container its name is local to (-1: the whole trace). Where the
// communicators of each application are numbered apart
// (trace.RoleApplication: Extrae numbers them from 1 in each),
// communicator 1 of one application is not communicator 1 of another.
type commKey struct {
	app  int32
	name string
}

func (b *Builder) commOf(k commKey) int32 {
	if i, ok := b.commIndex[k]; ok {
		return i
	}
	i := int32(len(b.comms))
	b.comms = append(b.comms, k)
	b.commIndex[k] = i
	return i
}

// application returns the application (trace.RoleApplication) that
// holds container c, or -1: a trace placed on CPUs rather than
// applications has none, and there communicators stay named by their
// ids alone.
func (b *Builder) application(c int32) int32 {
	if c <= 0 || int(c) >= len(b.containers) {
		return -1
	}
	return b.containers[c].app
}

// commNames names the communicators: by their names, followed by their
// application's ("1 of APPL 2") where applications share a name; the
// unnamed one of each application, where there are several, by the
// application's name.
func (b *Builder) commNames() []string {
	apps := map[string]int32{}
	shared := map[string]bool{}
	for _, k := range b.comms {
		if a, ok := apps[k.name]; ok && a != k.app {
			shared[k.name] = true
		}
		apps[k.name] = k.app
	}
	names := make([]string, len(b.comms))
	for i, k := range b.comms {
		names[i] = k.name
		switch {
		case !shared[k.name] || k.app < 0:
		case k.name == "":
			// The communicator no event names, of one application
			// (or run) of several: named by it.
			names[i] = b.containers[k.app].name
		default:
			names[i] += " of " + b.containers[k.app].name
		}
	}
	return names
}

// DefineType implements trace.Sink.
func (b *Builder) DefineType(t trace.Type) {
	info := typeInfo{kind: t.Kind}
	switch {
	case t.Kind == trace.KindEvent:
		info.role = t.Role
	case t.Kind == trace.KindContainer:
		info.role, info.thread = t.Role, trace.IsThread(t)
	}
	b.types = append(b.types, info)
}

// DefineValue implements trace.Sink.
func (b *Builder) DefineValue(v trace.Value) {
	info := valueInfo{alias: v.Alias, category: v.Category, role: v.Role, call: -1}
	if v.Type >= 0 && int(v.Type) < len(b.types) {
		t := b.types[v.Type]
		switch {
		case t.kind == trace.KindState:
			if _, ok := Operation(v.Name); ok {
				info.call, info.class = b.name(v.Name), Classify(v.Name)
			}
		case t.kind == trace.KindEvent && (t.role == trace.RoleCall || t.role == trace.RoleCollectiveCall):
			if v.Role != trace.RoleOff {
				info.call, info.class = b.name(v.Name), Classify(v.Name)
				if t.role == trace.RoleCollectiveCall && !info.class.Collective() {
					// A collective the table does not know (MPI_Alltoallw
					// under another name...): every member waits for all.
					info.class = AllToAll
				}
			}
		}
	}
	b.values = append(b.values, info)
}

// CreateContainer implements trace.Sink.
func (b *Builder) CreateContainer(c trace.Container) {
	if c.Parent < 0 || int(c.Parent) >= len(b.containers) {
		b.fail("container %q has unknown parent %d", c.Name, c.Parent)
		c.Parent = 0
	}
	app := b.containers[c.Parent].app
	if t := c.Type; t >= 0 && int(t) < len(b.types) && b.types[t].role == trace.RoleApplication {
		app = int32(len(b.containers))
	}
	b.containers = append(b.containers, containerInfo{name: c.Name, parent: c.Parent, typ: c.Type, app: app})
	b.res = append(b.res, -1)
}

// DestroyContainer implements trace.Sink.
func (b *Builder) DestroyContainer(int32, trace.Time) {}

func (b *Builder) known(container, value int32) bool {
	if container < 0 || int(container) >= len(b.containers) || value < 0 || int(value) >= len(b.values) {
		b.fail("entity on unknown container %d or with unknown value %d", container, value)
		return false
	}
	return true
}

// seen extends the container's extent to [from, to].
func (b *Builder) seen(container int32, from, to trace.Time) {
	c := &b.containers[container]
	if !c.seen {
		c.first, c.last, c.seen = from, to, true
		return
	}
	c.first, c.last = min(c.first, from), max(c.last, to)
}

// resource returns the calls being built for a container.
func (b *Builder) resource(container int32) *building {
	r := b.res[container]
	if r < 0 {
		r = int32(len(b.building))
		b.res[container] = r
		b.building = append(b.building, building{container: container, comm: b.commOf(commKey{app: b.application(container)})})
		if b.SpillCalls {
			b.building[r].calls = NewSpool[Call](b.spill)
		}
	}
	return &b.building[r]
}

// State implements trace.Sink.
func (b *Builder) State(s trace.State) {
	if !b.known(s.Container, s.Value) {
		return
	}
	b.seen(s.Container, s.Start, s.End)
	v := &b.values[s.Value]
	if v.call < 0 || b.CollectivesOnly && !v.class.Collective() {
		return
	}
	r := b.resource(s.Container)
	r.appendCall(Call{Enter: s.Start, Leave: s.End, Name: v.call, Class: v.class, Coll: -1, Comm: r.comm,
		Depth: int16(min(max(s.Depth, 0), math.MaxInt16))})
}

// Variable implements trace.Sink.
func (b *Builder) Variable(trace.Variable) {}

// Link implements trace.Sink: every link may be a message; those between
// two resources are, once the resources are known.
func (b *Builder) Link(l trace.Link) {
	if b.CollectivesOnly {
		return
	}
	if l.From < 0 || l.To < 0 || int(l.From) >= len(b.containers) || int(l.To) >= len(b.containers) {
		return
	}
	b.links.Append(rawLink{from: l.From, to: l.To, start: l.Start, end: l.End, size: l.Size})
}

// Event implements trace.Sink.
func (b *Builder) Event(e trace.Event) {
	if !b.known(e.Container, e.Value) {
		return
	}
	b.seen(e.Container, e.Time, e.Time)
	if e.Type < 0 || int(e.Type) >= len(b.types) {
		return
	}
	v := &b.values[e.Value]
	switch b.types[e.Type].role {
	case trace.RoleCall, trace.RoleCollectiveCall:
		r := b.resource(e.Container)
		if r.open {
			// A call left by entering the next one (a trace cut or
			// written so): it ends there.
			r.openCall.Leave = e.Time
			r.closeOpen()
		}
		if v.call >= 0 && (!b.CollectivesOnly || v.class.Collective()) {
			r.open, r.openAt = true, int32(r.calls.Len())
			r.openCall = Call{Enter: e.Time, Leave: trace.Unset, Name: v.call, Class: v.class, Coll: -1, Comm: r.comm}
		}
	case trace.RoleCommunicator:
		if c := b.openCollective(e); c != nil {
			c.Comm = b.commOf(commKey{app: b.application(e.Container), name: v.alias})
		}
	case trace.RoleRootFlag:
		if c := b.openCollective(e); c != nil && v.role != trace.RoleOff {
			c.Root = true
		}
	case trace.RoleCollectiveEnd:
		if app := b.application(e.Container); app != b.endApp || e.Value != b.endValue {
			b.endApp, b.endValue, b.endComm = app, e.Value, b.commOf(commKey{app: app, name: v.category})
		}
		b.collEvents.Append(collEvent{container: e.Container, at: e.Time, comm: b.endComm, root: v.role == trace.RoleRoot})
	}
}

// openCollective returns the collective call entered by an event
// (trace.RoleCall) on e's container at e's time, if there is one.
func (b *Builder) openCollective(e trace.Event) *Call {
	r := b.res[e.Container]
	if r < 0 {
		return nil
	}
	bl := &b.building[r]
	if !bl.open {
		return nil
	}
	c := &bl.openCall
	if c.Enter != e.Time || !c.Class.Collective() {
		return nil
	}
	return c
}

// Finish implements trace.Sink.
func (b *Builder) Finish(start, end trace.Time) {
	if b.finished {
		b.fail("Finish called twice")
		return
	}
	b.finished, b.start, b.end = true, start, end
}

// Err returns the first inconsistency found in the stream so far.
func (b *Builder) Err() error { return b.err }

// ready returns why Run or Blocks cannot give the message passing: the
// stream's first inconsistency, the spill file's error, or the trace not
// finished.
func (b *Builder) ready() error {
	if b.err != nil {
		return b.err
	}
	if err := b.spill.Err(); err != nil {
		return err
	}
	if !b.finished {
		return fmt.Errorf("mpi: the trace has not finished")
	}
	return nil
}

// resourceOrder returns the indexes of b.building in the order of their
// containers, as the trace lists them: the order of the resources.
func (b *Builder) resourceOrder() []int {
	order := make([]int, len(b.building))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(i, j int) int { return cmp.Compare(b.building[i].container, b.building[j].container) })
	return order
}

// Run returns the message passing the builder gathered, once the trace
// has finished. It fails when the stream was inconsistent, or when the
// collective calls of the resources do not pair up.
func (b *Builder) Run() (*Run, error) {
	if err := b.ready(); err != nil {
		return nil, err
	}
	look := trace.Looker{Cancel: b.Cancel}
	if err := look.Stopped(1); err != nil {
		return nil, err
	}
	run := &Run{Names: b.names.Strings(), Comms: b.commNames(), Start: b.start, End: b.end}
	order := b.resourceOrder()
	resOf := make([]int32, len(b.containers))
	for i := range resOf {
		resOf[i] = -1
	}
	for _, i := range order {
		bl := &b.building[i]
		if err := look.Stopped(bl.calls.Len()); err != nil {
			b.links.DrainUntil(func(*rawLink) {}, func() bool { return true }) // let the spool go unread
			return nil, err
		}
		c := b.containers[bl.container]
		calls := outermost(bl.takeCalls(), b.end)
		if len(calls) == 0 {
			continue
		}
		resOf[bl.container] = int32(len(run.Resources))
		run.Resources = append(run.Resources, Resource{
			Container: bl.container, Path: b.path(bl.container), Process: b.process(bl.container),
			First: c.first, Last: c.last,
		})
		run.Calls = append(run.Calls, calls)
	}
	b.building = nil
	// The messages are tied to their calls on another core while the
	// collectives are paired: the two read the calls' times and classes
	// and write different fields.
	tied := make(chan struct{})
	var failed any
	complete := true
	go func() {
		defer close(tied)
		// Nothing recovers a panic on this goroutine: it is handed back.
		defer func() { failed = recover() }()
		complete = b.messages(run, resOf)
	}()
	b.assignCommunicators(run, resOf)
	err := collectives(run)
	<-tied
	if failed != nil {
		panic(failed)
	}
	if err == nil {
		err = b.spill.Err()
	}
	if err == nil && (!complete || trace.Stopped(b.Cancel) != nil) {
		err = trace.ErrComputationCanceled
	}
	if err != nil {
		return nil, err
	}
	return run, nil
}

// outermost sorts calls by entry and keeps those not nested in another
// (an MPI call a profiling layer makes inside another); a call never left
// ends with the trace. Among calls entered at one instant the outer (less
// deep) comes first, and at one depth a call that lasts no time (an eager
// MPI_Send) before the one entered as it was left.
func outermost(calls []Call, end trace.Time) []Call {
	for i := range calls {
		if calls[i].Leave == trace.Unset {
			calls[i].Leave = max(end, calls[i].Enter)
		}
	}
	order := func(x, y Call) int {
		return cmp.Or(cmp.Compare(x.Enter, y.Enter), cmp.Compare(x.Depth, y.Depth), cmp.Compare(x.Leave, y.Leave))
	}
	if !slices.IsSortedFunc(calls, order) {
		slices.SortStableFunc(calls, order)
	}
	out := calls[:0]
	for _, c := range calls {
		if n := len(out); n > 0 && c.Leave <= out[n-1].Leave && c.Enter < out[n-1].Leave {
			continue
		}
		if n := len(out); n > 0 && c.Enter < out[n-1].Leave {
			// Overlapping without nesting: cannot happen on one stack;
			// keep the first whole.
			continue
		}
		out = append(out, c)
	}
	return slices.Clip(out)
}

// path returns a container's names from the root's child down, joined by
// "/".
func (b *Builder) path(id int32) string {
	return trace.JoinPath(id, "/", func(c int32) (string, int32) { return b.containers[c].name, b.containers[c].parent })
}

// process returns the process a resource belongs to: its parent when the
// resource is a thread (its container type's name says so), else itself.
func (b *Builder) process(id int32) int32 {
	c := b.containers[id]
	if c.parent > 0 && b.isThread(c.typ) {
		return c.parent
	}
	return id
}

// isThread tells whether containers of type typ are threads
// (trace.IsThread).
func (b *Builder) isThread(typ int32) bool {
	return typ >= 0 && int(typ) < len(b.types) && b.types[typ].thread
}

// assignCommunicators gives each collective call the communicator the
// event of role trace.RoleCollectiveEnd inside it names.
func (b *Builder) assignCommunicators(run *Run, resOf []int32) {
	hint := hints(run)
	b.collEvents.Drain(func(e *collEvent) {
		if r := resOf[e.container]; r >= 0 {
			hint[r] = assignCommunicator(run.Calls[r], e, hint[r])
		}
	})
}

// assignCommunicator gives the collective call of calls that holds e's
// instant e's communicator, marks it the root when e is the root's, and
// returns the new search hint (lastEntered).
func assignCommunicator(calls []Call, e *collEvent, hint int32) int32 {
	hint = lastEntered(calls, e.at, hint)
	if j := containingFrom(calls, hint, e.at, Class.Collective); j >= 0 && calls[j].Class.Collective() {
		calls[j].Comm = e.comm
		calls[j].Root = calls[j].Root || e.root
	}
	return hint
}

// sendCall returns the call of calls that sent a message at instant at
// (the one at holds, preferring a send), or -1, and the new search hint.
func sendCall(calls []Call, at trace.Time, hint int32) (j, next int32) {
	hint = lastEntered(calls, at, hint)
	return containingFrom(calls, hint, at, sends), hint
}

// recvCall returns the call of calls that completed the receipt of a
// message at instant at (the one at holds if it completes receipts,
// else the next that does, else the one at holds), or -1, and the new
// search hint.
func recvCall(calls []Call, at trace.Time, hint int32) (j, next int32) {
	hint = lastEntered(calls, at, hint)
	j = containingFrom(calls, hint, at, Class.Completes)
	if j < 0 || !calls[j].Class.Completes() {
		if k := nextCompleting(calls, at); k >= 0 {
			j = k
		}
	}
	return j, hint
}

// hints returns a search hint per resource (lastEntered), none yet.
func hints(run *Run) []int32 {
	h := make([]int32, len(run.Calls))
	for i := range h {
		h[i] = -1
	}
	return h
}

// messages ties the links between two resources to their calls. The
// links of a resource come mostly in time order: the search for their
// calls starts from the last one found. Once b.Cancel is closed (looked
// at before each chunk of links), the rest of the links is let go unread
// and it reports false.
func (b *Builder) messages(run *Run, resOf []int32) bool {
	sendHint, recvHint := hints(run), hints(run)
	if b.OnMessage == nil {
		run.Messages = make([]Message, 0, b.links.Len())
	}
	// The links are let go chunk by chunk as they become messages. The
	// Looker is this goroutine's own.
	look := trace.Looker{Cancel: b.Cancel}
	stopped := func() bool { return look.Stopped(trace.StopEvery) != nil }
	return b.links.DrainUntil(func(l *rawLink) {
		from, to := resOf[l.from], resOf[l.to]
		if from < 0 || to < 0 {
			return
		}
		m := Message{From: from, To: to, Send: l.start, Recv: l.end, Size: l.size}
		m.SendCall, sendHint[from] = sendCall(run.Calls[from], l.start, sendHint[from])
		m.RecvCall, recvHint[to] = recvCall(run.Calls[to], l.end, recvHint[to])
		run.NumMessages++
		if b.OnMessage != nil {
			var send, recv Class
			if m.SendCall >= 0 {
				send = run.Calls[from][m.SendCall].Class
			}
			if m.RecvCall >= 0 {
				recv = run.Calls[to][m.RecvCall].Class
			}
			b.OnMessage(&m, send, recv)
			return
		}
		run.Messages = append(run.Messages, m)
	}, stopped)
}

// collectives pairs the collective calls: the k-th collective call of
// each resource on a communicator is instance k of that communicator.
func collectives(run *Run) error {
	in := newInstances(run.Names)
	for r, calls := range run.Calls {
		in.nextResource()
		for j := range calls {
			c := &calls[j]
			if !c.Class.Collective() {
				continue
			}
			i, k, isNew := in.of(c)
			if isNew {
				run.Collectives = append(run.Collectives, Collective{Name: c.Name, Comm: c.Comm, Class: c.Class, Root: -1})
			}
			coll := &run.Collectives[i]
			if first := coll.Members; len(first) > 0 {
				if f := run.Call(first[0]); in.differ(f.Name, f.Class, c) {
					return unpaired(k, run.Comms[c.Comm], run.Names[f.Name], run.Resources[first[0].Resource].Path,
						run.Names[c.Name], run.Resources[r].Path, c.Enter)
				}
			}
			if c.Root {
				coll.Root = int32(len(coll.Members))
			}
			c.Coll = i
			coll.Members = append(coll.Members, CallRef{int32(r), int32(j)})
		}
	}
	return nil
}

// instances numbers the collective calls resource after resource: the
// k-th collective call of each resource on a communicator is instance k
// of that communicator, the instances numbered in the order first met.
// A resource's calls on a communicator are its instances 0, 1, 2... in
// turn, so the instances met so far of a communicator are its first
// few: a slice by communicator numbers them (a map of communicator and
// k cost a fifth of Builder.Blocks on a run with a collective per step).
type instances struct {
	ops   []string  // the operation of each name (Operation)
	index [][]int32 // by communicator, the instance of each k met so far
	seq   []int32   // the current resource's collective calls so far, by communicator
	n     int32     // instances so far
}

func newInstances(names []string) *instances {
	in := &instances{ops: make([]string, len(names))}
	for i, n := range names {
		in.ops[i], _ = Operation(n)
	}
	return in
}

// nextResource starts the calls of the next resource.
func (in *instances) nextResource() { clear(in.seq) }

// of returns the instance of the collective call c (of the current
// resource, calls given in time order), its rank k on c's communicator,
// and whether c is the first call of that instance.
func (in *instances) of(c *Call) (i, k int32, isNew bool) {
	comm := int(c.Comm)
	if comm >= len(in.seq) {
		in.seq = append(in.seq, make([]int32, comm+1-len(in.seq))...)
		in.index = append(in.index, make([][]int32, comm+1-len(in.index))...)
	}
	k = in.seq[comm]
	in.seq[comm]++
	if int(k) < len(in.index[comm]) {
		return in.index[comm][k], k, false
	}
	i = in.n
	in.n++
	in.index[comm] = append(in.index[comm], i)
	return i, k, true
}

// differ tells whether call c cannot be of the collective whose first
// call has name and class: another class or another operation.
func (in *instances) differ(name int32, class Class, c *Call) bool {
	return class != c.Class || in.ops[name] != in.ops[c.Name]
}

// unpaired is the error of collective k of communicator comm, which is
// op on resource at but other on resource on, entered at enter.
func unpaired(k int32, comm, op, at, other, on string, enter trace.Time) error {
	return fmt.Errorf("mpi: the collective calls do not pair up: collective %d of communicator %s is %s on %s but %s on %s at %s "+
		"(the trace does not tell every call's communicator, or is cut)", k, commLabel(comm), op, at, other, on, enter)
}

func commLabel(c string) string {
	if c == "" {
		return "(unknown)"
	}
	return c
}
