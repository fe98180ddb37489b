package nsys

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/readers/nesting"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

var nan = math.NaN()

// emitter numbers what it hands to the sink.
type emitter struct {
	r       *reader
	sink    trace.Sink
	nTypes  int32
	nValues int32
	nConts  int32 // the root is container 0

	contType  [nKinds]int32
	stateType []int32   // by reader state type
	valueID   [][]int32 // by reader state type, by value: -1 until defined
	byRank    []int32   // a group's spans by rank of delivery (scratch)
}

func (e *emitter) define(t trace.Type) int32 {
	e.sink.DefineType(t)
	e.nTypes++
	return e.nTypes - 1
}

func (e *emitter) defineValue(typ int32, name string) int32 {
	return e.defineRoled(typ, name, trace.RoleNone)
}

func (e *emitter) defineRoled(typ int32, name string, role trace.Role) int32 {
	v := trace.Value{Type: typ, Name: name, Role: role}
	if role == trace.RoleStep {
		v.Step, _ = trace.ProfilerStep(name)
	}
	e.sink.DefineValue(v)
	e.nValues++
	return e.nValues - 1
}

// emit nests the states, then delivers the definitions, the containers,
// the states container by container in the order they complete, the
// marks, the launch links, and Finish.
func (r *reader) emit(sink trace.Sink) error {
	groups := make([]*group, 0, len(r.groups))
	for _, g := range r.groups {
		groups = append(groups, g)
	}
	slices.SortFunc(groups, func(a, b *group) int {
		if c := cmp.Compare(a.node, b.node); c != 0 {
			return c
		}
		return cmp.Compare(a.stype, b.stype)
	})
	laned := make([]int64, len(r.stypes))
	tracker := nesting.Tracker{KeepCompletion: true}
	for _, g := range groups {
		lanes, ok := nest(&tracker, g.spans)
		if !ok {
			name, _ := r.h.name(g.node)
			return r.db.Errorf("the %s states of %s overlap on more than %d lanes: they are not intervals of one thread or stream",
				r.stypes[g.stype].name, name, nesting.DefaultMaxLanes)
		}
		n := &r.h.nodes[g.node]
		n.lanes = max(n.lanes, lanes)
		g.laneBySeq = make([]int32, len(g.spans))
		for _, s := range g.spans {
			g.laneBySeq[s.seq] = s.lane
			if s.lane > 0 {
				laned[g.stype]++
			}
		}
		if err := r.opt.Canceled(); err != nil {
			return err
		}
	}
	for t, n := range laned {
		if n > 0 {
			r.opt.Warn("%d %s states overlap others on their %s without nesting: they are on overlap lanes, "+
				"sibling containers named \"<name> (overlap lane k)\"", n, r.stypes[t].name, strings.ToLower(kindNames[r.stypes[t].on]))
		}
	}

	e := &emitter{r: r, sink: sink}
	e.defineTypes()
	first := r.first
	if first > r.last { // nothing at all
		first, r.last = 0, 0
	}
	roots := r.h.roots()
	lanes := e.siblings(roots)
	for _, h := range roots {
		e.create(lanes, h, 0, trace.Time(first))
	}
	if err := r.opt.Canceled(); err != nil {
		return err
	}
	for _, g := range groups {
		e.states(g)
	}
	e.marks()
	e.links()
	sink.Finish(trace.Time(first), trace.Time(r.last))
	return nil
}

// defineTypes defines the container types present, in a fixed order, then
// the state types in the order the tables first used them, the mark event
// type and the launch link type.
func (e *emitter) defineTypes() {
	r := e.r
	var present [nKinds]bool
	for i := range r.h.nodes {
		present[r.h.nodes[i].kind] = true
	}
	parentOf := [nKinds]kind{kHost, kHost, kProcess, kHost, kDevice, kContext}
	for k := kHost; k < nKinds; k++ {
		e.contType[k] = trace.None
		if !present[k] {
			continue
		}
		parent := trace.None
		if k != kHost {
			parent = e.contType[parentOf[k]]
		}
		e.contType[k] = e.define(trace.Type{Name: kindNames[k], Kind: trace.KindContainer, Parent: parent,
			Start: trace.None, End: trace.None})
	}
	e.stateType = make([]int32, len(r.stypes))
	e.valueID = make([][]int32, len(r.stypes))
	for t := range r.stypes {
		st := &r.stypes[t]
		e.stateType[t] = e.define(trace.Type{Name: st.name, Kind: trace.KindState, Parent: e.contType[st.on],
			Start: trace.None, End: trace.None})
		e.valueID[t] = make([]int32, len(st.values))
		for i := range e.valueID[t] {
			e.valueID[t][i] = -1
		}
	}
}

// create creates node n and, after it, its overlap lanes, named by lanes
// (those of its siblings), then its children.
func (e *emitter) create(lanes *trace.Lanes, n, parent int32, start trace.Time) {
	h := e.r.h
	nd := &h.nodes[n]
	name, alias := h.name(n)
	mk := func(name, alias string) int32 {
		e.nConts++
		e.sink.CreateContainer(trace.Container{Name: name, Alias: alias, Type: e.contType[nd.kind], Parent: parent,
			Start: start, End: trace.Unset})
		return e.nConts
	}
	nd.cont = mk(name, alias)
	for lane := int32(1); lane < nd.lanes; lane++ {
		mk(lanes.Name(name, int(lane)), alias+"#"+strconv.Itoa(int(lane)))
	}
	h.order(nd.children)
	kids := e.siblings(nd.children)
	for _, c := range nd.children {
		e.create(kids, c, nd.cont, start)
	}
}

// siblings returns the namer of the lanes of nodes, children of one
// parent: lanes take none of their names (see trace.Lanes).
func (e *emitter) siblings(nodes []int32) *trace.Lanes {
	taken := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		name, _ := e.r.h.name(n)
		taken[name] = true
	}
	return &trace.Lanes{Taken: func(n string) bool { return taken[n] }}
}

// states delivers a group's states lane by lane in the order they
// complete, the order nest ranked them in.
func (e *emitter) states(g *group) {
	cont := e.r.h.nodes[g.node].cont
	typ := e.stateType[g.stype]
	ids := e.valueID[g.stype]
	e.byRank = slices.Grow(e.byRank[:0], len(g.spans))[:len(g.spans)]
	for i := range g.spans {
		e.byRank[g.spans[i].delivery] = int32(i)
	}
	for _, i := range e.byRank {
		s := &g.spans[i]
		v := ids[s.value]
		if v < 0 {
			st := &e.r.stypes[g.stype]
			name, role := st.values[s.value], trace.RoleNone
			if st.role != nil {
				role = st.role(name)
			}
			v = e.defineRoled(typ, name, role)
			ids[s.value] = v
		}
		e.sink.State(trace.State{Container: cont + s.lane, Type: typ, Value: v,
			Start: trace.Time(s.start), End: trace.Time(s.end), Depth: s.depth, Order: s.order})
	}
	g.spans = nil
}

// marks delivers the NVTX marks by container, then time.
func (e *emitter) marks() {
	r := e.r
	if len(r.marks) == 0 {
		return
	}
	typ := e.define(trace.Type{Name: typeMark, Kind: trace.KindEvent, Parent: e.contType[kThread],
		Start: trace.None, End: trace.None})
	ids := make([]int32, len(r.markT.values))
	for i := range ids {
		ids[i] = -1
	}
	slices.SortStableFunc(r.marks, func(a, b mark) int {
		if c := cmp.Compare(a.node, b.node); c != 0 {
			return c
		}
		return cmp.Compare(a.at, b.at)
	})
	for _, m := range r.marks {
		if ids[m.value] < 0 {
			ids[m.value] = e.defineValue(typ, r.markT.values[m.value])
		}
		e.sink.Event(trace.Event{Container: r.h.nodes[m.node].cont, Type: typ, Value: ids[m.value], Time: trace.Time(m.at)})
	}
}

// links delivers a link from each API call to each GPU operation it
// launched (same process, same correlation id), from the call's start to
// the operation's start.
func (e *emitter) links() {
	r := e.r
	typ, values := trace.None, map[string]int32{}
	for _, op := range r.gpuOp {
		api, ok := r.apis[op.corr]
		if !ok {
			continue
		}
		if typ == trace.None {
			typ = e.define(trace.Type{Name: typeLaunch, Kind: trace.KindLink, Parent: trace.None,
				Start: e.contType[kThread], End: e.contType[kStream], Role: trace.RoleLaunch})
		}
		v, ok := values[op.what]
		if !ok {
			v = e.defineValue(typ, op.what)
			values[op.what] = v
		}
		from := r.h.nodes[api.g.node].cont + api.g.laneBySeq[api.seq]
		to := r.h.nodes[op.g.node].cont + op.g.laneBySeq[op.seq]
		e.sink.Link(trace.Link{Container: 0, Type: typ, Value: v, Start: trace.Time(api.start), End: trace.Time(op.start),
			From: from, To: to, Key: strconv.FormatInt(op.corr.id, 10), Size: op.size})
	}
	e.waits()
}

// lastRecord is the record of recs (sorted by correlation id) that a wait
// of correlation id corr is for when the export names only the event: the
// last one recorded before the waiting call, as cudaEventSynchronize and
// cudaStreamWaitEvent wait for the event's most recent cudaEventRecord
// (correlation ids grow with the calls of a process).
func lastRecord(recs []recordRef, corr int64) (recordRef, bool) {
	i := sort.Search(len(recs), func(i int) bool { return recs[i].corr.id >= corr })
	if i == 0 {
		return recordRef{}, false
	}
	return recs[i-1], true
}

// waits delivers a link to each wait for a CUDA event from the stream the
// event was recorded on, at the start of its cudaEventRecord call (the
// point the stream's operations launched before it must finish), keyed
// by the call's correlation id.
func (e *emitter) waits() {
	r := e.r
	typ, value := trace.None, int32(0)
	for _, recs := range r.byEvent {
		sort.Slice(recs, func(i, j int) bool { return recs[i].corr.id < recs[j].corr.id })
	}
	for _, w := range r.waits {
		rec, ok := r.records[w.event]
		if w.byID {
			rec, ok = lastRecord(r.byEvent[w.event], w.corr)
		}
		if !ok {
			continue
		}
		api, ok := r.apis[rec.corr]
		if !ok {
			continue
		}
		stream, ok := r.h.findStream(rec.corr.proc, rec.device, rec.context, rec.stream)
		if !ok {
			continue // nothing ran on the stream: no operation to wait for
		}
		if typ == trace.None {
			typ = e.define(trace.Type{Name: typeWait, Kind: trace.KindLink, Parent: trace.None,
				Start: e.contType[kStream], End: e.contType[kStream], Role: trace.RoleEventWait})
			value = e.defineValue(typ, "cudaEventRecord")
		}
		e.sink.Link(trace.Link{Container: 0, Type: typ, Value: value, Start: trace.Time(api.start), End: trace.Time(w.start),
			From: r.h.nodes[stream].cont, To: r.h.nodes[w.g.node].cont + w.g.laneBySeq[w.seq], Key: strconv.FormatInt(rec.corr.id, 10), Size: nan})
	}
}
