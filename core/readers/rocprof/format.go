package rocprof

import (
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/readers/sqlitedb"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The options of the CSV readers.
var (
	strictOption = ingest.Option{Name: "strict", Kind: ingest.Bool, Default: false,
		Doc: "fail on a row that cannot be read instead of skipping and counting it, and on an incomplete trace (a cut last line)"}
	siblingsOption = ingest.Option{Name: "siblings", Kind: ingest.Bool, Default: true,
		Doc: "given one CSV file, also read the other CSV files of its run (same directory, same prefix)"}
)

// JSONFormat is rocprofv3's JSON output (rocprofiler-sdk-tool).
var JSONFormat = ingest.Format{
	Name:       "rocprofv3-json",
	Summary:    "rocprofv3 JSON output (rocprofiler-sdk-tool: kernels, copies, HIP/HSA/marker/RCCL API), plain or compressed",
	Extensions: []string{"_results.json"},
	Sniff:      sniffJSON,
	Open: func(path string, _ ingest.Values) (*ingest.Source, error) {
		return &ingest.Source{Read: ingest.ReadFunc(path, readJSONFile), Whole: true, Files: []string{path}}, nil
	},
}

// CSVFormat is rocprofv3's CSV output: one file per kind of record, read
// together.
var CSVFormat = ingest.Format{
	Name:        "rocprofv3-csv",
	Summary:     "rocprofv3 CSV files of a run (kernel_trace, hip/hsa/marker/rccl API traces, memory_copy_trace): one file, its siblings, or their directory",
	Extensions:  []string{"_kernel_trace.csv", "_hip_api_trace.csv", "_hsa_api_trace.csv", "_marker_api_trace.csv", "_memory_copy_trace.csv", "_rccl_api_trace.csv"},
	Sniff:       sniffCSV,
	SniffDir:    sniffCSVDir,
	ExplainFile: explainCSV,
	Options:     []ingest.Option{siblingsOption, strictOption},
	Open: func(path string, opt ingest.Values) (*ingest.Source, error) {
		if head, err := ingest.Head(path, 4096); err == nil {
			if why := explainCSV(head); why != "" {
				return nil, errs.Format(path, 0, "is %s", why)
			}
		}
		files, err := csvFiles(path, opt.Bool("siblings"))
		if err != nil {
			return nil, err
		}
		strict := opt.Bool("strict")
		return &ingest.Source{Read: func(sink trace.Sink, ro trace.ReadOptions) error {
			return ReadCSV(files, strict, sink, ro)
		}, Whole: true, Files: files}, nil
	},
}

// LegacyCSVFormat is the CSV output of rocprof v1 and v2 (results.csv,
// timestamps.csv): kernel dispatches with their timestamps.
var LegacyCSVFormat = ingest.Format{
	Name:       "rocprof-csv",
	Summary:    "rocprof v1/v2 CSV (results.csv, timestamps.csv: kernel dispatches with BeginNs/EndNs or Start_Timestamp/End_Timestamp)",
	Extensions: []string{"timestamps.csv", "results.csv"},
	Sniff:      sniffLegacy,
	Options:    []ingest.Option{strictOption},
	Open: func(path string, opt ingest.Values) (*ingest.Source, error) {
		if _, err := ingest.CheckPath(path); err != nil {
			return nil, err
		}
		strict := opt.Bool("strict")
		return &ingest.Source{Read: func(sink trace.Sink, ro trace.ReadOptions) error {
			return readLegacyCSV(path, strict, sink, ro)
		}, Whole: true, Files: []string{path}}, nil
	},
}

// RPDFormat is the SQLite database of rocmProfileData (rocpd, rpd_tracer).
// It is told by its extension: the first bytes of a SQLite file do not say
// which tables it holds (the schema of the corpus's files starts past byte
// 12,000), and other profilers write SQLite too.
var RPDFormat = ingest.Format{
	Name:       "rpd",
	Summary:    "rocmProfileData RPD SQLite database (rocpd_api, rocpd_op, rocpd_api_ops)",
	Extensions: []string{".rpd"},
	// Every SQLite file starts alike: look at the tables.
	SniffFile: func(path string) bool {
		return peekSchema(path, func(db *sqlitedb.DB) bool { return db.HasTable("rocpd_op") && db.HasTable("rocpd_api") })
	},
	Open: openWhole(readRPD),
}

// openWhole opens a database read whole by read.
func openWhole(read func(path string, sink trace.Sink, opt trace.ReadOptions) error) func(string, ingest.Values) (*ingest.Source, error) {
	return func(path string, _ ingest.Values) (*ingest.Source, error) {
		if _, err := ingest.CheckPath(path); err != nil {
			return nil, err
		}
		return &ingest.Source{Read: ingest.ReadFunc(path, read), Whole: true, Files: []string{path}}, nil
	}
}

// peekSchema reports whether the file at path is a SQLite database whose
// schema (tables and views, not their rows) satisfies is.
func peekSchema(path string, is func(*sqlitedb.DB) bool) bool {
	head, err := ingest.Head(path, len(sqlitedb.Magic))
	if err != nil || !sqlitedb.Looks(head) {
		return false
	}
	db, err := sqlitedb.Peek(path)
	if err != nil {
		return false
	}
	defer db.Close()
	return is(db)
}

// RocpdFormat is rocprofv3's rocpd SQLite database, its default output
// since ROCm 7.0 (results.db, <pid>_results.db; rocprof-sys writes it
// too). It is told by its tables (rocpd_string_<uuid>...), apart from
// RPD's (rocpd_op, rocpd_api) and Nsight Systems' exports.
var RocpdFormat = ingest.Format{
	Name:       "rocpd",
	Summary:    "rocprofv3 rocpd SQLite database (ROCm 7 default output: regions, kernels, memory copies of one or several runs); rocprof v1's results.db (kernels)",
	Extensions: []string{"results.db"},
	SniffFile:  looksRocpd,
	Open:       openWhole(readRocpd),
}

// looksRocpd reports whether the file at path is a SQLite database with
// rocpd's tables or views, or rocprof v1's kernel table (its results.db,
// read by the same door).
func looksRocpd(path string) bool {
	return peekSchema(path, func(db *sqlitedb.DB) bool { return looksRocpdDB(db) || looksLegacyDB(db) })
}
