package rocprof

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/intern"
	"github.com/macroscope-hpc/macroscope/core/readers/nesting"
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
	order      int32   // rank by start among the records of its lane and kind
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
	names intern.Table // of the records and marks

	conts []cont
	byKey map[contKey]int32
	kinds intern.Table

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

	// hold weighs the model against the read's memory budget
	// (trace.ReadOptions.Hold), every weighEvery entries; held is what it
	// was last told, err its refusal (the read is canceled at the same
	// time).
	hold    func(int64) error
	opt     trace.ReadOptions // the read's, for the note on names (text)
	text    ingest.ValidText  // the names made valid UTF-8
	held    int64
	entries int
	err     error
}

// weighEvery is how many entries pass between two weighings of the model.
const weighEvery = 4096

// tick counts an entry added, and weighs the model every weighEvery.
func (m *model) tick() {
	if m.entries++; m.entries%weighEvery != 0 || m.hold == nil || m.err != nil {
		return
	}
	n := int64(cap(m.recs))*int64(unsafe.Sizeof(rec{})) + int64(cap(m.marks))*int64(unsafe.Sizeof(mark{})) +
		int64(cap(m.samples))*int64(unsafe.Sizeof(sample{})) + int64(cap(m.conts))*int64(unsafe.Sizeof(cont{})+64) +
		int64(cap(m.links))*8 + m.names.Bytes()
	delta := n - m.held
	m.held = n
	m.err = m.hold(delta)
}

// release gives the model's weight back to the budget.
func (m *model) release() {
	if m.hold != nil && m.held != 0 {
		m.hold(-m.held)
		m.held = 0
	}
}

type contKey struct {
	parent int32
	typ    int
	key    string
}

// newModel returns an empty model weighed against opt's memory budget
// (the caller defers release, which gives its weight back however the
// read ends).
func newModel(opt trace.ReadOptions) *model {
	m := &model{byKey: map[contKey]int32{}, hold: opt.Hold, opt: opt}
	// Names are kept valid UTF-8; the key stays as read: the same bytes,
	// the same name.
	m.names.Keep = m.text.String
	m.kinds.Keep = m.text.String
	return m
}

func (m *model) intern(s string) int32 { return m.names.ID(s) }

func (m *model) kind(name string) int32 { return m.kinds.ID(name) }

// container returns the container of type typ keyed key under parent,
// creating it. rank orders siblings; name, if not empty, names it (the key
// otherwise). A later non-empty name replaces an empty one.
func (m *model) container(parent int32, typ int, key string, rank int64, name string) int32 {
	k := contKey{parent, typ, key}
	if id, ok := m.byKey[k]; ok {
		if name != "" && m.conts[id].name == "" {
			m.conts[id].name = m.text.String(name)
		}
		return id
	}
	id := int32(len(m.conts))
	m.conts = append(m.conts, cont{typ: typ, parent: parent, key: m.text.String(key), rank: rank, name: m.text.String(name)})
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
	m.tick()
	return i
}

// addMark records a point event on a thread.
func (m *model) addMark(c int32, name string, at trace.Time) {
	m.marks = append(m.marks, mark{at: at, cont: c, name: m.intern(name)})
	m.tick()
}

// addSample records a piece of variable name on agent c.
func (m *model) addSample(c int32, name string, start, end trace.Time, v float64) {
	name = m.text.String(name)
	t := int32(slices.Index(m.varTypes, name))
	if t < 0 {
		t = int32(len(m.varTypes))
		m.varTypes = append(m.varTypes, name)
	}
	m.samples = append(m.samples, sample{start: start, end: end, cont: c, typ: t, value: v})
	m.tick()
}

// isHost tells whether kind k is a host-side activity (on threads).
func (m *model) isHost(k int32) bool {
	n := m.kinds.String(k)
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

// compareRecs orders records of one container and kind so that a parent
// comes before its children: by start, longer first, then arrival, so
// that of two identical records the first to arrive is the parent.
func compareRecs(a, b rec) int {
	if c := nesting.Compare(a.start, a.end, b.start, b.end); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
}

var nan = math.NaN()
