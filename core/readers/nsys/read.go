package nsys

import (
	"database/sql"
	"math"
	"sort"
	"strings"
	"unsafe"

	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/readers/sqlitedb"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Read streams the Nsight Systems SQLite export at path into sink, with
// the default options.
func Read(path string, sink trace.Sink, opt trace.ReadOptions) error {
	return readWith(path, readerOptions{}, sink, opt)
}

// readWith streams the export at path into sink. The whole database is
// read before the sink hears of it: containers must be defined before
// their states, and which containers exist (and how many overlap lanes
// they need) is only known at the end.
func readWith(path string, o readerOptions, sink trace.Sink, opt trace.ReadOptions) error {
	if err := refuseReport(path); err != nil {
		return err
	}
	if _, err := ingest.CheckPath(path); err != nil {
		return err
	}
	db, err := sqlitedb.Open(path)
	if err != nil {
		return err
	}
	defer db.Close()
	db.Watch(opt.Cancel)
	if err := checkSize(path); err != nil {
		return err
	}
	if err := db.Expect(append([]string{"StringIds", "ThreadNames", "PROCESSES", "TARGET_INFO_SYSTEM_ENV",
		"TARGET_INFO_GPU", "TARGET_INFO_CUDA_GPU"}, activityTables...)...); err != nil {
		return err
	}
	if !looksNsys(db) {
		why := ""
		if !db.HasTable("StringIds") {
			why = ": " + db.Missing("StringIds")
		}
		return db.Errorf("is a SQLite database but not an Nsight Systems export (no StringIds table with CUPTI_ACTIVITY_KIND_*, NVTX_EVENTS or OSRT_API)%s", why)
	}
	r := &reader{db: db, o: o, opt: opt, h: newHierarchy(), groups: map[[2]int32]*group{},
		stypeOf: map[string]int32{}, apis: map[corrKey]apiRef{}, first: math.MaxInt64, last: math.MinInt64}
	defer func() { opt.Held(-r.held) }()
	if err := r.read(); err != nil {
		return err
	}
	if err := r.weigh(); err != nil {
		return err
	}
	if r.first > r.last && len(r.marks) == 0 {
		// An export of a run that recorded nothing: say so, rather than
		// deliver a trace whose analyses then find no duration.
		return db.Errorf("the export holds no event: none of its activity tables (%s) has a row with times; "+
			"was the application traced (nsys profile -t cuda,nvtx,osrt) and did it run past its start?", strings.Join(activityTables, ", "))
	}
	if err := r.emit(sink); err != nil {
		return err
	}
	r.text.Note(opt, path)
	return nil
}

// reader holds what the database tells until it is delivered.
type reader struct {
	db  *sqlitedb.DB
	o   readerOptions
	opt trace.ReadOptions
	h   *hierarchy

	strs map[int64]string // StringIds

	stypes  []stype
	stypeOf map[string]int32
	groups  map[[2]int32]*group // (node, state type)
	marks   []mark
	markT   stype // the values of the marks

	apis  map[corrKey]apiRef // the API call that launched each correlation id
	gpuOp []gpuRef
	// The waits for CUDA events, and the events' records by event sync id.
	waits   []waitRef
	records map[corrKey]recordRef
	// byEvent holds, for exports without event sync ids (Nsight Systems
	// 2023 and older: CUPTI before 12.x named a wait's event only by its
	// eventId, which every record of the event shares), the records of
	// each event, by process and eventId.
	byEvent map[corrKey][]recordRef

	// NVTX domain names by process (global pid) and id, and by id alone
	// for the ranges of a process that did not create the domain.
	domains    map[[2]int64]string
	domainByID map[int64]string
	done, rows int64 // rows read, rows to read (progress)

	first, last int64 // the trace's extent

	// What the reader holds before it delivers it, as last told to the
	// read's memory budget (trace.ReadOptions.Held), and the bytes of the
	// strings read.
	held, strBytes int64

	text ingest.ValidText // the names made valid UTF-8
}

// weigh tells the read's memory budget what the reader holds: the spans
// read so far (a span and its share of its group's slices) and the
// strings.
func (r *reader) weigh() error {
	n := r.done*int64(unsafe.Sizeof(span{})+16) + r.strBytes
	delta := n - r.held
	r.held = n
	return r.opt.Held(delta)
}

// stype is a state type: its name, the kind of container that holds it
// and its values.
type stype struct {
	name    string
	on      kind
	values  []string
	valueOf map[string]int32
	// role gives the role of each value by its name (nil: none).
	role func(name string) trace.Role
}

// group gathers the spans of one state type on one node.
type group struct {
	node, stype int32
	spans       []span
	laneBySeq   []int32 // set when links need the lane of a span
}

// mark is an NVTX mark, a point event on a thread.
type mark struct {
	node  int32
	at    int64
	value int32 // index into markT's values
}

// corrKey identifies a correlation id: it is unique within a process.
type corrKey struct {
	proc int64 // global pid
	id   int64
}

// apiRef is the API call (runtime, else driver) of a correlation id.
type apiRef struct {
	g          *group
	seq        int32
	start, end int64
	driver     bool
}

// gpuRef is a GPU operation waiting for the API call that launched it.
type gpuRef struct {
	corr  corrKey
	g     *group
	seq   int32
	start int64
	what  string // kernel, memcpy, memset
	size  float64
}

// waitRef is a synchronisation that waits for a CUDA event (its event
// sync id, in its process).
type waitRef struct {
	event corrKey
	g     *group
	seq   int32
	start int64
	// byID: event is a process and eventId (an older export), and corr
	// the correlation id of the waiting call.
	byID bool
	corr int64
}

// recordRef is where and by which call a CUDA event was recorded.
type recordRef struct {
	corr                    corrKey // of the cudaEventRecord call
	device, context, stream int64
}

func (r *reader) stateType(name string, on kind) int32 {
	if t, ok := r.stypeOf[name]; ok {
		return t
	}
	t := int32(len(r.stypes))
	r.stypes = append(r.stypes, stype{name: name, on: on, valueOf: map[string]int32{}})
	r.stypeOf[name] = t
	return t
}

func (r *reader) value(t int32, name string) int32 { return r.stypes[t].value(name) }

func (r *reader) markValue(name string) int32 {
	if r.markT.valueOf == nil {
		r.markT = stype{name: typeMark, on: kThread, valueOf: map[string]int32{}}
	}
	return r.markT.value(name)
}

func (st *stype) value(name string) int32 {
	if v, ok := st.valueOf[name]; ok {
		return v
	}
	v := int32(len(st.values))
	st.values = append(st.values, name)
	st.valueOf[name] = v
	return v
}

// add records a state and returns its group and sequence number.
func (r *reader) add(n, t int32, start, end int64, value int32) (*group, int32) {
	k := [2]int32{n, t}
	g := r.groups[k]
	if g == nil {
		g = &group{node: n, stype: t}
		r.groups[k] = g
	}
	seq := int32(len(g.spans))
	g.spans = append(g.spans, span{start: start, end: end, value: value, seq: seq})
	r.extend(start, end)
	return g, seq
}

func (r *reader) extend(start, end int64) {
	r.first = min(r.first, start)
	r.last = max(r.last, end)
}

// str returns string id's text, or "" when it is null or unknown.
func (r *reader) str(id sql.NullInt64) string {
	if !id.Valid {
		return ""
	}
	return r.strs[id.Int64]
}

// The tables read as traced activity, in the order they are read.
var activityTables = []string{
	"CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER",
	"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
	"NVTX_EVENTS", "OSRT_API", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "CUPTI_ACTIVITY_KIND_CUDA_EVENT",
}

// isMetadata tells the tables that describe the trace (strings, names,
// enumerations, the target system, the export) rather than hold events:
// they are read for names or not at all, and not counted as skipped.
func isMetadata(table string) bool {
	for _, p := range []string{"ENUM_", "TARGET_INFO_", "META_DATA_", "ANALYSIS_", "NVTX_PAYLOAD_", "sqlite_"} {
		if strings.HasPrefix(table, p) {
			return true
		}
	}
	switch table {
	case "StringIds", "ThreadNames", "PROCESSES", "ProcessStreams", "EXPORT_META_DATA", "UnwindMethodType":
		return true
	}
	return false
}

func (r *reader) read() error {
	// Count the rows to read, for progress, and those of the tables the
	// model leaves out, for the notes.
	counts := map[string]int64{}
	tables := r.db.Tables()
	sort.Strings(tables)
	modeled := map[string]bool{}
	for _, t := range activityTables {
		modeled[t] = true
	}
	for _, t := range tables {
		if isMetadata(t) {
			continue
		}
		n, err := r.count(t)
		if err != nil {
			return err
		}
		counts[t] = n
		r.rows += n
		if err := r.opt.Canceled(); err != nil {
			return err
		}
	}
	if err := r.readNames(); err != nil {
		return err
	}
	steps := []struct {
		table string
		read  func() error
	}{
		{"CUPTI_ACTIVITY_KIND_RUNTIME", func() error { return r.readAPI("CUPTI_ACTIVITY_KIND_RUNTIME", "CUDA runtime API", false) }},
		{"CUPTI_ACTIVITY_KIND_DRIVER", func() error { return r.readAPI("CUPTI_ACTIVITY_KIND_DRIVER", "CUDA driver API", true) }},
		{"CUPTI_ACTIVITY_KIND_KERNEL", r.readKernels},
		{"CUPTI_ACTIVITY_KIND_MEMCPY", r.readMemcpy},
		{"CUPTI_ACTIVITY_KIND_MEMSET", r.readMemset},
		{"NVTX_EVENTS", r.readNVTX},
		{"OSRT_API", r.readOSRT},
		{"CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", r.readSync},
		{"CUPTI_ACTIVITY_KIND_CUDA_EVENT", r.readCUDAEvents},
	}
	for _, s := range steps {
		if !r.db.HasTable(s.table) {
			continue
		}
		if err := s.read(); err != nil {
			return err
		}
		r.report()
		if err := r.opt.Canceled(); err != nil {
			return err
		}
	}
	for _, t := range tables {
		if n := counts[t]; n > 0 && !modeled[t] {
			r.opt.Skip("rows of table "+t, n)
			r.done += n
		}
	}
	r.report()
	return nil
}

func (r *reader) count(table string) (int64, error) {
	return r.db.Count(table)
}

func (r *reader) report() {
	if r.opt.Progress != nil {
		r.opt.Progress(r.done, r.rows)
	}
}

// tick counts a row read; every few thousand rows it reports progress and
// looks for cancellation.
func (r *reader) tick() error {
	r.done++
	if r.done%4096 == 0 {
		r.report()
		if err := r.weigh(); err != nil {
			return err
		}
		return r.opt.Canceled()
	}
	return nil
}

// col returns the column expression for name in table, or NULL when the
// table lacks it (schemas gain columns from one version to the next).
func (r *reader) col(table, name string) string {
	if r.db.HasColumn(table, name) {
		return sqlitedb.Ident(name)
	}
	return "NULL"
}

// interval checks a row's times: both set, end not before start. The
// others are counted, not modeled.
func (r *reader) interval(table string, start, end sql.NullInt64) bool {
	if !start.Valid || !end.Valid || end.Int64 < start.Int64 {
		r.opt.Skip("rows of "+table+" with a null time or an end before the start", 1)
		return false
	}
	return true
}
