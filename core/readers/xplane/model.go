package xplane

import (
	"cmp"
	"slices"
	"strconv"
	"unsafe"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/intern"
	"github.com/macroscope-hpc/macroscope/core/readers/nesting"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The container types: the host a space was recorded on, its planes
// (the host's threads, each device), and their lines (a thread, a
// stream, a derived timeline such as "XLA Ops").
const (
	ctHost = iota
	ctPlane
	ctLine
)

var containerTypeNames = [...]string{"Host", "Plane", "Line"}

// stateType names the one state type: the events of every line.
const stateType = "Event"

// rec is an event: a state of a line.
type rec struct {
	start, end trace.Time
	cont       int32 // a line, index into model.conts
	name       int32 // interned
	seq        int32 // arrival order, for ties
	depth      int32
	lane       int32
	order      int32
	step       int32 // the number of a host's step (kind stepHost)
	kind       uint8 // stepNone, stepDevice or stepHost
}

// The kinds of event as steps.
const (
	stepNone uint8 = iota
	// stepDevice: an event of a device's "Steps" line, named by its
	// number.
	stepDevice
	// stepHost: a host's step annotation, numbered by its step_num stat.
	stepHost
)

// cont is a container, identified by its parent and key.
type cont struct {
	typ    int
	parent int32 // index into model.conts; -1 for a host
	key    string
	rank   int64 // order among siblings: first seen first
	name   string
	lanes  int32 // 1 + overlap lanes, once nested
	id     int32 // sink container id of lane 0
}

type contKey struct {
	parent int32
	typ    int
	key    string
}

// model collects the events of the spaces read and delivers them once
// all are read: a line's depths and overlap lanes need all its events.
type model struct {
	file  string // the file being decoded, for notes
	opt   trace.ReadOptions
	text  ingest.ValidText
	names intern.Table

	conts []cont
	byKey map[contKey]int32
	recs  []rec

	// held is what the model last told the read's memory budget
	// (trace.ReadOptions.Hold), err its refusal.
	held    int64
	entries int
	err     error
	// aside is what the decoding holds beside the model (the metadata
	// of the plane being decoded), weighed with it.
	aside int64
}

func newModel(opt trace.ReadOptions) *model {
	m := &model{opt: opt, byKey: map[contKey]int32{}}
	m.names.Keep = m.text.String
	return m
}

// weighEvery is how many events and containers pass between two
// weighings of the model.
const weighEvery = 4096

// tick counts an event or a container added, and weighs the model every
// weighEvery.
func (m *model) tick() {
	if m.entries++; m.entries%weighEvery != 0 || m.err != nil {
		return
	}
	m.weigh()
}

func (m *model) weigh() {
	n := int64(cap(m.recs))*int64(unsafe.Sizeof(rec{})) + int64(cap(m.conts))*int64(unsafe.Sizeof(cont{})+64) +
		m.names.Bytes() + m.aside
	delta := n - m.held
	m.held = n
	if err := m.opt.Held(delta); err != nil && m.err == nil {
		m.err = err
	}
}

// release gives the model's weight back to the budget.
func (m *model) release() {
	if m.held != 0 {
		m.opt.Held(-m.held)
		m.held = 0
	}
}

// container returns the container of type typ keyed key under parent,
// creating it named name.
func (m *model) container(parent int32, typ int, key string, rank int64, name string) int32 {
	k := contKey{parent, typ, key}
	if id, ok := m.byKey[k]; ok {
		return id
	}
	id := int32(len(m.conts))
	m.conts = append(m.conts, cont{typ: typ, parent: parent, key: key, rank: rank, name: name})
	m.byKey[k] = id
	m.tick() // a space of many planes or lines without events weighs too
	return id
}

// add records an event of line c.
func (m *model) add(c int32, name string, start, end trace.Time, kind uint8, step int32) {
	m.recs = append(m.recs, rec{start: start, end: end, cont: c, name: m.names.ID(name), seq: int32(len(m.recs)),
		kind: kind, step: step})
	m.tick()
}

// nest sorts the events by line, parents first, and gives them their
// depth, overlap lane and order (package nesting: closed intervals, of
// two identical events the first in the file is the parent). XLines
// nest their events ("they can be nested"); events of lines sharing a
// display id, or of a line that breaks the rule, that overlap without
// nesting go to overlap lanes. It returns the events' indices line by
// line, each line's lane by lane in the order they complete.
func (m *model) nest(file string) ([]int32, error) {
	slices.SortFunc(m.recs, func(a, b rec) int {
		if c := cmp.Compare(a.cont, b.cont); c != 0 {
			return c
		}
		if c := nesting.Compare(a.start, a.end, b.start, b.end); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
	for i := range m.conts {
		m.conts[i].lanes = 1
	}
	delivery := make([]int32, 0, len(m.recs))
	var t nesting.Tracker
	for lo := 0; lo < len(m.recs); {
		if lo%(1<<16) == 0 {
			if err := m.opt.Canceled(); err != nil {
				return nil, err
			}
		}
		hi := lo + 1
		for hi < len(m.recs) && m.recs[hi].cont == m.recs[lo].cont {
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
			return nil, errs.Format(file, 0, "line %q of plane %q has more than %d mutually overlapping events: not a timeline",
				c.name, m.conts[c.parent].name, nesting.DefaultMaxLanes)
		}
		c.lanes = max(c.lanes, int32(lanes))
		lo = hi
	}
	return delivery, nil
}

// emit delivers the model: types, containers, states, then Finish.
func (m *model) emit(sink trace.Sink, file string) error {
	delivery, err := m.nest(file)
	if err != nil {
		return err
	}
	var first, last trace.Time
	for i, r := range m.recs {
		if i == 0 || r.start < first {
			first = r.start
		}
		if i == 0 || r.end > last {
			last = r.end
		}
	}
	var ctype [len(containerTypeNames)]int32
	ntypes := int32(0)
	for t, name := range containerTypeNames {
		parent := trace.None
		if t > 0 {
			parent = ctype[t-1]
		}
		sink.DefineType(trace.Type{Name: name, Kind: trace.KindContainer, Parent: parent, Start: trace.None, End: trace.None})
		ctype[t] = ntypes
		ntypes++
	}
	st := ntypes
	sink.DefineType(trace.Type{Name: stateType, Kind: trace.KindState, Parent: ctype[ctLine], Start: trace.None, End: trace.None})
	m.createContainers(sink, ctype, first)

	// Delivery line by line (lanes are containers numbered after their
	// line), keeping the order of completion within each.
	slices.SortStableFunc(delivery, func(a, b int32) int {
		return cmp.Compare(m.sinkCont(&m.recs[a]), m.sinkCont(&m.recs[b]))
	})
	values := make([]int32, m.names.Len())
	steps := map[int32]int32{} // the values of device steps, by their interned name
	type hostStep struct{ name, step int32 }
	hostSteps := map[hostStep]int32{} // the values of host steps
	for i := range values {
		values[i] = trace.None
	}
	// xprof takes the steps of the devices when they have them, the
	// host's annotations only when they do not (ConvertXSpaceToOpStats:
	// the host's step events only without a device; on GPUs it derives
	// the devices' steps from the host's groups): one or the other, so
	// that a step is never counted twice.
	deviceSteps := false
	for i := range m.recs {
		if r := &m.recs[i]; r.kind == stepDevice {
			if _, ok := deviceStep(m.names.String(r.name)); ok {
				deviceSteps = true
				break
			}
		}
	}
	nvalues := int32(0)
	for k, i := range delivery {
		if k%(1<<16) == 0 {
			if err := m.opt.Canceled(); err != nil {
				return err
			}
		}
		r := &m.recs[i]
		kind := r.kind
		if kind == stepHost && deviceSteps {
			kind = stepNone
		}
		v := values[r.name]
		switch kind {
		case stepDevice:
			// A "Steps" line (a TPU's, a TensorFlow GPU run's) names
			// its events by their number: they are the program's steps
			// (trace.RoleStep); the same name elsewhere is not.
			if sv, ok := steps[r.name]; ok {
				v = sv
			} else {
				v = trace.None
			}
		case stepHost:
			// Every step of a host's annotation has its name ("train"):
			// one value per step, of that name, for its number. The
			// figures group values by name.
			if sv, ok := hostSteps[hostStep{r.name, r.step}]; ok {
				v = sv
			} else {
				v = trace.None
			}
		}
		if v == trace.None {
			val := trace.Value{Type: st, Name: m.names.String(r.name)}
			if n, ok := deviceStep(val.Name); kind == stepDevice && ok {
				val.Role, val.Step = trace.RoleStep, n
			} else if kind == stepHost {
				val.Role, val.Step = trace.RoleStep, r.step
			} else if trace.NCCLKernel(val.Name) {
				val.Role = trace.RoleCommunicationKernel
			}
			sink.DefineValue(val)
			v = nvalues
			nvalues++
			switch kind {
			case stepDevice:
				steps[r.name] = v
			case stepHost:
				hostSteps[hostStep{r.name, r.step}] = v
			default:
				values[r.name] = v
			}
		}
		sink.State(trace.State{Container: m.sinkCont(r), Type: st, Value: v, Start: r.start, End: r.end,
			Depth: r.depth, Order: r.order})
	}
	sink.Finish(first, last)
	return nil
}

// deviceStep reads the number of a step of a "Steps" line from its name.
func deviceStep(name string) (int32, bool) {
	n, err := strconv.ParseInt(name, 10, 32)
	return int32(n), err == nil && n >= 0
}

// sinkCont is the sink container of an event: its line's, or one of the
// line's overlap lanes.
func (m *model) sinkCont(r *rec) int32 { return m.conts[r.cont].id + r.lane }

// createContainers creates the containers that hold events depth first, siblings in the
// order first seen, each line followed by its overlap lanes.
func (m *model) createContainers(sink trace.Sink, ctype [len(containerTypeNames)]int32, first trace.Time) {
	// Only the containers that hold events, or whose lines do: a plane
	// of metadata, or lines whose events were all left out, are none.
	used := make([]bool, len(m.conts))
	for _, r := range m.recs {
		for c := r.cont; c >= 0 && !used[c]; c = m.conts[c].parent {
			used[c] = true
		}
	}
	children := make([][]int32, len(m.conts)+1) // children[p+1]: of p (-1: hosts)
	for i, c := range m.conts {
		if used[i] {
			children[c.parent+1] = append(children[c.parent+1], int32(i))
		}
	}
	next := int32(1) // the root is container 0
	var visit func(list []int32, parentID int32)
	visit = func(list []int32, parentID int32) {
		slices.SortStableFunc(list, func(a, b int32) int { return cmp.Compare(m.conts[a].rank, m.conts[b].rank) })
		taken := make(map[string]bool, len(list))
		for _, i := range list {
			taken[m.conts[i].name] = true
		}
		lanes := trace.Lanes{Taken: func(n string) bool { return taken[n] }}
		for _, i := range list {
			c := &m.conts[i]
			c.id = next
			for lane := int32(0); lane < c.lanes; lane++ {
				n, alias := c.name, c.key
				if lane > 0 {
					n, alias = lanes.Name(c.name, int(lane)), c.key+"#"+strconv.Itoa(int(lane))
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
