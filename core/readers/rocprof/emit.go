package rocprof

import (
	"cmp"
	"slices"
	"sort"
	"strconv"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/readers/nesting"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// emit nests the records and delivers the model: types, containers,
// states, marks, links, variables, then Finish.
func (m *model) emit(sink trace.Sink, file string) error {
	defer m.release()
	if m.err != nil {
		return m.err
	}
	m.correlate()
	delivery, err := m.nestAll(file)
	if err != nil {
		return err
	}
	first, last := m.extent()
	e := &emitter{m: m, sink: sink, values: map[[2]int32]int32{}}
	e.defineTypes()
	m.createContainers(sink, e.ctype, first)
	e.states(delivery)
	e.marks()
	e.links()
	e.variables()
	sink.Finish(first, last)
	m.text.Note(m.opt, file)
	return nil
}

// nestAll sorts the records by container and kind, each group parents
// first, and gives them their depth, lane and order (package nesting:
// closed intervals, of two identical records the first to arrive is the
// parent). It returns the indices of the records group by group, each
// group's lane by lane in the order they complete.
func (m *model) nestAll(file string) ([]int32, error) {
	slices.SortFunc(m.recs, func(a, b rec) int {
		if c := cmp.Compare(a.cont, b.cont); c != 0 {
			return c
		}
		if c := cmp.Compare(a.kind, b.kind); c != 0 {
			return c
		}
		return compareRecs(a, b)
	})
	// Links refer to records by arrival order: map them to their new place.
	where := make([]int32, len(m.recs))
	for i, r := range m.recs {
		where[r.seq] = int32(i)
	}
	for i := range m.links {
		m.links[i] = [2]int32{where[m.links[i][0]], where[m.links[i][1]]}
	}
	for i := range m.conts {
		m.conts[i].lanes = 1
	}
	delivery := make([]int32, 0, len(m.recs))
	var t nesting.Tracker
	for lo := 0; lo < len(m.recs); {
		hi := lo + 1
		for hi < len(m.recs) && m.recs[hi].cont == m.recs[lo].cont && m.recs[hi].kind == m.recs[lo].kind {
			hi++
		}
		recs := m.recs[lo:hi]
		lanes, ok := t.Nest(len(recs),
			func(i int) (trace.Time, trace.Time) { return recs[i].start, recs[i].end },
			func(i int, at nesting.Placement) {
				recs[i].lane, recs[i].depth, recs[i].order = at.Lane, at.Depth, at.Order
			},
			func(i int) { delivery = append(delivery, int32(lo+i)) })
		c := &m.conts[recs[0].cont]
		if !ok {
			return nil, errs.Format(file, 0, "%s %s has more than %d mutually overlapping %s records",
				containerTypeNames[c.typ], c.key, nesting.DefaultMaxLanes, m.kinds.String(recs[0].kind))
		}
		c.lanes = max(c.lanes, int32(lanes))
		lo = hi
	}
	return delivery, nil
}

// extent returns the first and last instants of the records, marks and
// samples (0, 0 for none).
func (m *model) extent() (first, last trace.Time) {
	timed := false
	see := func(a, b trace.Time) {
		if !timed || a < first {
			first = a
		}
		if !timed || b > last {
			last = b
		}
		timed = true
	}
	for _, r := range m.recs {
		see(r.start, r.end)
	}
	for _, k := range m.marks {
		see(k.at, k.at)
	}
	for _, s := range m.samples {
		see(s.start, s.end)
	}
	return first, last
}

// emitter makes the sink calls.
type emitter struct {
	m    *model
	sink trace.Sink

	ntypes   int32
	ctype    [len(containerTypeNames)]int32
	stype    []int32 // by kind
	vtype    []int32 // by variable
	markType int32
	linkType int32
	// kernelType is the state type of the kernel dispatches (None if
	// none), whose NCCL (RCCL) kernels communicate.
	kernelType int32
	// rangeType is the state type of the roctx ranges (None if none),
	// where PyTorch's profiler marks its steps.
	rangeType int32

	values  map[[2]int32]int32 // (type, interned name) -> value
	nvalues int32
}

func (e *emitter) define(t trace.Type) int32 {
	e.sink.DefineType(t)
	e.ntypes++
	return e.ntypes - 1
}

// defineTypes defines the container types in use, then the state types,
// the marks, the links and the variables.
func (e *emitter) defineTypes() {
	m := e.m
	used := [len(containerTypeNames)]bool{ctHost: true}
	for _, c := range m.conts {
		used[c.typ] = true
	}
	parentType := [len(containerTypeNames)]int{-1, ctHost, ctProcess, ctHost, ctAgent}
	for t, name := range containerTypeNames {
		e.ctype[t] = trace.None
		if used[t] {
			p := trace.None
			if parentType[t] >= 0 {
				p = e.ctype[parentType[t]]
			}
			e.ctype[t] = e.define(trace.Type{Name: name, Kind: trace.KindContainer, Parent: p, Start: trace.None, End: trace.None})
		}
	}
	e.stype = make([]int32, m.kinds.Len())
	kindUsed := make([]bool, m.kinds.Len())
	for _, r := range m.recs {
		kindUsed[r.kind] = true
	}
	e.kernelType, e.rangeType = trace.None, trace.None
	for k, name := range m.kinds.Strings() {
		e.stype[k] = trace.None
		if !kindUsed[k] {
			continue
		}
		parent := e.ctype[ctQueue]
		if m.isHost(int32(k)) {
			parent = e.ctype[ctThread]
		}
		e.stype[k] = e.define(trace.Type{Name: name, Kind: trace.KindState, Parent: parent, Start: trace.None, End: trace.None})
		switch name {
		case kindKernel:
			e.kernelType = e.stype[k]
		case kindMarker:
			e.rangeType = e.stype[k]
		}
	}
	e.markType, e.linkType = trace.None, trace.None
	if len(m.marks) > 0 {
		e.markType = e.define(trace.Type{Name: "Marker event", Kind: trace.KindEvent, Parent: e.ctype[ctThread], Start: trace.None, End: trace.None})
	}
	if len(m.links) > 0 {
		e.linkType = e.define(trace.Type{Name: "Launch", Kind: trace.KindLink, Parent: trace.None, Start: e.ctype[ctThread], End: e.ctype[ctQueue],
			Role: trace.RoleLaunch})
	}
	e.vtype = make([]int32, len(m.varTypes))
	for i, name := range m.varTypes {
		e.vtype[i] = e.define(trace.Type{Name: name, Kind: trace.KindVariable, Parent: e.ctype[ctAgent], Start: trace.None, End: trace.None})
	}
}

// value returns the value of type typ named by interned string name,
// defining it on first use.
func (e *emitter) value(typ, name int32) int32 {
	k := [2]int32{typ, name}
	if v, ok := e.values[k]; ok {
		return v
	}
	e.values[k] = e.nvalues
	e.nvalues++
	v := trace.Value{Type: typ, Name: e.m.names.String(name)}
	switch n, step := trace.ProfilerStep(v.Name); {
	case typ == e.kernelType && trace.NCCLKernel(v.Name):
		v.Role = trace.RoleCommunicationKernel
	case typ == e.rangeType && step:
		// PyTorch profiler's steps, as roctx ranges (its emit_nvtx on
		// ROCm: "ProfilerStep#N, op_id = K").
		v.Role, v.Step = trace.RoleStep, n
	case typ != e.kernelType:
		v.Role = trace.GPUCallRole(v.Name) // HIP's launching calls
	}
	e.sink.DefineValue(v)
	return e.nvalues - 1
}

// sinkCont is the sink container of a record: its container's, or one of
// its overlap lanes.
func (e *emitter) sinkCont(r *rec) int32 { return e.m.conts[r.cont].id + r.lane }

// states delivers the records container by container and type by type,
// each group as its states complete (delivery, from nestAll): a state
// after those nested in it, the states of one depth in time order, the
// order of Pajé's PopState and OTF2's Leave, which streaming consumers
// follow (micro.Accumulator). A container's overlap lanes are containers
// of their own, numbered after it, whose groups interleave with those of
// its other kinds: sort by sink container, then kind, keeping the order
// of completion within each.
func (e *emitter) states(delivery []int32) {
	m := e.m
	slices.SortStableFunc(delivery, func(a, b int32) int {
		ra, rb := &m.recs[a], &m.recs[b]
		if c := cmp.Compare(e.sinkCont(ra), e.sinkCont(rb)); c != 0 {
			return c
		}
		return cmp.Compare(ra.kind, rb.kind)
	})
	for _, i := range delivery {
		r := &m.recs[i]
		t := e.stype[r.kind]
		e.sink.State(trace.State{Container: e.sinkCont(r), Type: t, Value: e.value(t, r.name),
			Start: r.start, End: r.end, Depth: r.depth, Order: r.order})
	}
}

// marks delivers the roctx marks by container, then time.
func (e *emitter) marks() {
	m := e.m
	slices.SortStableFunc(m.marks, func(a, b mark) int {
		if c := cmp.Compare(a.cont, b.cont); c != 0 {
			return c
		}
		return cmp.Compare(a.at, b.at)
	})
	for _, k := range m.marks {
		e.sink.Event(trace.Event{Container: m.conts[k.cont].id, Type: e.markType, Value: e.value(e.markType, k.name), Time: k.at})
	}
}

// links delivers the launches in the order of the calls.
func (e *emitter) links() {
	m := e.m
	slices.SortStableFunc(m.links, func(a, b [2]int32) int {
		return cmp.Compare(m.recs[a[0]].start, m.recs[b[0]].start)
	})
	for _, l := range m.links {
		from, to := &m.recs[l[0]], &m.recs[l[1]]
		e.sink.Link(trace.Link{Container: 0, Type: e.linkType, Value: e.value(e.linkType, from.name),
			Start: from.start, End: to.start, From: e.sinkCont(from), To: e.sinkCont(to),
			Key: strconv.FormatInt(from.corr, 10), Size: to.bytes})
	}
}

// variables delivers the samples by agent, variable, then time.
func (e *emitter) variables() {
	m := e.m
	slices.SortStableFunc(m.samples, func(a, b sample) int {
		if c := cmp.Compare(a.cont, b.cont); c != 0 {
			return c
		}
		if c := cmp.Compare(a.typ, b.typ); c != 0 {
			return c
		}
		return cmp.Compare(a.start, b.start)
	})
	for _, s := range m.samples {
		e.sink.Variable(trace.Variable{Container: m.conts[s.cont].id, Type: e.vtype[s.typ], Start: s.start, End: s.end, Value: s.value})
	}
}

// createContainers creates the containers depth first, siblings by rank
// then key, each leaf followed by its overlap lanes.
func (m *model) createContainers(sink trace.Sink, ctype [len(containerTypeNames)]int32, first trace.Time) {
	children := make([][]int32, len(m.conts)+1) // children[p+1]: of p (-1: roots)
	for i, c := range m.conts {
		children[c.parent+1] = append(children[c.parent+1], int32(i))
	}
	next := int32(1) // the root is container 0
	var visit func(list []int32, parentID int32)
	visit = func(list []int32, parentID int32) {
		sort.SliceStable(list, func(a, b int) bool {
			ca, cb := &m.conts[list[a]], &m.conts[list[b]]
			if ca.typ != cb.typ {
				return ca.typ < cb.typ
			}
			if ca.rank != cb.rank {
				return ca.rank < cb.rank
			}
			return ca.key < cb.key
		})
		names := make([]string, len(list))
		taken := make(map[string]bool, len(list))
		for k, i := range list {
			c := &m.conts[i]
			if names[k] = c.name; names[k] == "" {
				names[k] = defaultName(c.typ, c.key)
			}
			taken[names[k]] = true
		}
		// Lanes take no name of a sibling (see trace.Lanes).
		lanes := trace.Lanes{Taken: func(n string) bool { return taken[n] }}
		for k, i := range list {
			c := &m.conts[i]
			name := names[k]
			c.id = next
			for lane := int32(0); lane < c.lanes; lane++ {
				n, alias := name, c.key
				if lane > 0 {
					n, alias = lanes.Name(name, int(lane)), c.key+"#"+strconv.Itoa(int(lane))
				}
				sink.CreateContainer(trace.Container{Name: n, Alias: alias, Type: ctype[c.typ], Parent: parentID,
					Start: first, End: trace.Unset})
				next++
			}
			visit(children[i+1], c.id)
		}
	}
	visit(children[0], 0)
}

func defaultName(typ int, key string) string {
	switch typ {
	case ctHost:
		if key == "" {
			return "Host"
		}
		return key
	case ctProcess:
		return "Process " + key
	case ctThread:
		return "Thread " + key
	case ctAgent:
		return "Agent " + key
	}
	return key
}
