package nsys

import (
	"path/filepath"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/readers/sqlitedb"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Format is the Nsight Systems SQLite export format. It has no Sniff: every
// SQLite database starts with the same magic bytes (rocprof's RPD too), so
// the first bytes cannot tell an Nsight Systems export; the registry asks
// looks (SniffFile), which reads the schema.
var Format = ingest.Format{
	Name:        name,
	Summary:     "Nsight Systems SQLite export (nsys export --type sqlite)",
	Extensions:  extensions,
	SniffFile:   looks,
	ExplainFile: explainStatsCSV,
	Options:     options,
	Open:        open,
}

// explainStatsCSV says what a table written by `nsys stats` is: one of
// its reports computed from a report file, a trace's rows
// (nvtx_pushpop_trace, cuda_gpu_trace: "Start (ns)"; cuda_kern_exec_trace:
// "API Start (ns)"; nvtx_gpu_proj_trace: "Name,Projected Start (ns)") or
// its totals (cuda_api_sum, nvtx_sum: "Time (%)", older releases
// "Time(%)"), not the report; "" otherwise. The table is CSV
// (--format csv), or text in columns (nsys stats' default, and what
// `nsys profile --stats=true` prints), each header underlined by dashes.
// It may follow the lines nsys prints before it on stdout ("Processing
// [...] with [...]...", the report's title), none of which holds a comma.
func explainStatsCSV(head []byte) string {
	text := strings.TrimPrefix(string(head), "\ufeff")
	const way = ", computed from an Nsight Systems report, not the report: export the report itself " +
		"(nsys export --type sqlite REPORT.nsys-rep) and read the .sqlite file it writes"
	if statsColumns(text) {
		return "a table of `nsys stats` (a report's rows or totals, as text in columns)" + way
	}
	for range 8 {
		line, rest, _ := strings.Cut(text, "\n")
		if strings.Contains(line, ",") {
			if !statsHeader(line) {
				return ""
			}
			return "a table of `nsys stats` (a report's rows or totals in CSV)" + way
		}
		if rest == "" {
			break
		}
		text = rest
	}
	return ""
}

// statsColumns reports whether text (a file's first bytes) holds a table
// of nsys stats in text columns: a header whose line below is runs of
// dashes, one a column, each as wide as its column ("Time (%)  Total Time
// (ns)..." over " --------  ---------------..."), whose cells, cut at
// the runs, make a header of the reports (statsHeader); or the totals of
// the releases before 2021.1, whose header gave the unit in the title
// above ("CUDA API Statistics (nanoseconds)") and named the columns
// "Time(%)  Total Time  Calls  Average  Minimum  Maximum  Name". Only
// whole lines are looked at: the last may be cut by the head.
func statsColumns(text string) bool {
	lines := strings.Split(text, "\n")
	for i := 1; i+1 < len(lines); i++ {
		runs := dashRuns(strings.TrimRight(lines[i], "\r"))
		if len(runs) < 2 {
			continue
		}
		header := strings.TrimRight(lines[i-1], "\r")
		cells := make([]string, 0, len(runs))
		for _, r := range runs {
			lo, hi := min(r[0], len(header)), min(r[1], len(header))
			cells = append(cells, strings.TrimSpace(header[lo:hi]))
		}
		if statsHeader(strings.Join(cells, ",")) {
			return true
		}
		if len(cells) >= 3 && cells[0] == "Time(%)" && cells[1] == "Total Time" && cells[len(cells)-1] == "Name" {
			return true
		}
	}
	return false
}

// dashRuns returns the spans [start, end) of the runs of dashes of line
// when the line holds nothing else but spaces; nil otherwise.
func dashRuns(line string) [][2]int {
	var runs [][2]int
	start := -1
	for i := 0; i <= len(line); i++ {
		dash := i < len(line) && line[i] == '-'
		switch {
		case i < len(line) && !dash && line[i] != ' ':
			return nil
		case dash && start < 0:
			start = i
		case !dash && start >= 0:
			runs = append(runs, [2]int{start, i})
			start = -1
		}
	}
	return runs
}

// statsHeader reports whether line is the header of an nsys stats table.
// Every report names its quantities with their unit in parentheses
// ("Duration (ns)", "Total Time (ns)"; --timeunit gives us, ms or s), and
// its rows are timed from a start ("Start (ns)", "API Start (ns)",
// "Projected Start (ns)") or its totals share out the time ("Time (%)"):
// one rule for the reports rather than a list of them.
func statsHeader(line string) bool {
	units, timed := 0, false
	for cell := range strings.SplitSeq(strings.TrimRight(line, "\r"), ",") {
		cell = strings.Trim(strings.TrimSpace(cell), `"`)
		name, unit, ok := strings.Cut(cell, "(")
		unit, closed := strings.CutSuffix(unit, ")")
		if !ok || !closed {
			continue
		}
		switch unit {
		case "ns", "us", "ms", "s", "%":
		default:
			continue
		}
		units++
		name = strings.TrimSpace(name)
		if name == "Start" || strings.HasSuffix(name, " Start") || (name == "Time" && unit == "%") {
			timed = true
		}
	}
	return timed && units >= 2
}

const name = "nsys"

// .nsys-rep and .qdrep are listed so that a report given by mistake
// reaches Open, which says how to export it, rather than another reader.
var extensions = []string{".sqlite", ".nsys-rep", ".qdrep"}

var options = []ingest.Option{{
	Name: "kernel_names", Kind: ingest.String, Default: "short", Choices: []string{"short", "demangled"},
	Doc: "how CUDA kernels are named: the base function name (shortName) or the full demangled signature (demangledName)",
}}

// readerOptions are the reader's own options.
type readerOptions struct {
	// DemangledNames names kernels by their demangled signature rather
	// than by their base name.
	DemangledNames bool
}

func open(path string, v ingest.Values) (*ingest.Source, error) {
	// Not Format.Check: Format refers to open.
	v, err := ingest.Format{Name: name, Options: options}.Check(v)
	if err != nil {
		return nil, err
	}
	if err := refuseReport(path); err != nil {
		return nil, err
	}
	if _, err := ingest.CheckPath(path); err != nil {
		return nil, err
	}
	o := readerOptions{DemangledNames: v.String("kernel_names") == "demangled"}
	return &ingest.Source{
		Read: func(sink trace.Sink, opt trace.ReadOptions) error {
			return readWith(path, o, sink, opt)
		},
		Whole: true,
		Files: []string{path},
	}, nil
}

// refuseReport explains that a binary report must be exported first.
func refuseReport(path string) error {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".nsys-rep", ".qdrep":
		return errs.Format(path, 0, "is an Nsight Systems report, a binary file only Nsight Systems reads: "+
			"export it with `nsys export --type sqlite %s` and read the .sqlite file it writes", filepath.Base(path))
	}
	return nil
}

// looks reports whether the file at path is an Nsight Systems SQLite
// export: a SQLite database with the StringIds table and at least one
// table of traced activity (CUPTI_ACTIVITY_KIND_*, NVTX_EVENTS, OSRT_API)
// or the session's start time (TARGET_INFO_SESSION_START_TIME), which
// every export has. It opens the database and reads its schema, not its
// rows.
func looks(path string) bool {
	if st, err := ingest.CheckPath(path); err != nil || st.IsDir() {
		return false
	}
	db, err := sqlitedb.Peek(path)
	if err != nil {
		return false
	}
	defer db.Close()
	return looksNsys(db)
}

func looksNsys(db *sqlitedb.DB) bool {
	if !db.HasTable("StringIds") {
		return false
	}
	if db.HasTable("NVTX_EVENTS") || db.HasTable("OSRT_API") || db.HasTable("TARGET_INFO_SESSION_START_TIME") {
		return true
	}
	for _, t := range db.Tables() {
		if strings.HasPrefix(t, "CUPTI_ACTIVITY_KIND_") {
			return true
		}
	}
	return false
}
