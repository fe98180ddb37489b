package rocprof

import (
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// csvKind is what a rocprofv3 CSV file holds, told by its header.
type csvKind int

const (
	csvUnknown csvKind = iota
	csvKernel          // kernel_trace: kernel dispatches
	csvAPI             // hip_api_trace, hsa_api_trace, marker_api_trace, rccl_trace...
	csvCopy            // memory_copy_trace
	csvCounter         // counter_collection: one row per dispatch and counter
	csvOther           // traces not modelled (memory allocations, scratch, PC samples)
	csvStats           // summaries (*_stats.csv, agent_info.csv): not traces
)

// classify tells the kind of a rocprofv3 CSV file from its header.
func classify(h header) csvKind {
	switch {
	case h.has("Counter_Name", "Counter_Value"):
		return csvCounter
	case h.has("Kernel_Name", "Agent_Id", "Queue_Id", "Start_Timestamp", "End_Timestamp"):
		return csvKernel
	case h.has("Domain", "Function", "Process_Id", "Thread_Id", "Start_Timestamp", "End_Timestamp"):
		return csvAPI
	case h.has("Direction", "Source_Agent_Id", "Destination_Agent_Id", "Start_Timestamp", "End_Timestamp"):
		return csvCopy
	case h.has("Kind", "Start_Timestamp", "End_Timestamp"), h.has("Sample_Timestamp"):
		return csvOther
	case h.has("Name", "Calls", "TotalDurationNs"), h.has("Node_Id", "Agent_Type"),
		h.has("CodeObj", "Vaddr", "Instruction", "Hitcount", "Latency"):
		return csvStats
	}
	return csvUnknown
}

// traceSuffixes are the endings of the names rocprofv3 gives its CSV
// files, after the run's prefix ("<pid>_" by default).
var traceSuffixes = []string{
	"kernel_trace.csv", "hip_api_trace.csv", "hsa_api_trace.csv", "marker_api_trace.csv",
	"memory_copy_trace.csv", "rccl_api_trace.csv", "rccl_trace.csv", "hip_trace.csv",
	"rocdecode_api_trace.csv", "rocjpeg_api_trace.csv", "counter_collection.csv",
	"memory_allocation_trace.csv", "scratch_memory_trace.csv",
	"pc_sampling_host_trap.csv", "pc_sampling_stochastic.csv",
}

// runPrefix returns the prefix of a rocprofv3 CSV file name (compression
// extension stripped) and whether the name ends like one.
func runPrefix(name string) (string, bool) {
	base := strings.ToLower(ingest.StripCompressed(filepath.Base(name)))
	for _, s := range traceSuffixes {
		if strings.HasSuffix(base, s) {
			return filepath.Base(ingest.StripCompressed(name))[:len(base)-len(s)], true
		}
	}
	return "", false
}

// sniffCSV reports whether head starts with the header of a rocprofv3
// trace CSV file.
func sniffCSV(head []byte) bool {
	h, err := parseHeader(firstLine(head))
	if err != nil {
		return false
	}
	k := classify(h)
	return k != csvUnknown && k != csvStats
}

// explainCSV says what a rocprof CSV file that holds no trace is, from
// its first bytes: a statistics summary (--stats) or rocprofv3's list of
// agents, and where the run's trace is; "" for any other file.
func explainCSV(head []byte) string {
	h, err := parseHeader(firstLine(head))
	if err != nil || classify(h) != csvStats {
		return ""
	}
	const way = "read the trace files the run wrote beside it (rocprofv3's *_kernel_trace.csv, *_hip_api_trace.csv... " +
		"with --kernel-trace, --hip-trace; rocprof's results.csv) or their directory"
	if h.has("Node_Id", "Agent_Type") {
		return "rocprofv3's list of the run's agents (agent_info.csv), not a trace: " + way
	}
	if h.has("CodeObj", "Instruction", "Hitcount") {
		// The thread trace decoder's table for rocprof-compute-viewer
		// (stats_ui_output_agent_<pid>_dispatch_<n>.csv, beside the
		// per-wave JSON of ui_output_agent_<pid>_dispatch_<n>/).
		return "rocprofv3's thread trace (--att) statistics of one kernel dispatch's instructions " +
			"(hit counts, latencies and stalls per instruction for rocprof-compute-viewer, no time line), not a trace: " + way
	}
	return "a rocprof statistics summary (--stats: calls and durations per function or kernel, " +
		"no time line), not a trace: " + way
}

// sniffCSVDir reports whether dir holds rocprofv3 CSV trace files, or
// its subdirectories do.
func sniffCSVDir(dir string) bool {
	files, err := csvFiles(dir, false)
	return err == nil && len(files) > 0
}

// runFiles lists the rocprofv3 trace CSV files of dir, those whose name
// starts with prefix when prefix is not empty, sorted by name; root is the
// directory the user named, which they must stay in (a link leading out
// of it is not a file of the run).
func runFiles(root, dir, prefix string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		p, ok := runPrefix(e.Name())
		if !ok || prefix != "" && p != prefix {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if st, err := ingest.CheckIn(root, path); err != nil || !st.Mode().IsRegular() {
			continue
		}
		head, err := ingest.Head(path, 4096)
		if err != nil || !sniffCSV(head) {
			continue
		}
		out = append(out, path)
	}
	sort.Strings(out)
	return out, nil
}

// csvFiles returns the files of the rocprofv3 run at path: for a
// directory, its trace CSV files, or if it has none those of its
// subdirectories (rocprofv3 writes <output>/<hostname>/<pid>_*.csv); for
// a file, the file and, if siblings is
// set, the trace CSV files beside it with the same prefix (the "<pid>_" of
// rocprofv3's default names).
func csvFiles(path string, siblings bool) ([]string, error) {
	st, err := ingest.CheckPath(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		files, err := runFiles(path, path, "")
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			// rocprofv3's default layout: <output>/<hostname>/<pid>_*.csv.
			entries, _ := os.ReadDir(path)
			for _, e := range entries {
				if e.IsDir() {
					sub, _ := runFiles(path, filepath.Join(path, e.Name()), "")
					files = append(files, sub...)
				}
			}
		}
		if len(files) == 0 {
			return nil, errs.Format(path, 0, "the directory holds no rocprofv3 trace CSV file (*_kernel_trace.csv, *_hip_api_trace.csv...)")
		}
		return files, nil
	}
	prefix, ok := runPrefix(path)
	if !siblings || !ok {
		return []string{path}, nil
	}
	files, err := runFiles(filepath.Dir(path), filepath.Dir(path), prefix)
	if err != nil {
		return nil, err
	}
	// The file given comes whatever its header says (errors name it).
	for _, f := range files {
		if filepath.Base(f) == filepath.Base(path) {
			return files, nil
		}
	}
	return append([]string{path}, files...), nil
}

// ReadCSV reads the rocprofv3 CSV files into sink, as one trace (see
// csvFiles for the files of a run). When the files come from several
// directories, each directory is a host, named after it (rocprofv3 names
// them after the host). With strict, a row that cannot be read is an
// error instead of being skipped and counted.
func ReadCSV(files []string, strict bool, sink trace.Sink, opt trace.ReadOptions) error {
	if len(files) == 0 {
		return errs.Argument("files", "no file to read")
	}
	var total int64
	in := make([]csvFile, len(files))
	for i, f := range files {
		if st, err := os.Stat(f); err == nil {
			total += st.Size()
		}
		in[i] = csvFile{path: f, strict: strict}
	}
	for i := range in {
		in[i].total = total
	}
	return readCSV(in, sink, opt)
}

// readCSV reads the files as one trace.
func readCSV(files []csvFile, sink trace.Sink, opt trace.ReadOptions) error {
	var done int64
	m := newModel(opt)
	defer m.release() // a read that stops early gives back what the model held
	dirs := map[string]bool{}
	for _, f := range files {
		dirs[filepath.Dir(f.path)] = true
	}
	prefixes := map[string]bool{}
	scopes := map[string]int32{}
	for _, f := range files {
		path := f.path
		// Correlation ids are unique within a run: the files of one
		// directory with one prefix.
		p, _ := runPrefix(path)
		run := filepath.Join(filepath.Dir(path), p)
		if _, ok := scopes[run]; !ok {
			scopes[run] = int32(len(scopes))
		}
		m.scope = scopes[run]
		host := m.host("")
		if len(dirs) > 1 {
			host = m.host(filepath.Base(filepath.Dir(path)))
		}
		if p, ok := runPrefix(path); ok {
			prefixes[p] = true
		}
		r := &csvReader{m: m, host: host, opt: opt, path: path}
		f.before = done
		_, size, err := f.read(opt, filepath.Base(path), r.head)
		if err != nil {
			return err
		}
		r.finish()
		done += size
	}
	if len(prefixes) > 1 {
		var names []string
		for p := range prefixes {
			names = append(names, strconv.Quote(p))
		}
		sort.Strings(names)
		opt.Warn("the files come from %d runs (prefixes %s), read as one trace", len(prefixes), strings.Join(names, ", "))
	}
	if err := opt.Canceled(); err != nil {
		return err
	}
	return m.emit(sink, files[0].path)
}

// csvReader reads the rows of one rocprofv3 CSV file into the model.
type csvReader struct {
	m    *model
	host int32
	opt  trace.ReadOptions
	path string
	kind csvKind

	// columns
	start, end, corr           int
	agent, queue               int
	name, domain, pid, tid     int
	direction, src, dst, bytes int
	reversed, other            int64 // rows ending before they start; rows not modelled
	what                       string
}

// head classifies the file and returns the row handler. A row the model
// took past the memory budget gives the budget's error (model.tick).
func (r *csvReader) head(h header) (func(*row) error, error) {
	handle, err := r.pick(h)
	if err != nil {
		return nil, err
	}
	return func(w *row) error {
		if err := handle(w); err != nil {
			return err
		}
		return r.m.err
	}, nil
}

// pick classifies the file and returns the handler of its rows.
func (r *csvReader) pick(h header) (func(*row) error, error) {
	r.kind = classify(h)
	r.start, r.end, r.corr = h.col("Start_Timestamp"), h.col("End_Timestamp"), h.col("Correlation_Id")
	switch r.kind {
	case csvKernel:
		r.agent, r.queue, r.name = h.col("Agent_Id"), h.col("Queue_Id"), h.col("Kernel_Name")
		r.what = "kernel dispatches"
		return r.kernel, nil
	case csvAPI:
		r.domain, r.name, r.pid, r.tid = h.col("Domain"), h.col("Function"), h.col("Process_Id"), h.col("Thread_Id")
		r.what = "API calls"
		return r.api, nil
	case csvCopy:
		r.direction, r.src, r.dst = h.col("Direction"), h.col("Source_Agent_Id"), h.col("Destination_Agent_Id")
		r.bytes = h.col("Bytes", "Size")
		r.what = "memory copies"
		return r.copy, nil
	case csvCounter:
		r.what = "counter samples (counter_collection: one per kernel dispatch and counter)"
		return r.count, nil
	case csvOther:
		r.what = "records of traces not modelled (memory allocations, scratch memory, PC samples)"
		return r.count, nil
	case csvStats:
		r.what = "rows of statistics files (not traces)"
		return r.count, nil
	}
	return nil, errs.Format(r.path, 1, "not a rocprofv3 CSV trace: the columns are none of kernel_trace, *_api_trace, memory_copy_trace or counter_collection")
}

func (r *csvReader) finish() {
	r.opt.Skip(r.what+" ending before they start", r.reversed)
	r.opt.Skip(r.what, r.other)
}

func (r *csvReader) count(*row) error { r.other++; return nil }

// interval parses the start and end of a row; ok is false (and the row
// counted) when it ends before it starts.
func (r *csvReader) interval(w *row) (start, end trace.Time, ok bool, err error) {
	s, err := w.int(r.start)
	if err != nil {
		return 0, 0, false, badRow("Start_Timestamp: %v", err)
	}
	e, err := w.int(r.end)
	if err != nil {
		return 0, 0, false, badRow("End_Timestamp: %v", err)
	}
	if e < s {
		r.reversed++
		return 0, 0, false, nil
	}
	return trace.Time(s), trace.Time(e), true, nil
}

func (r *csvReader) correlation(w *row) (int64, error) {
	if r.corr < 0 {
		return 0, nil
	}
	c, err := w.int(r.corr)
	if err != nil {
		return 0, badRow("Correlation_Id: %v", err)
	}
	return c, nil
}

// agentOf returns the container of agent text "Agent 4" (or "4").
func (r *csvReader) agentOf(text string) int32 {
	text = strings.TrimSpace(text)
	num := strings.TrimSpace(strings.TrimPrefix(text, "Agent"))
	rank, err := strconv.ParseInt(num, 10, 64)
	if err != nil {
		rank = math.MaxInt64
	}
	return r.m.agent(r.host, num, rank, "")
}

func (r *csvReader) kernel(w *row) error {
	start, end, ok, err := r.interval(w)
	if !ok {
		return err
	}
	corr, err := r.correlation(w)
	if err != nil {
		return err
	}
	q, err := w.int(r.queue)
	if err != nil {
		return badRow("Queue_Id: %v", err)
	}
	a := r.agentOf(w.str(r.agent))
	c := r.m.queue(a, "Queue "+strconv.FormatInt(q, 10), q)
	r.m.add(c, kindKernel, w.str(r.name), start, end, corr, nan)
	return nil
}

func (r *csvReader) api(w *row) error {
	start, end, ok, err := r.interval(w)
	if !ok {
		return err
	}
	corr, err := r.correlation(w)
	if err != nil {
		return err
	}
	pid, err := w.int(r.pid)
	if err != nil {
		return badRow("Process_Id: %v", err)
	}
	tid, err := w.int(r.tid)
	if err != nil {
		return badRow("Thread_Id: %v", err)
	}
	c := r.m.thread(r.host, pid, tid)
	kind := apiKind(w.str(r.domain))
	if kind == kindMarker && start == end {
		r.m.addMark(c, w.str(r.name), start)
		return nil
	}
	r.m.add(c, kind, w.str(r.name), start, end, corr, nan)
	return nil
}

// copyQueue returns the container of the copies of the device end of a
// copy: the destination for host-to-device copies, the source otherwise.
func (r *csvReader) copyQueue(direction, src, dst string) int32 {
	a := src
	if strings.Contains(strings.ToUpper(direction), "HOST_TO_DEVICE") {
		a = dst
	}
	return r.m.queue(r.agentOf(a), "Memory copies", math.MaxInt64)
}

func (r *csvReader) copy(w *row) error {
	start, end, ok, err := r.interval(w)
	if !ok {
		return err
	}
	corr, err := r.correlation(w)
	if err != nil {
		return err
	}
	size := nan
	if r.bytes >= 0 {
		if b, err := w.int(r.bytes); err == nil {
			size = float64(b)
		}
	}
	dir := w.str(r.direction)
	c := r.copyQueue(dir, w.str(r.src), w.str(r.dst))
	r.m.add(c, kindCopy, dir, start, end, corr, size)
	return nil
}
