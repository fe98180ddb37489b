package rocprof

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The kinds of activity, each its own state type: API calls of different
// runtimes nest into one another on a thread (a HIP call makes HSA calls),
// and kernels and copies of one queue may overlap, so one state type per
// kind keeps each type a proper call stack per container.
const (
	kindKernel = "Kernel"
	kindCopy   = "Memory copy"
	kindHIP    = "HIP API"
	kindHSA    = "HSA API"
	kindMarker = "Marker"
	kindRCCL   = "RCCL API"
)

// apiKind maps a rocprofiler domain ("HIP_RUNTIME_API_EXT",
// "MARKER_CORE_RANGE_API"...) to the state type of its calls.
func apiKind(domain string) string {
	d := strings.ToUpper(domain)
	switch {
	case strings.HasPrefix(d, "HIP_"):
		return kindHIP
	case strings.HasPrefix(d, "HSA_"):
		return kindHSA
	case strings.HasPrefix(d, "MARKER_"):
		return kindMarker
	case strings.HasPrefix(d, "RCCL_"):
		return kindRCCL
	case strings.HasPrefix(d, "ROCDECODE_"):
		return "rocDecode API"
	case strings.HasPrefix(d, "ROCJPEG_"):
		return "rocJPEG API"
	case strings.HasPrefix(d, "OMPT"):
		return "OpenMP"
	}
	return d
}

// The container types, in the order they are defined.
const (
	ctHost = iota
	ctProcess
	ctThread
	ctAgent
	ctQueue
)

var containerTypeNames = [...]string{"Host", "Process", "Thread", "Agent", "Queue"}

// rec is one interval of activity: an API call on a thread, or a kernel or
// copy on a queue. Names are interned.
type rec struct {
	start, end trace.Time
	corr       int64   // correlation id; 0 if none
	scope      int32   // where correlation ids are unique (a process, a run)
	bytes      float64 // copies: size when known, NaN otherwise
	cont       int32   // leaf container (thread or queue), index into model.conts
	kind       int32   // index into model.kinds
	name       int32
	seq        int32 // arrival order, for ties
	depth      int32
	lane       int32
}

// mark is a point event (a roctx mark) on a thread.
type mark struct {
	at   trace.Time
	cont int32
	name int32
}

// sample is one piece of a device variable (RPD's monitor: clocks).
type sample struct {
	start, end trace.Time
	cont       int32 // an agent
	typ        int32 // index into model.varTypes
	value      float64
}

// cont is a container the reader found, identified by its parent and key.
type cont struct {
	typ    int
	parent int32 // index into model.conts; -1 for the root (the host's parent)
	key    string
	rank   int64 // display order among siblings (a pid, a tid, an id)
	name   string
	lanes  int32 // 1 + overlap lanes, once nested
	id     int32 // sink container id of lane 0
}

// model collects what a rocprof reader decodes and delivers it to a sink
// once the input is read: the records of the different kinds come in no
// common order (one CSV file per kind, tables of a database), and depths
// and overlap lanes need every record of a container.
type model struct {
	strs  map[string]int32
	names []string

	conts  []cont
	byKey  map[contKey]int32
	kinds  []string
	kindOf map[string]int32

	recs     []rec
	marks    []mark
	samples  []sample
	varTypes []string

	// explicit links (RPD's rocpd_api_ops): indices into recs.
	links [][2]int32

	// scope is given to the records added: correlation ids are unique
	// within one process's output (a JSON element, the CSV files of one
	// run), not across them. Readers set it before adding records.
	scope int32
}

type contKey struct {
	parent int32
	typ    int
	key    string
}

func newModel() *model {
	return &model{strs: map[string]int32{}, byKey: map[contKey]int32{}, kindOf: map[string]int32{}}
}

func (m *model) intern(s string) int32 {
	if id, ok := m.strs[s]; ok {
		return id
	}
	id := int32(len(m.names))
	m.strs[s] = id
	m.names = append(m.names, s)
	return id
}

func (m *model) kind(name string) int32 {
	if k, ok := m.kindOf[name]; ok {
		return k
	}
	k := int32(len(m.kinds))
	m.kindOf[name] = k
	m.kinds = append(m.kinds, name)
	return k
}

// container returns the container of type typ keyed key under parent,
// creating it. rank orders siblings; name, if not empty, names it (the key
// otherwise). A later non-empty name replaces an empty one.
func (m *model) container(parent int32, typ int, key string, rank int64, name string) int32 {
	k := contKey{parent, typ, key}
	if id, ok := m.byKey[k]; ok {
		if name != "" && m.conts[id].name == "" {
			m.conts[id].name = name
		}
		return id
	}
	id := int32(len(m.conts))
	m.conts = append(m.conts, cont{typ: typ, parent: parent, key: key, rank: rank, name: name})
	m.byKey[k] = id
	return id
}

// host returns the host container named name ("" for an unnamed host).
func (m *model) host(name string) int32 {
	return m.container(-1, ctHost, name, 0, name)
}

// thread returns the container of thread tid of process pid on host h.
func (m *model) thread(h int32, pid, tid int64) int32 {
	p := m.container(h, ctProcess, strconv.FormatInt(pid, 10), pid, "")
	return m.container(p, ctThread, strconv.FormatInt(tid, 10), tid, "")
}

// agent returns the container of a GPU or CPU agent of host h; rank orders
// the agents (their node id), name describes it when known.
func (m *model) agent(h int32, key string, rank int64, name string) int32 {
	return m.container(h, ctAgent, key, rank, name)
}

// queue returns the container of a queue (or stream, or copy engine) of
// agent a.
func (m *model) queue(a int32, key string, rank int64) int32 {
	return m.container(a, ctQueue, key, rank, "")
}

// add records an interval and returns its index.
func (m *model) add(c int32, kind string, name string, start, end trace.Time, corr int64, bytes float64) int32 {
	i := int32(len(m.recs))
	m.recs = append(m.recs, rec{start: start, end: end, corr: corr, scope: m.scope, bytes: bytes, cont: c,
		kind: m.kind(kind), name: m.intern(name), seq: i})
	return i
}

// addMark records a point event on a thread.
func (m *model) addMark(c int32, name string, at trace.Time) {
	m.marks = append(m.marks, mark{at: at, cont: c, name: m.intern(name)})
}

// addSample records a piece of variable name on agent c.
func (m *model) addSample(c int32, name string, start, end trace.Time, v float64) {
	t := int32(slices.Index(m.varTypes, name))
	if t < 0 {
		t = int32(len(m.varTypes))
		m.varTypes = append(m.varTypes, name)
	}
	m.samples = append(m.samples, sample{start: start, end: end, cont: c, typ: t, value: v})
}

// isHost tells whether kind k is a host-side activity (on threads).
func (m *model) isHost(k int32) bool {
	n := m.kinds[k]
	return n != kindKernel && n != kindCopy
}

// correlate links each device record with a correlation id to the host
// API call of the same id and scope (a HIP or HSA call, never a marker),
// unless links were given explicitly.
func (m *model) correlate() {
	if len(m.links) > 0 {
		return
	}
	type key struct {
		scope int32
		corr  int64
	}
	calls := map[key]int32{}
	marker := m.kind(kindMarker)
	for i := range m.recs {
		r := &m.recs[i]
		if r.corr != 0 && m.isHost(r.kind) && r.kind != marker {
			if _, ok := calls[key{r.scope, r.corr}]; !ok {
				calls[key{r.scope, r.corr}] = int32(i)
			}
		}
	}
	if len(calls) == 0 {
		return
	}
	for i := range m.recs {
		r := &m.recs[i]
		if r.corr != 0 && !m.isHost(r.kind) {
			if c, ok := calls[key{r.scope, r.corr}]; ok {
				m.links = append(m.links, [2]int32{c, int32(i)})
			}
		}
	}
}

// emit nests the records, creates the containers and delivers everything.
func (m *model) emit(sink trace.Sink, file string) error {
	m.correlate()
	// Records by (container, kind), in start order, parents first.
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
	for lo := 0; lo < len(m.recs); {
		hi := lo + 1
		for hi < len(m.recs) && m.recs[hi].cont == m.recs[lo].cont && m.recs[hi].kind == m.recs[lo].kind {
			hi++
		}
		lanes, ok := nest(m.recs[lo:hi])
		if !ok {
			c := &m.conts[m.recs[lo].cont]
			return errs.Format(file, 0, "%s %s has more than %d mutually overlapping %s records",
				containerTypeNames[c.typ], c.key, maxLanes, m.kinds[m.recs[lo].kind])
		}
		if c := &m.conts[m.recs[lo].cont]; lanes > c.lanes {
			c.lanes = lanes
		}
		lo = hi
	}

	var first, last trace.Time
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

	// Types: the container types in use, then the state types, the
	// marks, the links and the variables.
	var ntypes int32
	define := func(t trace.Type) int32 {
		sink.DefineType(t)
		ntypes++
		return ntypes - 1
	}
	var ctype [len(containerTypeNames)]int32
	used := [len(containerTypeNames)]bool{}
	for _, c := range m.conts {
		used[c.typ] = true
	}
	used[ctHost] = true
	parentType := [len(containerTypeNames)]int{-1, ctHost, ctProcess, ctHost, ctAgent}
	for t, name := range containerTypeNames {
		ctype[t] = trace.None
		if used[t] {
			p := trace.None
			if parentType[t] >= 0 {
				p = ctype[parentType[t]]
			}
			ctype[t] = define(trace.Type{Name: name, Kind: trace.KindContainer, Parent: p, Start: trace.None, End: trace.None})
		}
	}
	stype := make([]int32, len(m.kinds))
	kindUsed := make([]bool, len(m.kinds))
	for _, r := range m.recs {
		kindUsed[r.kind] = true
	}
	for k, name := range m.kinds {
		stype[k] = trace.None
		if !kindUsed[k] {
			continue
		}
		parent := ctype[ctQueue]
		if m.isHost(int32(k)) {
			parent = ctype[ctThread]
		}
		stype[k] = define(trace.Type{Name: name, Kind: trace.KindState, Parent: parent, Start: trace.None, End: trace.None})
	}
	markType := trace.None
	if len(m.marks) > 0 {
		markType = define(trace.Type{Name: "Marker event", Kind: trace.KindEvent, Parent: ctype[ctThread], Start: trace.None, End: trace.None})
	}
	linkType := trace.None
	if len(m.links) > 0 {
		linkType = define(trace.Type{Name: "Launch", Kind: trace.KindLink, Parent: trace.None, Start: ctype[ctThread], End: ctype[ctQueue]})
	}
	vtype := make([]int32, len(m.varTypes))
	for i, name := range m.varTypes {
		vtype[i] = define(trace.Type{Name: name, Kind: trace.KindVariable, Parent: ctype[ctAgent], Start: trace.None, End: trace.None})
	}

	m.createContainers(sink, ctype, first)

	values := map[[2]int32]int32{}
	var nvalues int32
	value := func(typ, name int32) int32 {
		k := [2]int32{typ, name}
		if v, ok := values[k]; ok {
			return v
		}
		values[k] = nvalues
		nvalues++
		sink.DefineValue(trace.Value{Type: typ, Name: m.names[name]})
		return nvalues - 1
	}

	// States, container by container and type by type. Each group is in
	// start order (the order of nest; lanes interleave, so sort by the
	// sink container first) and is delivered as its states complete: a
	// state after those nested in it, the states of one depth in time
	// order, the order of Pajé's PopState and OTF2's Leave, which
	// streaming consumers follow (micro.Accumulator).
	order := make([]int32, len(m.recs))
	for i := range order {
		order[i] = int32(i)
	}
	sinkCont := func(r *rec) int32 { return m.conts[r.cont].id + r.lane }
	slices.SortStableFunc(order, func(a, b int32) int {
		ra, rb := &m.recs[a], &m.recs[b]
		if c := cmp.Compare(sinkCont(ra), sinkCont(rb)); c != 0 {
			return c
		}
		return cmp.Compare(ra.kind, rb.kind)
	})
	type open struct {
		idx  int32
		rank int32
	}
	var stack []open
	deliver := func(o open) {
		r := &m.recs[o.idx]
		sink.State(trace.State{Container: sinkCont(r), Type: stype[r.kind], Value: value(stype[r.kind], r.name),
			Start: r.start, End: r.end, Depth: r.depth, Order: o.rank})
	}
	var rank int32
	for i, idx := range order {
		r := &m.recs[idx]
		if i == 0 || sinkCont(r) != sinkCont(&m.recs[order[i-1]]) || r.kind != m.recs[order[i-1]].kind {
			for len(stack) > 0 { // the previous group's
				deliver(stack[len(stack)-1])
				stack = stack[:len(stack)-1]
			}
			rank = 0
		}
		for len(stack) > 0 && m.recs[stack[len(stack)-1].idx].depth >= r.depth {
			deliver(stack[len(stack)-1])
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, open{idx, rank})
		rank++
	}
	for len(stack) > 0 {
		deliver(stack[len(stack)-1])
		stack = stack[:len(stack)-1]
	}

	slices.SortStableFunc(m.marks, func(a, b mark) int {
		if c := cmp.Compare(a.cont, b.cont); c != 0 {
			return c
		}
		return cmp.Compare(a.at, b.at)
	})
	for _, k := range m.marks {
		sink.Event(trace.Event{Container: m.conts[k.cont].id, Type: markType, Value: value(markType, k.name), Time: k.at})
	}

	slices.SortStableFunc(m.links, func(a, b [2]int32) int {
		return cmp.Compare(m.recs[a[0]].start, m.recs[b[0]].start)
	})
	for _, l := range m.links {
		from, to := &m.recs[l[0]], &m.recs[l[1]]
		size := to.bytes
		sink.Link(trace.Link{Container: 0, Type: linkType, Value: value(linkType, from.name),
			Start: from.start, End: to.start, From: sinkCont(from), To: sinkCont(to),
			Key: strconv.FormatInt(from.corr, 10), Size: size})
	}

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
		sink.Variable(trace.Variable{Container: m.conts[s.cont].id, Type: vtype[s.typ], Start: s.start, End: s.end, Value: s.value})
	}
	sink.Finish(first, last)
	return nil
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
		for _, i := range list {
			c := &m.conts[i]
			name := c.name
			if name == "" {
				name = defaultName(c.typ, c.key)
			}
			c.id = next
			for lane := int32(0); lane < c.lanes; lane++ {
				n, alias := name, c.key
				if lane > 0 {
					l := strconv.Itoa(int(lane))
					n, alias = name+" (overlap lane "+l+")", c.key+"#"+l
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

// compareRecs orders records of one container and kind so that a parent
// comes before its children: by start, longer first, then arrival.
func compareRecs(a, b rec) int {
	if c := cmp.Compare(a.start, b.start); c != 0 {
		return c
	}
	if c := cmp.Compare(b.end, a.end); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
}

// maxLanes bounds the overlap lanes of one container and kind: more means
// the records are not a call stack at all.
const maxLanes = 4096

// nest gives the records of one container and kind (sorted by
// compareRecs) their depth and lane. A record nests in the innermost open
// record that contains it (closed intervals: a zero-length record at the
// very end of another is its child); one that starts inside another and
// ends after it cannot nest and goes to an overlap lane: the lane whose
// innermost open record contains it (the latest started), else the first
// lane with nothing open, else a new lane. It returns the number of lanes,
// false past maxLanes.
func nest(rs []rec) (int32, bool) {
	lanes := [][]int32{nil}
	for i := range rs {
		r := &rs[i]
		best, empty := -1, -1
		for l, stack := range lanes {
			for len(stack) > 0 {
				top := &rs[stack[len(stack)-1]]
				if r.end <= top.end || top.end > r.start {
					break
				}
				stack = stack[:len(stack)-1]
			}
			lanes[l] = stack
			if len(stack) == 0 {
				if empty < 0 {
					empty = l
				}
				continue
			}
			top := &rs[stack[len(stack)-1]]
			if r.end <= top.end {
				if best < 0 || top.start > rs[lanes[best][len(lanes[best])-1]].start {
					best = l
				}
			}
		}
		switch {
		case best >= 0:
		case empty >= 0:
			best = empty
		case len(lanes) < maxLanes:
			best = len(lanes)
			lanes = append(lanes, nil)
		default:
			return 0, false
		}
		r.lane = int32(best)
		r.depth = int32(len(lanes[best]))
		lanes[best] = append(lanes[best], int32(i))
	}
	return int32(len(lanes)), true
}

var nan = math.NaN()
