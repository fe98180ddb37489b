package rocprof

import (
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The rocpd databases of testdata are written by
// testdata/gen/rocpd/make_rocpd.py: two runs (processes 4101 and 4102)
// merged in one file, each with its own set of tables; results.db in the
// released layout (times inline), timestamps_results.db in the older one
// (times in rocpd_timestamp). MACROSCOPE_ROCPD_DB names more files to
// test the same way (a database of the same generator made with the
// official SQL: make_rocpd.py --runs 1 --ddl DIR).
func rocpdFiles(t *testing.T) []string {
	files := []string{filepath.Join("testdata", "results.db"), filepath.Join("testdata", "timestamps_results.db")}
	if extra := os.Getenv("MACROSCOPE_ROCPD_DB"); extra != "" {
		files = append(files, strings.Split(extra, string(os.PathListSeparator))...)
	}
	return files
}

// oracle runs query on the database with SQLite itself (the data views
// the file defines), and returns its rows as strings joined by "|", as
// the sqlite3 tool prints them.
func oracle(t *testing.T, path, query string) []string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			parts[i] = fmt.Sprint(v)
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func same(t *testing.T, what string, got, want []string) {
	t.Helper()
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got  %q\n want %q", what, got, want)
	}
}

// threadOf returns host, pid and tid of a thread container.
func threadOf(tr *trace.Trace, c int32) (host, pid, tid string) {
	th := tr.Containers[c]
	p := tr.Containers[th.Parent]
	return tr.Containers[p.Parent].Name, p.Alias, th.Alias
}

// TestRocpdOracle compares the trace with SQL queries on the file's data
// views: per thread and name, the count and the sum of durations of each
// kind of region; per agent, queue and kernel name, of the kernels; per
// device and direction, of the copies, with their bytes; each launch (a
// HIP call and the kernel or copy of its correlation id, within its run);
// the marks, the extent and what is skipped.
func TestRocpdOracle(t *testing.T) {
	for _, path := range rocpdFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			tr, notes := load(t, func(s trace.Sink, o trace.ReadOptions) error { return readRocpd(path, s, o) })
			nodes := `JOIN rocpd_info_node N ON N.id = R.nid AND N.guid = R.guid`
			// A roctx region's name is its function's; its message, in
			// the event's extdata, names the state.
			name := `CASE WHEN R.category LIKE 'MARKER%' THEN json_extract(R.extdata, '$.message') ELSE R.name END`

			// Regions: states by thread, kind and name (roctx marks apart).
			want := oracle(t, path, `SELECT N.hostname, R.pid, R.tid, R.category, `+name+`, count(*), sum(R.duration) FROM regions R `+nodes+
				` WHERE NOT (R.category = 'MARKER_CORE_API' AND R.duration = 0) GROUP BY 1, 2, 3, 4, 5`)
			type agg struct {
				n     int
				dur   int64
				bytes float64
			}
			regions := map[string]*agg{}
			kernels := map[string]*agg{}
			copies := map[string]*agg{}
			add := func(m map[string]*agg, key string, s trace.State, bytes float64) {
				a := m[key]
				if a == nil {
					a = &agg{}
					m[key] = a
				}
				a.n++
				a.dur += int64(s.End - s.Start)
				a.bytes += bytes
			}
			categories := map[string]string{kindHIP: "HIP_RUNTIME_API_EXT", kindHSA: "HSA_CORE_API", kindMarker: "MARKER_CORE_RANGE_API"}
			for _, s := range tr.States.All() {
				kind, name := tr.Types[s.Type].Name, tr.Values[s.Value].Name
				c := tr.Containers[s.Container]
				switch kind {
				case kindKernel:
					// Agent key (absolute index), queue name.
					add(kernels, tr.Containers[c.Parent].Alias+"|"+c.Name+"|"+name, s, 0)
				case kindCopy:
					// The copies of the two runs overlap on a device's
					// copy queue: count its lanes as one.
					q, _, _ := strings.Cut(c.Name, " (overlap lane ")
					add(copies, tr.Containers[c.Parent].Alias+"|"+q+"|"+name, s, 0)
				default:
					host, pid, tid := threadOf(tr, s.Container)
					add(regions, strings.Join([]string{host, pid, tid, categories[kind], name}, "|"), s, 0)
				}
			}
			flatten := func(m map[string]*agg, bytes bool) []string {
				var out []string
				for k, a := range m {
					line := fmt.Sprintf("%s|%d|%d", k, a.n, a.dur)
					if bytes {
						line += fmt.Sprintf("|%.0f", a.bytes)
					}
					out = append(out, line)
				}
				return out
			}
			same(t, "regions", flatten(regions, false), want)
			if len(want) == 0 {
				t.Fatal("the oracle has no regions")
			}

			// Kernels: by agent, queue (named with its process when the
			// file holds several runs), name.
			runs := oracle(t, path, `SELECT count(DISTINCT guid) FROM rocpd_info_process`)[0]
			queue := `K.queue`
			if runs != "1" {
				queue = `K.queue || ' of pid ' || K.pid`
			}
			same(t, "kernels", flatten(kernels, false), oracle(t, path,
				`SELECT K.agent_abs_index, `+queue+`, K.name, count(*), sum(K.duration) FROM kernels K GROUP BY 1, 2, 3`))

			// Copies: on the device end's "Memory copies" queue, by name.
			same(t, "copies", flatten(copies, false), oracle(t, path,
				`SELECT CASE WHEN src_agent_type = 'CPU' THEN dst_agent_abs_index ELSE src_agent_abs_index END, 'Memory copies', name,
				 count(*), sum(duration) FROM memory_copies GROUP BY 1, 2, 3`))

			// Launches: every HIP call and the kernel or copy of its
			// correlation id in its run (guid), with the copy's size.
			var links []string
			for _, l := range tr.Links.All() {
				_, pid, _ := threadOf(tr, l.From)
				size := ""
				if !math.IsNaN(l.Size) {
					size = strconv.FormatFloat(l.Size, 'f', -1, 64)
				}
				links = append(links, fmt.Sprintf("%s|%s|%s|%d|%d|%s", pid, l.Key, tr.Values[l.Value].Name, l.Start, l.End, size))
			}
			same(t, "launches", links, oracle(t, path,
				`SELECT R.pid, R.corr_id, R.name, R.start, K.start, '' FROM regions R JOIN kernels K ON K.corr_id = R.corr_id AND K.guid = R.guid
				 WHERE R.category LIKE 'HIP%'
				 UNION ALL
				 SELECT R.pid, R.corr_id, R.name, R.start, M.start, M.size FROM regions R JOIN memory_copies M ON M.corr_id = R.corr_id AND M.guid = R.guid
				 WHERE R.category LIKE 'HIP%'`))

			// roctx marks: point events.
			var marks []string
			for _, e := range tr.Events.All() {
				host, pid, tid := threadOf(tr, e.Container)
				marks = append(marks, fmt.Sprintf("%s|%s|%s|%s|%d", host, pid, tid, tr.Values[e.Value].Name, e.Time))
			}
			same(t, "marks", marks, oracle(t, path, `SELECT N.hostname, R.pid, R.tid, `+name+`, R.start FROM regions R `+nodes+
				` WHERE R.category = 'MARKER_CORE_API' AND R.duration = 0`))

			// Extent.
			ext := oracle(t, path, `SELECT min(s), max(e) FROM (SELECT start s, "end" e FROM regions UNION ALL
				SELECT start, "end" FROM kernels UNION ALL SELECT start, "end" FROM memory_copies)`)
			if got := fmt.Sprintf("%d|%d", tr.Start, tr.End); got != ext[0] {
				t.Errorf("extent %s, want %s", got, ext[0])
			}

			// What is not modelled is counted.
			skipped := notes.Skipped()
			for table, what := range map[string]string{
				"rocpd_sample":          "rocpd samples (rocpd_sample: counters, not modelled)",
				"rocpd_pmc_event":       "rocpd counter values of kernels (rocpd_pmc_event, not modelled)",
				"rocpd_memory_allocate": "rocpd memory allocations (rocpd_memory_allocate, not modelled)",
			} {
				n, _ := strconv.ParseInt(oracle(t, path, `SELECT count(*) FROM `+table)[0], 10, 64)
				if n == 0 || skipped[what] != n {
					t.Errorf("skipped %q: %d, want %d", what, skipped[what], n)
				}
			}
			if len(skipped) != 3 || len(notes.Messages()) != 3 {
				t.Errorf("notes %q", notes.Messages())
			}
		})
	}
}

// TestRocpdLayouts: the released layout (times inline) and the older one
// (times in rocpd_timestamp) of the same runs give the same trace, and
// the two runs of the file stay apart: each process has its threads, its
// queues, and launches only within its run, though both number their
// correlation ids from 1.
func TestRocpdLayouts(t *testing.T) {
	dump := func(path string) []string {
		tr, _ := load(t, func(s trace.Sink, o trace.ReadOptions) error { return readRocpd(path, s, o) })
		var out []string
		for i, c := range tr.Containers[1:] {
			out = append(out, fmt.Sprintf("container %d %q %q type %s parent %d", i, c.Name, c.Alias, tr.Types[c.Type].Name, c.Parent))
		}
		for _, s := range tr.States.All() {
			out = append(out, fmt.Sprintf("state %d %s %q %d %d %d %d", s.Container, tr.Types[s.Type].Name, tr.Values[s.Value].Name, s.Start, s.End, s.Depth, s.Order))
		}
		for _, l := range tr.Links.All() {
			out = append(out, fmt.Sprintf("link %d %d %s %d %d %v", l.From, l.To, l.Key, l.Start, l.End, l.Size))
		}
		for _, e := range tr.Events.All() {
			out = append(out, fmt.Sprintf("event %d %q %d", e.Container, tr.Values[e.Value].Name, e.Time))
		}
		return out
	}
	inline, tracks := dump(filepath.Join("testdata", "results.db")), dump(filepath.Join("testdata", "timestamps_results.db"))
	if !slices.Equal(inline, tracks) {
		for i := range min(len(inline), len(tracks)) {
			if inline[i] != tracks[i] {
				t.Fatalf("the layouts differ at line %d:\n inline %s\n tracks %s", i, inline[i], tracks[i])
			}
		}
		t.Fatalf("the layouts differ: %d and %d lines", len(inline), len(tracks))
	}

	tr, _ := load(t, func(s trace.Sink, o trace.ReadOptions) error {
		return readRocpd(filepath.Join("testdata", "results.db"), s, o)
	})
	var names []string
	for i := range tr.Containers {
		if i > 0 {
			names = append(names, fullName(tr, int32(i)))
		}
	}
	want := []string{"gpu-node-01",
		"gpu-node-01/Process 4101", "gpu-node-01/Process 4101/Thread 4101", "gpu-node-01/Process 4101/Thread 4104",
		"gpu-node-01/Process 4102", "gpu-node-01/Process 4102/Thread 4102", "gpu-node-01/Process 4102/Thread 4105",
		"gpu-node-01/Agent 1 (AMD Instinct MI210)",
		"gpu-node-01/Agent 1 (AMD Instinct MI210)/Queue 1 of pid 4101", "gpu-node-01/Agent 1 (AMD Instinct MI210)/Queue 1 of pid 4102",
		"gpu-node-01/Agent 1 (AMD Instinct MI210)/Queue 2 of pid 4101", "gpu-node-01/Agent 1 (AMD Instinct MI210)/Queue 2 of pid 4102",
		"gpu-node-01/Agent 1 (AMD Instinct MI210)/Memory copies", "gpu-node-01/Agent 1 (AMD Instinct MI210)/Memory copies (overlap lane 1)",
		"gpu-node-01/Agent 2 (AMD Instinct MI210)",
		"gpu-node-01/Agent 2 (AMD Instinct MI210)/Queue 3 of pid 4101", "gpu-node-01/Agent 2 (AMD Instinct MI210)/Queue 3 of pid 4102",
		"gpu-node-01/Agent 2 (AMD Instinct MI210)/Queue 4 of pid 4101", "gpu-node-01/Agent 2 (AMD Instinct MI210)/Queue 4 of pid 4102",
		"gpu-node-01/Agent 2 (AMD Instinct MI210)/Memory copies", "gpu-node-01/Agent 2 (AMD Instinct MI210)/Memory copies (overlap lane 1)",
	}
	if !slices.Equal(names, want) {
		t.Errorf("containers\n got  %q\n want %q", names, want)
	}
	for _, l := range tr.Links.All() {
		q := tr.Containers[l.To].Name
		_, pid, _ := threadOf(tr, l.From)
		if !strings.HasPrefix(q, "Memory copies") && !strings.HasSuffix(q, " of pid "+pid) {
			t.Errorf("a launch from process %s goes to %s", pid, q)
		}
	}
}

// rocpdCopy copies the database of testdata to a temporary file and runs
// stmts on the copy (with a plain connection).
func rocpdCopy(t *testing.T, name string, stmts ...string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return path
}

const (
	run1 = "_00001005_5a1e_7c3d_9b11_0123456789ab"
	run2 = "_00001006_5a1e_7c3d_9b11_0123456789ab"
)

// TestRocpdBadRows: a region ending before it starts is skipped and
// counted; a region whose name is NULL, or names no string, is kept with
// a placeholder name and reported; a kernel whose agent is unknown is
// skipped and counted.
func TestRocpdBadRows(t *testing.T) {
	path := rocpdCopy(t, "results.db",
		`PRAGMA legacy_alter_table = ON`,
		// rocpd_region's name_id is NOT NULL: a copy without constraints
		// takes a NULL.
		`CREATE TABLE loose AS SELECT * FROM rocpd_region`+run1,
		`DROP TABLE rocpd_region`+run1,
		`ALTER TABLE loose RENAME TO rocpd_region`+run1,
		`UPDATE rocpd_region`+run1+` SET "end" = start - 1 WHERE id = 3`,
		`UPDATE rocpd_region`+run1+` SET name_id = NULL WHERE id = 4`,
		`UPDATE rocpd_region`+run2+` SET name_id = 99999 WHERE id = 5`,
		`UPDATE rocpd_kernel_dispatch`+run2+` SET agent_id = 42 WHERE id = 1`,
	)
	base, _ := load(t, func(s trace.Sink, o trace.ReadOptions) error {
		return readRocpd(filepath.Join("testdata", "results.db"), s, o)
	})
	tr, notes := load(t, func(s trace.Sink, o trace.ReadOptions) error { return readRocpd(path, s, o) })
	if got, want := tr.States.Len(), base.States.Len()-2; got != want {
		t.Errorf("%d states, want %d (one region reversed, one kernel unplaced)", got, want)
	}
	sk := notes.Skipped()
	if sk["rocpd rows ending before they start"] != 1 || sk["rocpd rows whose process, thread or agent is not in the run's info tables"] != 1 {
		t.Errorf("skipped %v", sk)
	}
	msgs := strings.Join(notes.Messages(), "\n")
	for _, w := range []string{`1 rocpd rows have no name (NULL): named "(unnamed)"`, `1 rocpd rows name a string not in rocpd_string: named "string <id>"`} {
		if !strings.Contains(msgs, w) {
			t.Errorf("notes %q lack %q", msgs, w)
		}
	}
	names := map[string]bool{}
	for _, s := range tr.States.All() {
		names[tr.Values[s.Value].Name] = true
	}
	if !names["(unnamed)"] || !names["string 99999"] {
		t.Errorf("placeholder names missing")
	}
}

// TestRocpdRefused: a database missing one of a run's tables, one with
// rocpd's views but no tables, a truncated one: FormatErrors naming the
// file and what is wrong.
func TestRocpdRefused(t *testing.T) {
	var dropAll []string
	for _, run := range []string{run1, run2} {
		for _, tb := range append(slices.Clone(rocpdTables), "metadata", "info_stream", "info_pmc", "info_code_object",
			"track", "arg", "pmc_event", "sample", "memory_allocate") {
			dropAll = append(dropAll, `DROP TABLE rocpd_`+tb+run)
		}
	}
	cases := map[string]string{
		rocpdCopy(t, "results.db", `DROP TABLE rocpd_kernel_dispatch`+run2):      `rocpd run ` + run2[1:] + `: no "rocpd_kernel_dispatch` + run2 + `" table`,
		rocpdCopy(t, "results.db", dropAll...):                                   "has rocpd's views but no rocpd_string_<uuid> table",
		rocpdCopy(t, "timestamps_results.db", `DROP TABLE rocpd_timestamp`+run1): `no "rocpd_timestamp` + run1 + `" table`,
	}
	b, err := os.ReadFile(filepath.Join("testdata", "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut_results.db")
	os.WriteFile(cut, b[:len(b)/3], 0o644)
	cases[cut] = "" // any FormatError naming the file
	for path, want := range cases {
		err := readRocpd(path, trace.New(), trace.ReadOptions{})
		var fe *errs.FormatError
		if !errors.As(err, &fe) || fe.File != path || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want a FormatError saying %q", filepath.Base(path), err, want)
		}
	}
}
