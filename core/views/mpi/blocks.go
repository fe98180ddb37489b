package mpi

import (
	"fmt"
	"math"
	"sync"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Blocks is the message passing of a trace as Run has it, gathered one
// resource at a time so that the calls are never all in memory: each
// resource's calls, in time order, in a spool (kept in memory up to the
// spill's share, spilled beyond it), read forwards by the analyses that
// need no more (the ideal replay of package pop); the messages handed to
// Builder.OnMessage as they are tied; of the collectives, their number
// of members.
type Blocks struct {
	Resources []Resource
	// Calls holds each resource's calls as Run.Calls does (their Comm
	// and Coll set): read them with Reader, as many times as needed.
	Calls []Spool[Call]
	// InCalls is each resource's time in its calls, added up.
	InCalls []trace.Time
	// Members counts the members of each collective operation, in the
	// order of Run.Collectives.
	Members               []int32
	NumCalls, NumMessages int
	Names, Comms          []string
	Start, End            trace.Time
}

// linkEnd is one end of a link, on the resource it belongs to: the
// link's number among the builder's links, the resource of its other
// end, and its instant there.
type linkEnd struct {
	link, other int32
	at          trace.Time
}

// TiedCall is a call a message was tied to, as Builder.OnTied hands it:
// which call, and its times and class.
type TiedCall struct {
	Ref          CallRef
	Enter, Leave trace.Time
	Class        Class
}

// firstMember is what the pairing of collectives compares each member
// with: the call that opened the instance.
type firstMember struct {
	name, res int32
	class     Class
}

// Blocks returns the message passing the builder gathered, once the trace
// has finished, as Run would (the same calls, messages and collectives)
// but a resource at a time: the resource's calls are taken out of the
// builder, sorted (outermost), given their communicators and collectives,
// and the ends of the links on the resource tied to them, then set aside
// in a spool before the next resource's. What is held meanwhile besides
// the spools is a few bytes per link (the calls its ends were tied to)
// and per collective, and for OnTied the call of each message's end met
// first. The messages are then handed, in the order of the links, to
// OnMessage. It fails as Run does, and stops, with nothing, once
// b.Cancel is closed.
func (b *Builder) Blocks() (*Blocks, error) {
	if err := b.ready(); err != nil {
		return nil, err
	}
	// The looks follow the work: a link's ends, a resource's calls (the
	// preparing goroutine sorts them a resource ahead), a message.
	look := trace.Looker{Cancel: b.Cancel}
	if err := look.Stopped(1); err != nil {
		return nil, err
	}
	out := &Blocks{Names: b.names.Strings(), Comms: b.commNames(), Start: b.start, End: b.end}
	resOf := make([]int32, len(b.containers))
	for i := range resOf {
		resOf[i] = -1
	}
	// Resources in the order of their containers, as the trace lists
	// them; a container with calls is one (outermost keeps a call).
	order := b.resourceOrder()
	kept := order[:0]
	for _, i := range order {
		bl := &b.building[i]
		if bl.calls.Len() == 0 && !bl.open {
			continue
		}
		c := b.containers[bl.container]
		resOf[bl.container] = int32(len(out.Resources))
		out.Resources = append(out.Resources, Resource{
			Container: bl.container, Path: b.path(bl.container), Process: b.process(bl.container),
			First: c.first, Last: c.last,
		})
		kept = append(kept, i)
	}
	if b.links.Len() > math.MaxInt32 {
		// Their numbers are int32 (and the replay's edges, two per
		// message at most, uint32).
		return nil, fmt.Errorf("mpi: %d links: more than %d cannot be tied to their calls", b.links.Len(), math.MaxInt32)
	}
	n := len(out.Resources)
	// The ends of the links between resources and the collectives'
	// events, by resource, in the order they came.
	sendEnds, recvEnds := make([]Spool[linkEnd], n), make([]Spool[linkEnd], n)
	events := make([]Spool[collEvent], n)
	for r := range n {
		sendEnds[r], recvEnds[r], events[r] = NewSpool[linkEnd](b.spill), NewSpool[linkEnd](b.spill), NewSpool[collEvent](b.spill)
	}
	ties := newMessageTies(b.OnTied, n)
	var id int32
	// Once stopped, the rest of the links' spool is let go unread
	// (DrainUntil): the records of the chunk under way are passed over,
	// the file's chunks after it are not read back. Before each chunk
	// (maxChunk links at most) the channel is looked at: counting a
	// look's worth of items makes the Looker look.
	stopped := func() bool { return look.Stopped(trace.StopEvery) != nil }
	endsOf := func(l *rawLink) {
		if look.Stopped(1) != nil {
			return
		}
		if from, to := resOf[l.from], resOf[l.to]; from >= 0 && to >= 0 {
			sendEnds[from].Append(linkEnd{id, to, l.start})
			recvEnds[to].Append(linkEnd{id, from, l.end})
			ties.expect(from, to)
			out.NumMessages++
		}
		id++
	}
	if b.OnMessage == nil {
		// Read once: no message is handed over after the calls.
		b.links.DrainUntil(endsOf, stopped)
	} else {
		links := b.links.Reader()
		for l, ok := links.Next(); ok && look.Stopped(0) == nil; l, ok = links.Next() {
			endsOf(l)
		}
	}
	if err := look.Stopped(0); err != nil {
		return nil, err
	}
	b.collEvents.Drain(func(e *collEvent) {
		if r := resOf[e.container]; r >= 0 {
			events[r].Append(*e)
		}
	})
	// For OnMessage, the calls each link's ends were tied to, and their
	// classes (the send's in the high half).
	var sendCallOf, recvCallOf []int32
	var classes []uint8
	if b.OnMessage != nil {
		sendCallOf, recvCallOf = make([]int32, id), make([]int32, id)
		classes = make([]uint8, id)
	}
	in := newInstances(out.Names)
	var first []firstMember
	// Each resource's calls are made ready (taken, sorted, given their
	// communicators, found for its links' ends) on another core, a
	// resource ahead of this loop, which numbers the collectives and
	// sets the calls aside in the order of the resources.
	ready, stop, failed := b.prepareResources(kept, events, sendEnds, recvEnds)
	defer stop()
	for r := range kept {
		p, ok := <-ready
		if !ok {
			break // the preparing goroutine failed (below)
		}
		calls := p.calls
		if err := look.Stopped(len(calls) + len(p.sends) + len(p.recvs)); err != nil {
			return nil, err // the preparing goroutine stops (deferred)
		}
		// The collectives (collectives).
		in.nextResource()
		for j := range calls {
			c := &calls[j]
			if !c.Class.Collective() {
				continue
			}
			coll, k, isNew := in.of(c)
			if isNew {
				first = append(first, firstMember{name: c.Name, res: int32(r), class: c.Class})
				out.Members = append(out.Members, 0)
			}
			if f := first[coll]; in.differ(f.name, f.class, c) {
				return nil, unpaired(k, out.Comms[c.Comm], out.Names[f.name], out.Resources[f.res].Path,
					out.Names[c.Name], out.Resources[r].Path, c.Enter)
			}
			c.Coll = coll
			out.Members[coll]++
		}
		kept := NewSpool[Call](b.spill)
		kept.AppendSlice(calls)
		var in trace.Time
		for _, c := range calls {
			in += c.Leave - c.Enter
		}
		out.Calls = append(out.Calls, kept)
		out.InCalls = append(out.InCalls, in)
		out.NumCalls += len(calls)
		if b.OnCalls != nil {
			b.OnCalls(out, r, calls)
		}
		// The links' ends (messages).
		if b.OnMessage != nil {
			for _, t := range p.sends {
				sendCallOf[t.link] = t.call
				if t.call >= 0 {
					classes[t.link] |= uint8(calls[t.call].Class) << 4
				}
			}
			for _, t := range p.recvs {
				recvCallOf[t.link] = t.call
				if t.call >= 0 {
					classes[t.link] |= uint8(calls[t.call].Class)
				}
			}
		}
		if b.OnTied != nil {
			ties.resource(int32(r), calls, p.sends, p.recvs)
		}
	}
	stop()
	if p := failed(); p != nil {
		panic(p)
	}
	b.building = nil
	if b.OnMessage != nil {
		id = 0
		b.links.DrainUntil(func(l *rawLink) {
			if look.Stopped(1) != nil {
				return
			}
			if from, to := resOf[l.from], resOf[l.to]; from >= 0 && to >= 0 {
				m := Message{From: from, To: to, Send: l.start, Recv: l.end, Size: l.size, SendCall: sendCallOf[id], RecvCall: recvCallOf[id]}
				b.OnMessage(&m, Class(classes[id]>>4), Class(classes[id]&15))
			}
			id++
		}, stopped)
	}
	if err := look.Stopped(0); err != nil {
		return nil, err
	}
	if err := b.spill.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// preparedCalls are a resource's calls made ready for Blocks: taken from
// the builder, sorted (outermost), given their communicators, and the
// calls its links' ends were tied to.
type preparedCalls struct {
	calls        []Call
	sends, recvs []tiedEnd
}

// tiedEnd is a link's end tied to a call of its resource (-1: none),
// and the resource of the link's other end.
type tiedEnd struct{ link, call, other int32 }

// messageTies hands Builder.OnTied each message tied to a call at both
// ends once the calls of its second end are in hand. The call of the end
// met first (on an earlier resource, or the send of a message within one
// resource) is held meanwhile, 24 bytes, in a queue of the resource of
// its second end: that resource reads its queue in order, a partner at a
// time, rather than a table of every link at random (one cache miss an
// end), and only the messages between a resource taken and one still to
// come are held, not one record per link.
//
// The ends of the messages between two resources, one way, come in the
// order of the links on both (each resource's link ends are in that
// order): the calls the earlier one holds for the later one are read by
// it in the order they were held. So a queue is made of runs, one per
// partner and way, each read from its start by a cursor.
type messageTies struct {
	onTied func(link int32, send, recv TiedCall)
	// held are, by the resource of their second end, the calls held for
	// it, and runs where each partner's begin.
	held [][]heldCall
	runs [][]heldRun
	// holds counts, by resource, the calls that will be held for it
	// (expect): its queue is made that long at its first call held,
	// rather than grown by append, which copies it over and over and
	// leaves up to as much again unused.
	holds []int32
	// next is, for the resource whose calls are in hand, by the
	// resource of the other end, where its next held call is in held[r]
	// (the send's held for its receive, then the receive's for its
	// send); touched lists the partners set, to reset them.
	next    [2][]int32
	touched []int32
}

// heldCall is the call of a message's end met first: its times, index
// plus one (0: none) and class.
type heldCall struct {
	enter, leave trace.Time
	call         int32
	class        Class
}

// heldRun is a run of held calls for one resource: those of partner
// from's sends (else receives), from index start of its queue.
type heldRun struct {
	from  int32
	send  bool
	start int32
}

// noneHeld marks a partner of no run in messageTies.next.
const noneHeld = -1

func newMessageTies(onTied func(link int32, send, recv TiedCall), resources int) messageTies {
	m := messageTies{onTied: onTied}
	if onTied == nil {
		return m
	}
	m.held, m.runs = make([][]heldCall, resources), make([][]heldRun, resources)
	m.holds = make([]int32, resources)
	for k := range m.next {
		m.next[k] = make([]int32, resources)
		for i := range m.next[k] {
			m.next[k][i] = noneHeld
		}
	}
	return m
}

// expect counts the call that will be held for a message from resource
// from to resource to: that of its end met first, on the earlier resource
// (the send's within one), held for the later.
func (m *messageTies) expect(from, to int32) {
	if m.onTied != nil {
		m.holds[max(from, to)]++
	}
}

// heldCheck, set by tests, is handed the calls held for each resource
// once read, and how many were expected.
var heldCheck func(r int32, held []heldCall, expected int32)

// resource ties the ends of resource r's links (sends, recvs: their
// calls among calls), then lets go of what was held for r.
func (m *messageTies) resource(r int32, calls []Call, sends, recvs []tiedEnd) {
	m.startReading(r)
	for _, t := range sends {
		m.end(r, calls, t, true)
	}
	// A message within r: its send was held meanwhile.
	m.startReading(r)
	for _, t := range recvs {
		m.end(r, calls, t, false)
	}
	for _, p := range m.touched {
		m.next[0][p], m.next[1][p] = noneHeld, noneHeld
	}
	m.touched = m.touched[:0]
	if heldCheck != nil {
		heldCheck(r, m.held[r], m.holds[r])
	}
	m.held[r], m.runs[r] = nil, nil
}

// startReading sets the cursors of the runs held for r not yet set.
func (m *messageTies) startReading(r int32) {
	for _, run := range m.runs[r] {
		way := m.way(run.send)
		if m.next[way][run.from] == noneHeld {
			m.next[way][run.from] = run.start
			m.touched = append(m.touched, run.from)
		}
	}
}

// way is the index in next of the runs of the partners' sends (0), else
// receives (1).
func (m *messageTies) way(send bool) int {
	if send {
		return 0
	}
	return 1
}

// end holds the call of a link's end met first, or hands the message
// over at its second end when both ends have a call. An end met first
// is held even without a call, so that the second reads its partner's
// run in step.
func (m *messageTies) end(r int32, calls []Call, t tiedEnd, send bool) {
	if t.other > r || t.other == r && send {
		h := heldCall{call: t.call + 1}
		if t.call >= 0 {
			c := &calls[t.call]
			h = heldCall{c.Enter, c.Leave, t.call + 1, c.Class}
		}
		m.hold(t.other, r, send, h)
		return
	}
	// The other end's call, met before: the next of its run.
	at := &m.next[m.way(!send)][t.other]
	h := &m.held[r][*at]
	*at++
	if t.call < 0 || h.call == 0 {
		return
	}
	c := &calls[t.call]
	other := TiedCall{Ref: CallRef{t.other, h.call - 1}, Enter: h.enter, Leave: h.leave, Class: h.class}
	mine := TiedCall{Ref: CallRef{r, t.call}, Enter: c.Enter, Leave: c.Leave, Class: c.Class}
	if send {
		m.onTied(t.link, mine, other)
	} else {
		m.onTied(t.link, other, mine)
	}
}

// hold queues h, the call of from's send (else receive) end, for
// resource to.
func (m *messageTies) hold(to, from int32, send bool, h heldCall) {
	runs := m.runs[to]
	if n := len(runs); n == 0 || runs[n-1].from != from || runs[n-1].send != send {
		m.runs[to] = append(runs, heldRun{from: from, send: send, start: int32(len(m.held[to]))})
	}
	if m.held[to] == nil {
		m.held[to] = make([]heldCall, 0, m.holds[to])
	}
	m.held[to] = append(m.held[to], h)
}

// prepareResources makes the calls of the resources kept ready, in their
// order, on a goroutine of its own: each is handed over on ready (closed
// at the end, or early after a panic). stop ends the goroutine and waits
// for it (Blocks returns early on an error, and must not close the spill
// file while it is read); failed then returns what the goroutine
// panicked with, nil if nothing. Resources are handed over one at a time,
// a resource ahead at most: the calls of three resources are in memory.
func (b *Builder) prepareResources(kept []int, events []Spool[collEvent], sendEnds, recvEnds []Spool[linkEnd]) (
	ready <-chan preparedCalls, stop func(), failed func() any) {
	out := make(chan preparedCalls, 1)
	quit, done := make(chan struct{}), make(chan struct{})
	var panicked any
	go func() {
		defer close(done)
		defer close(out)
		// Nothing recovers a panic on this goroutine: it is handed back.
		defer func() { panicked = recover() }()
		for r, i := range kept {
			p := preparedCalls{calls: outermost(b.building[i].takeCalls(), b.end),
				sends: make([]tiedEnd, 0, sendEnds[r].Len()), recvs: make([]tiedEnd, 0, recvEnds[r].Len())}
			// The communicators (assignCommunicators).
			hint := int32(-1)
			events[r].Drain(func(e *collEvent) { hint = assignCommunicator(p.calls, e, hint) })
			hint = -1
			sendEnds[r].Drain(func(e *linkEnd) {
				var j int32
				j, hint = sendCall(p.calls, e.at, hint)
				p.sends = append(p.sends, tiedEnd{e.link, j, e.other})
			})
			hint = -1
			recvEnds[r].Drain(func(e *linkEnd) {
				var j int32
				j, hint = recvCall(p.calls, e.at, hint)
				p.recvs = append(p.recvs, tiedEnd{e.link, j, e.other})
			})
			select {
			case out <- p:
			case <-quit:
				return
			}
		}
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() { close(quit) })
		<-done
	}
	return out, stop, func() any { return panicked }
}
