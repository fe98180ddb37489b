package rocprof

import (
	"database/sql"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/readers/sqlitedb"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// A rocpd database (rocprofv3's default output since ROCm 7.0, also
// written by rocprof-sys) is a SQLite file whose tables carry the run's
// uuid as a suffix: rocpd_string_<uuid>, rocpd_info_process_<uuid>,
// rocpd_region_<uuid>... A file merged from several runs holds one set of
// tables per run. Unsuffixed views join the sets (rocpd_string...), and
// data views (regions, kernels, memory_copies...) join each set's tables
// into the columns users query.
//
// Those views are SQL stored in the file, which package sqlitedb never
// runs; the reader performs their joins itself, set by set (so that runs
// never mix), on the tables, with the views' meaning:
//
//   - regions (host API calls, markers): rocpd_region joined to
//     rocpd_event (category, correlation id; a roctx region's message, in
//     its extdata) and rocpd_string (name); its pid and tid are rows of
//     rocpd_info_process and rocpd_info_thread;
//   - kernels: rocpd_kernel_dispatch with its agent, queue, kernel symbol
//     (display_name) and event;
//   - memory_copies: rocpd_memory_copy with its source and destination
//     agents, name and event.
//
// The schema moved between versions: the released one keeps times inline
// (start, end) and the process, thread, agent and queue in each row;
// an older one keeps times in rocpd_timestamp (start_id, end_id) and the
// process, thread (operating-system ids), agent and queue in rocpd_track
// (track_id). Both are read.

// rocpdTables are the tables of a set the reader needs, the DDL creating
// them all: a set without one is a damaged file, refused.
var rocpdTables = []string{"string", "info_node", "info_process", "info_thread", "info_agent",
	"info_queue", "info_kernel_symbol", "event", "region", "kernel_dispatch", "memory_copy"}

// rocpdSet is one run's tables, named "rocpd_<name><suffix>".
type rocpdSet struct {
	suffix string
	// tracks: the older schema (times in rocpd_timestamp, places in
	// rocpd_track).
	tracks bool
}

func (s rocpdSet) table(name string) string { return "rocpd_" + name + s.suffix }

// rocpdSets returns the sets of tables of db, told by their string table
// (rocpd_string_<uuid>), sorted by suffix.
func rocpdSets(db *sqlitedb.DB) []rocpdSet {
	var sets []rocpdSet
	for _, t := range db.Tables() {
		if suffix, ok := strings.CutPrefix(t, "rocpd_string"); ok && len(suffix) > 1 && suffix[0] == '_' {
			sets = append(sets, rocpdSet{suffix: suffix})
		}
	}
	slices.SortFunc(sets, func(a, b rocpdSet) int { return strings.Compare(a.suffix, b.suffix) })
	for i := range sets {
		sets[i].tracks = db.HasColumn(sets[i].table("region"), "start_id")
	}
	return sets
}

// looksRocpdDB reports whether db is a rocpd database: a set of rocpd
// tables, or rocpd's views without their tables (a damaged file, which
// the reader refuses with what is missing). RPD files have a rocpd_string
// table too, unsuffixed, and rocpd_op, rocpd_api.
func looksRocpdDB(db *sqlitedb.DB) bool {
	if db.HasTable("rocpd_op") || db.HasTable("rocpd_api") {
		return false
	}
	if len(rocpdSets(db)) > 0 {
		return true
	}
	views := db.Views()
	has := func(name string) bool { _, ok := slices.BinarySearch(views, name); return ok }
	return has("rocpd_string") && (has("regions") || has("kernels") || has("rocpd_region"))
}

// rocpdCounts are what a read skipped or patched, for the notes.
type rocpdCounts struct {
	reversed, unreadable, unplaced, unnamed, unknownName int64
}

// rocpdReader reads the sets of a database into one model.
type rocpdReader struct {
	db    *sqlitedb.DB
	m     *model
	opt   trace.ReadOptions
	multi bool // several runs: queues are named with their process
	rows  int64
	n     rocpdCounts
}

// readRocpd reads a rocpd database into sink.
func readRocpd(path string, sink trace.Sink, opt trace.ReadOptions) error {
	db, err := sqlitedb.Open(path)
	if err != nil {
		return err
	}
	defer db.Close()
	db.Watch(opt.Cancel)
	sets := rocpdSets(db)
	if len(sets) == 0 && looksLegacyDB(db) {
		return readLegacyDB(db, path, sink, opt)
	}
	if len(sets) == 0 {
		if views := db.Views(); slices.Contains(views, "rocpd_string") {
			return db.Errorf("not a readable rocpd database: it has rocpd's views but no rocpd_string_<uuid> table, the run's tables they read")
		}
		return db.Errorf("not a rocpd database: no rocpd_string_<uuid> table")
	}
	m := newModel(opt)
	defer m.release() // a read that stops early gives back what the model held
	r := &rocpdReader{db: db, m: m, opt: opt, multi: len(sets) > 1}
	for i, s := range sets {
		for _, t := range rocpdTables {
			if !db.HasTable(s.table(t)) {
				return db.Errorf("rocpd run %s: %s", strings.TrimPrefix(s.suffix, "_"), db.Missing(s.table(t)))
			}
		}
		if s.tracks {
			for _, t := range []string{"track", "timestamp"} {
				if !db.HasTable(s.table(t)) {
					return db.Errorf("rocpd run %s (times in rocpd_timestamp): %s", strings.TrimPrefix(s.suffix, "_"), db.Missing(s.table(t)))
				}
			}
		}
		m.scope = int32(i) // correlation ids are the run's
		if err := r.readSet(s); err != nil {
			return err
		}
	}
	opt.Skip("rocpd rows ending before they start", r.n.reversed)
	opt.Skip("rocpd rows whose times or ids are not integers", r.n.unreadable)
	opt.Skip("rocpd rows whose process, thread or agent is not in the run's info tables", r.n.unplaced)
	if r.n.unnamed > 0 {
		opt.Warn("%d rocpd rows have no name (NULL): named \"(unnamed)\"", r.n.unnamed)
	}
	if r.n.unknownName > 0 {
		opt.Warn("%d rocpd rows name a string not in rocpd_string: named \"string <id>\"", r.n.unknownName)
	}
	return emitDatabase(m, sink, path, opt)
}

// tick counts a row, and checks for cancellation every 4096.
func (r *rocpdReader) tick() error {
	if r.m.err != nil {
		// The budget refused the model: sqlitedb.Scan places it at this row.
		return r.m.err
	}
	if r.rows++; r.rows%4096 == 0 {
		return r.opt.Canceled()
	}
	return nil
}

// rocpdRun holds the info tables of one run, by row id.
type rocpdRun struct {
	set     rocpdSet
	strings map[int64]string
	hosts   map[int64]int32 // node -> host container
	procs   map[int64]rocpdProc
	threads map[int64]rocpdThread
	agents  map[int64]rocpdAgent
	queues  map[int64]string
	symbols map[int64]string
	anyHost int32 // the host of rows whose node is unknown; -1 until needed
}

type rocpdProc struct {
	nid, pid int64
}

type rocpdThread struct {
	proc, tid int64 // proc: a row of rocpd_info_process
}

type rocpdAgent struct {
	nid, index int64
	cpu        bool
	name       string
}

// readSet reads one run's tables.
func (r *rocpdReader) readSet(s rocpdSet) error {
	run := &rocpdRun{set: s}
	if err := r.readInfo(run); err != nil {
		return err
	}
	if err := r.readRegions(run); err != nil {
		return err
	}
	if err := r.readKernels(run); err != nil {
		return err
	}
	if err := r.readCopies(run); err != nil {
		return err
	}
	return r.countUnmodelled(run)
}

// readInfo reads the run's strings, nodes, processes, threads, agents,
// queues and kernel symbols: small tables, held by id.
func (r *rocpdReader) readInfo(run *rocpdRun) error {
	s, db := run.set, r.db
	run.strings = map[int64]string{}
	var id int64
	var text, text2, text3 sql.NullString
	err := db.Scan(s.table("string"), `SELECT id, string FROM `+sqlitedb.Ident(s.table("string")), []any{&id, &text}, func() error {
		run.strings[id] = text.String
		return nil
	})
	if err != nil {
		return err
	}
	run.hosts = map[int64]int32{}
	err = db.Scan(s.table("info_node"), `SELECT id, hostname FROM `+sqlitedb.Ident(s.table("info_node")), []any{&id, &text}, func() error {
		run.hosts[id] = r.m.host(text.String)
		return nil
	})
	if err != nil {
		return err
	}
	run.anyHost = -1
	if len(run.hosts) == 1 {
		for _, h := range run.hosts {
			run.anyHost = h
		}
	}
	var a, b, c sql.NullInt64
	run.procs = map[int64]rocpdProc{}
	err = db.Scan(s.table("info_process"), `SELECT id, nid, pid FROM `+sqlitedb.Ident(s.table("info_process")), []any{&id, &a, &b}, func() error {
		run.procs[id] = rocpdProc{nid: a.Int64, pid: b.Int64}
		return nil
	})
	if err != nil {
		return err
	}
	run.threads = map[int64]rocpdThread{}
	err = db.Scan(s.table("info_thread"), `SELECT id, pid, tid FROM `+sqlitedb.Ident(s.table("info_thread")), []any{&id, &a, &b}, func() error {
		run.threads[id] = rocpdThread{proc: a.Int64, tid: b.Int64}
		return nil
	})
	if err != nil {
		return err
	}
	run.agents = map[int64]rocpdAgent{}
	var typ sql.NullString
	err = db.Scan(s.table("info_agent"), `SELECT id, nid, type, absolute_index, name, product_name FROM `+sqlitedb.Ident(s.table("info_agent")),
		[]any{&id, &a, &typ, &c, &text, &text2}, func() error {
			name := text2.String
			if name == "" {
				name = text.String
			}
			run.agents[id] = rocpdAgent{nid: a.Int64, index: c.Int64, cpu: typ.String == "CPU", name: name}
			return nil
		})
	if err != nil {
		return err
	}
	run.queues = map[int64]string{}
	err = db.Scan(s.table("info_queue"), `SELECT id, name FROM `+sqlitedb.Ident(s.table("info_queue")), []any{&id, &text}, func() error {
		run.queues[id] = text.String
		return nil
	})
	if err != nil {
		return err
	}
	run.symbols = map[int64]string{}
	return db.Scan(s.table("info_kernel_symbol"), `SELECT id, display_name, kernel_name FROM `+sqlitedb.Ident(s.table("info_kernel_symbol")),
		[]any{&id, &text, &text3}, func() error {
			name := text.String
			if name == "" {
				name = text3.String
			}
			run.symbols[id] = name
			return nil
		})
}

// name returns the string of id, counting what is missing: NULL (or not
// an integer), or an id not in rocpd_string.
func (r *rocpdReader) name(run *rocpdRun, id any) string {
	if id == nil {
		r.n.unnamed++
		return "(unnamed)"
	}
	n, ok := asInt(id)
	if !ok {
		r.n.unnamed++
		return "(unnamed)"
	}
	s, ok := run.strings[n]
	if !ok {
		r.n.unknownName++
		return "string " + strconv.FormatInt(n, 10)
	}
	return s
}

// host returns the host container of node nid: when the run has no such
// node, its only node's, or an unnamed host.
func (r *rocpdReader) host(run *rocpdRun, nid int64) int32 {
	if h, ok := run.hosts[nid]; ok {
		return h
	}
	if run.anyHost < 0 {
		run.anyHost = r.m.host("")
	}
	return run.anyHost
}

// optInt converts a value that may be NULL: 0 for NULL or a value that
// is not an integer.
func optInt(v any) int64 {
	n, _ := asInt(v)
	return n
}

// Queries: the same columns from either schema. Tables are quoted with
// sqlitedb.Ident; joins follow the views' (same id, same guid).
func (run *rocpdRun) join(alias, table, on string) string {
	return " LEFT JOIN " + sqlitedb.Ident(run.set.table(table)) + " " + alias + " ON " + alias + ".id = " + on +
		" AND " + alias + ".guid = " + strings.SplitN(on, ".", 2)[0] + ".guid"
}

// readRegions reads the host regions: API calls and markers, on their
// thread, of the kind their category says.
func (r *rocpdReader) readRegions(run *rocpdRun) error {
	s := run.set
	extdata := "NULL" // the roctx messages, when the events keep them
	if r.db.HasColumn(s.table("event"), "extdata") {
		extdata = "E.extdata"
	}
	// nid, process, thread, start, end, name_id, category_id,
	// correlation_id, extdata;
	// the released schema's process and thread are info rows, the older
	// one's (in the track) operating-system ids.
	q := `SELECT R.nid, R.pid, R.tid, R.start, R."end", R.name_id, E.category_id, E.correlation_id, ` + extdata + ` FROM ` +
		sqlitedb.Ident(s.table("region")) + " R" + run.join("E", "event", "R.event_id")
	if s.tracks {
		q = `SELECT T.nid, T.pid, T.tid, TS.value, TE.value, R.name_id, E.category_id, E.correlation_id, ` + extdata + ` FROM ` +
			sqlitedb.Ident(s.table("region")) + " R" + run.join("T", "track", "R.track_id") +
			run.join("TS", "timestamp", "R.start_id") + run.join("TE", "timestamp", "R.end_id") + run.join("E", "event", "R.event_id")
	}
	q += " ORDER BY R.id"
	return rpdRows(r.db, s.table("region"), q, 9, func(v []any) error {
		var nid, pid, tid, start, end int64
		if !ints(v[:5], &nid, &pid, &tid, &start, &end) {
			r.n.unreadable++
			return nil
		}
		if end < start {
			r.n.reversed++
			return nil
		}
		if !s.tracks { // rows of the info tables
			t, okT := run.threads[tid]
			p, okP := run.procs[pid]
			if !okT || !okP {
				r.n.unplaced++
				return nil
			}
			pid, tid = p.pid, t.tid
		}
		host := r.host(run, nid)
		kind := "Region"
		if v[6] != nil {
			if c := r.name(run, v[6]); c != "" {
				kind = apiKind(c)
			}
		}
		label := r.name(run, v[5])
		if kind == kindMarker { // roctxRangePushA...: the message is the event's
			if msg, ok := markerMessage(v[8]); ok {
				label = msg
			}
		}
		c := r.m.thread(host, pid, tid)
		if kind == kindMarker && start == end {
			r.m.addMark(c, label, trace.Time(start))
			return r.tick()
		}
		r.m.add(c, kind, label, trace.Time(start), trace.Time(end), optInt(v[7]), nan)
		return r.tick()
	})
}

// markerMessage returns the message of a roctx region, which rocprofv3
// keeps in its event's extdata ({"message": "..."}), the region being
// named by the function (roctxRangePushA, roctxMarkA...).
func markerMessage(extdata any) (string, bool) {
	var text []byte
	switch x := extdata.(type) {
	case string:
		text = []byte(x)
	case []byte:
		text = x
	default:
		return "", false
	}
	var e struct {
		Message *string `json:"message"`
	}
	if json.Unmarshal(text, &e) != nil || e.Message == nil {
		return "", false
	}
	return *e.Message, true
}

// agent returns the container of agent id, "Agent <absolute index>
// (<product>)" as the JSON reader names them, on its node's host.
func (r *rocpdReader) agent(run *rocpdRun, id int64) (int32, bool) {
	a, ok := run.agents[id]
	if !ok {
		return 0, false
	}
	key := strconv.FormatInt(a.index, 10)
	name := "Agent " + key
	if a.name != "" {
		name += " (" + a.name + ")"
	}
	return r.m.agent(r.host(run, a.nid), key, a.index, name), true
}

// queue returns the container of queue id of agent a, of process pid:
// "Queue <id>" or the queue's name; with several runs in the file, the
// process is in the name, so that the queues of two runs never mix.
func (r *rocpdReader) queue(run *rocpdRun, a int32, id, pid int64) int32 {
	key := "Queue " + strconv.FormatInt(id, 10)
	name := run.queues[id]
	if r.multi {
		key += " of pid " + strconv.FormatInt(pid, 10)
		if name != "" {
			name += " of pid " + strconv.FormatInt(pid, 10)
		}
	}
	return r.m.container(a, ctQueue, key, id, name)
}

// readKernels reads the kernel dispatches, on their agent's queue.
func (r *rocpdReader) readKernels(run *rocpdRun) error {
	s := run.set
	q := `SELECT K.pid, K.agent_id, K.queue_id, K.kernel_id, K.start, K."end", E.correlation_id FROM ` +
		sqlitedb.Ident(s.table("kernel_dispatch")) + " K" + run.join("E", "event", "K.event_id")
	if s.tracks {
		q = `SELECT T.pid, T.agent_id, T.queue_id, K.kernel_id, TS.value, TE.value, E.correlation_id FROM ` +
			sqlitedb.Ident(s.table("kernel_dispatch")) + " K" + run.join("T", "track", "K.track_id") +
			run.join("TS", "timestamp", "K.start_id") + run.join("TE", "timestamp", "K.end_id") + run.join("E", "event", "K.event_id")
	}
	q += " ORDER BY K.id"
	return rpdRows(r.db, s.table("kernel_dispatch"), q, 7, func(v []any) error {
		var pid, agent, queue, kernel, start, end int64
		if !ints(v[:6], &pid, &agent, &queue, &kernel, &start, &end) {
			r.n.unreadable++
			return nil
		}
		if end < start {
			r.n.reversed++
			return nil
		}
		a, ok := r.agent(run, agent)
		if !ok {
			r.n.unplaced++
			return nil
		}
		if !s.tracks {
			pid = run.procs[pid].pid
		}
		name, ok := run.symbols[kernel]
		if !ok || name == "" {
			name = "kernel " + strconv.FormatInt(kernel, 10)
		}
		r.m.add(r.queue(run, a, queue, pid), kindKernel, name, trace.Time(start), trace.Time(end), optInt(v[6]), nan)
		return r.tick()
	})
}

// readCopies reads the memory copies, on the "Memory copies" queue of
// their device end (the destination when the source is a CPU), as the
// JSON reader places them.
func (r *rocpdReader) readCopies(run *rocpdRun) error {
	s := run.set
	q := `SELECT M.src_agent_id, M.dst_agent_id, M.start, M."end", M.size, M.name_id, E.correlation_id FROM ` +
		sqlitedb.Ident(s.table("memory_copy")) + " M" + run.join("E", "event", "M.event_id")
	if s.tracks {
		q = `SELECT M.src_agent_id, M.dst_agent_id, TS.value, TE.value, M.size, M.name_id, E.correlation_id FROM ` +
			sqlitedb.Ident(s.table("memory_copy")) + " M" +
			run.join("TS", "timestamp", "M.start_id") + run.join("TE", "timestamp", "M.end_id") + run.join("E", "event", "M.event_id")
	}
	q += " ORDER BY M.id"
	return rpdRows(r.db, s.table("memory_copy"), q, 7, func(v []any) error {
		var src, dst, start, end int64
		if !ints(v[:4], &src, &dst, &start, &end) {
			r.n.unreadable++
			return nil
		}
		if end < start {
			r.n.reversed++
			return nil
		}
		dev := src
		if a, ok := run.agents[src]; ok && a.cpu {
			dev = dst
		}
		a, ok := r.agent(run, dev)
		if !ok {
			r.n.unplaced++
			return nil
		}
		size := nan
		if n, ok := asInt(v[4]); ok {
			size = float64(n)
		}
		c := r.m.queue(a, "Memory copies", 1<<62)
		r.m.add(c, kindCopy, r.name(run, v[5]), trace.Time(start), trace.Time(end), optInt(v[6]), size)
		return r.tick()
	})
}

// countUnmodelled counts the rows of the kinds not modelled: counter
// samples, counter values of kernels, memory allocations.
func (r *rocpdReader) countUnmodelled(run *rocpdRun) error {
	for _, t := range []struct{ table, what string }{
		{"sample", "rocpd samples (rocpd_sample: counters, not modelled)"},
		{"pmc_event", "rocpd counter values of kernels (rocpd_pmc_event, not modelled)"},
		{"memory_allocate", "rocpd memory allocations (rocpd_memory_allocate, not modelled)"},
	} {
		if !r.db.HasTable(run.set.table(t.table)) {
			continue
		}
		n, err := r.db.Count(run.set.table(t.table))
		if err != nil {
			return err
		}
		r.opt.Skip(t.what, n)
	}
	return nil
}
