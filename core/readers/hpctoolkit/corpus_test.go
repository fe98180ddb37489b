package hpctoolkit

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// corpus returns the path of a database of the shared trace corpus, or
// skips the test where the corpus is absent.
func corpus(t testing.TB, parts ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{"..", "..", "..", "..", "shared", "traces"}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skip("the shared trace corpus is absent: " + p)
	}
	return p
}

// The v4 databases of the corpus.
var sparseDBs = map[string][]string{
	"ping-pong":   {"pipit", "tests", "data", "ping-pong-hpctoolkit"},
	"lulesh":      {"hpctoolkit-db", "issue-233-lulesh"},
	"lmp-openmp":  {"hpctoolkit-db", "lmp-openmp"},
	"vectorAdd":   {"hpctoolkit-db", "vectorAdd"},
	"acc_f3":      {"hpctoolkit-db", "acc_f3"},
	"multithread": {"hpctoolkit-db", "multithread"},
}

// readStats reads a database and returns the trace and the per-line
// sample counts, checking the nesting of the states.
func readStats(t *testing.T, dir string, o options) (*trace.Trace, []lineStat) {
	t.Helper()
	r, err := open(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	_ = r
	tr := trace.New()
	var stats []lineStat
	if isFile(filepath.Join(dir, "meta.db")) {
		db, err := openSparse(dir, o)
		if err != nil {
			t.Fatal(err)
		}
		stats, err = db.readLines(tr, trace.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
	} else {
		db, err := openXML(dir, o)
		if err != nil {
			t.Fatal(err)
		}
		stats, err = db.readLines(tr, trace.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
	}
	checkNesting(t, tr)
	return tr, stats
}

// traceRecordCounts decodes, independently of the reader, the number of
// records of each line of a trace.db: (pEnd - pStart) / 12 of each Context
// Trace Header, with the line's profile index.
func traceRecordCounts(t *testing.T, file string) map[uint32]uint64 {
	d, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	sec := le.Uint64(d[0x18:])
	pTraces, n, sz := le.Uint64(d[sec:]), le.Uint32(d[sec+8:]), uint64(d[sec+12])
	out := map[uint32]uint64{}
	for i := range uint64(n) {
		h := pTraces + i*sz
		out[le.Uint32(d[h:])] = (le.Uint64(d[h+16:]) - le.Uint64(d[h+8:])) / 12
	}
	return out
}

// Every line delivers as many samples as trace.db holds records.
func TestSampleCounts(t *testing.T) {
	for name, parts := range sparseDBs {
		t.Run(name, func(t *testing.T) {
			dir := corpus(t, parts...)
			db, err := openSparse(dir, options{})
			if err != nil {
				t.Fatal(err)
			}
			tr := trace.New()
			stats, err := db.readLines(tr, trace.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			checkNesting(t, tr)
			want := traceRecordCounts(t, filepath.Join(dir, "trace.db"))
			if len(stats) != len(want) {
				t.Fatalf("%d lines, trace.db has %d", len(stats), len(want))
			}
			// Lines are read in tuple order: match them to their profile
			// through the container they fill.
			byCont := map[int32]int64{}
			for _, s := range stats {
				byCont[s.container] = s.samples
			}
			var total, wantTotal int64
			for _, l := range db.traces.lines {
				wantTotal += int64(want[l.prof])
			}
			for _, s := range stats {
				total += s.samples
			}
			if total != wantTotal {
				t.Errorf("%d samples in all, trace.db has %d records", total, wantTotal)
			}
			for _, l := range db.traces.lines {
				path := levels(db.profiles[l.prof].tuple, db.meta.kinds, l.prof)
				c := findContainer(t, tr, path)
				if byCont[c] != int64(want[l.prof]) {
					t.Errorf("profile %d (%s): %d samples, trace.db has %d records", l.prof, containerPath(tr, c), byCont[c], want[l.prof])
				}
			}
		})
	}
}

// findContainer returns the container at the end of a path of names.
func findContainer(t *testing.T, tr *trace.Trace, path []level) int32 {
	t.Helper()
	var names []string
	for _, l := range path {
		names = append(names, l.name)
	}
	want := strings.Join(names, "/")
	for i := range tr.Containers {
		if containerPath(tr, int32(i)) == want {
			return int32(i)
		}
	}
	t.Fatalf("no container %s", want)
	return 0
}

// goldenLine is a trace line of a golden file written by
// testdata/oracle.py, an independent decoder of the v4 formats.
type goldenLine struct {
	path    string // container path, as the reader names it
	samples []goldenSample
}

type goldenSample struct {
	t     trace.Time
	ctx   uint32
	depth int32 // -1 for an idle sample
	name  string
}

// prettyKinds maps the identifier kinds of the golden files to the
// reader's container names, for the kinds the corpus uses.
var prettyKinds = map[string]string{"NODE": "Node", "RANK": "Rank", "THREAD": "Thread", "GPUCONTEXT": "GPU context", "GPUSTREAM": "GPU stream"}

func readGolden(t *testing.T, name string) []goldenLine {
	file := filepath.Join("testdata", name+".golden")
	var r io.Reader
	if f, err := os.Open(file); err == nil {
		defer f.Close()
		r = f
	} else {
		f, err := os.Open(file + ".gz")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if r, err = gzip.NewReader(f); err != nil {
			t.Fatal(err)
		}
	}
	var out []goldenLine
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "line "); ok {
			fields := strings.Fields(rest)
			var names []string
			for _, kv := range fields[1 : len(fields)-1] {
				k, v, _ := strings.Cut(kv, "=")
				if k == "NODE" {
					n, _ := strconv.ParseUint(v, 10, 64)
					v = fmt.Sprintf("0x%x", n) // the host id as hostid(1) prints it, with 0x
				}
				names = append(names, prettyKinds[k]+" "+v)
			}
			out = append(out, goldenLine{path: strings.Join(names, "/")})
			continue
		}
		f := strings.SplitN(line, "\t", 4)
		ts, _ := strconv.ParseInt(f[0], 10, 64)
		ctx, _ := strconv.ParseUint(f[1], 10, 32)
		s := goldenSample{t: trace.Time(ts), ctx: uint32(ctx), depth: -1}
		if f[2] != "-" {
			d, _ := strconv.Atoi(f[2])
			s.depth, s.name = int32(d), f[3]
		}
		l := &out[len(out)-1]
		l.samples = append(l.samples, s)
	}
	return out
}

// At each sample, the innermost state open on its line is the frame the
// oracle finds for the sample's context, at the oracle's depth; idle
// samples have no state open.
func TestGoldenCallPaths(t *testing.T) {
	goldens := map[string][]string{
		"ping-pong":     sparseDBs["ping-pong"],
		"multithread":   sparseDBs["multithread"],
		"vectorAdd":     sparseDBs["vectorAdd"],
		"acc_f3":        sparseDBs["acc_f3"],
		"lulesh-3lines": sparseDBs["lulesh"], // lines 0, 8 and 100 of 135
		"xml-vectorAdd": {"hpctoolkit-db", "xml", "vectorAdd"},
		"xml-acc_f3":    {"hpctoolkit-db", "xml", "acc_f3"},
	}
	for name, parts := range goldens {
		t.Run(name, func(t *testing.T) {
			dir := corpus(t, parts...)
			tr, _ := readStats(t, dir, options{})
			byPath := map[string]int32{}
			for i := range tr.Containers {
				byPath[containerPath(tr, int32(i))] = int32(i)
			}
			states := map[int32][]trace.State{}
			for _, s := range tr.States.All() {
				states[s.Container] = append(states[s.Container], s)
			}
			checked := 0
			for _, gl := range readGolden(t, name) {
				c, ok := byPath[gl.path]
				if !ok {
					t.Fatalf("no container %s", gl.path)
				}
				for i, s := range gl.samples {
					if i+1 < len(gl.samples) && gl.samples[i+1].t == s.t {
						continue // overridden at once by the next sample
					}
					if i+1 == len(gl.samples) && s.t == tr.End {
						continue // the last sample at the very end lasts 0
					}
					var inner *trace.State
					for k, st := range states[c] {
						if st.Start <= s.t && s.t < st.End && (inner == nil || st.Depth > inner.Depth) {
							inner = &states[c][k]
						}
					}
					switch {
					case s.depth < 0 && inner != nil:
						t.Errorf("%s at %d: idle sample, but %s is open", gl.path, s.t, stateLine(tr, *inner))
					case s.depth >= 0 && inner == nil:
						t.Errorf("%s at %d: no state open, want %s", gl.path, s.t, s.name)
					case s.depth >= 0 && (tr.Values[inner.Value].Name != s.name || inner.Depth != s.depth):
						t.Errorf("%s at %d (context %d): innermost %s, want %s at depth %d", gl.path, s.t, s.ctx, stateLine(tr, *inner), s.name, s.depth)
					}
					checked++
				}
			}
			if checked == 0 {
				t.Fatal("no sample checked")
			}
		})
	}
}

// Frame names of chosen contexts (the enclosing function of each), as
// testdata/oracle.py finds them in meta.db.
func TestContextNames(t *testing.T) {
	dir := corpus(t, sparseDBs["ping-pong"]...)
	db, err := openSparse(dir, options{})
	if err != nil {
		t.Fatal(err)
	}
	for ctx, want := range map[uint32]string{
		167: "__GI___unlink [libc-2.17.so]",
		5:   "__GI___munmap [libc-2.17.so]",
		28:  "<unknown procedure> 0x24680 [libpsm2.so.2.2]",
		20:  "targ5030 [libpsm2.so.2.2]",
		4:   "psm_progress_wait [libmpi.so.12.1.1]",
	} {
		f, ok := db.meta.frameOf[ctx]
		if !ok {
			t.Fatalf("context %d unknown", ctx)
		}
		if got := db.meta.fr.name[f]; got != want {
			t.Errorf("context %d: frame %q, want %q", ctx, got, want)
		}
	}
	if db.meta.title != "ping-pong" {
		t.Errorf("title %q", db.meta.title)
	}
	want := []string{"SUMMARY", "NODE", "RANK", "THREAD", "GPUDEVICE", "GPUCONTEXT", "GPUSTREAM", "CORE"}
	if !slices.Equal(db.meta.kinds, want) {
		t.Errorf("identifier kinds %q, want %q", db.meta.kinds, want)
	}
}

// The values pipit's tests (tests/hpctoolkit.py) assert on the ping-pong
// database: pipit turns loops into "Loop Enter"/"Loop Leave" events apart
// from the "Enter"/"Leave" of procedures, so with loops as frames the
// procedure states are its Enter events.
func TestPipitPingPong(t *testing.T) {
	dir := corpus(t, sparseDBs["ping-pong"]...)
	for _, loops := range []bool{true, false} {
		tr, _ := readStats(t, dir, options{Loops: loops})
		enters := map[string]int{}
		sends := map[string]int{}
		recvs := map[string]int{}
		names := map[string]bool{}
		for _, s := range tr.States.All() {
			rank := tr.Containers[tr.Containers[s.Container].Parent].Name
			name := tr.Values[s.Value].Name
			if strings.HasPrefix(name, "loop") {
				names["loop"] = true
				continue
			}
			names[name] = true
			enters[rank]++
			if strings.Contains(name, "PMPI_Send") {
				sends[rank]++
			}
			if strings.Contains(name, "PMPI_Recv") {
				recvs[rank]++
			}
		}
		if enters["Rank 0"] != 117 || enters["Rank 1"] != 88 {
			t.Errorf("loops=%v: procedure states %v, pipit counts 117 and 88 Enter events", loops, enters)
		}
		for _, r := range []string{"Rank 0", "Rank 1"} {
			if sends[r] != 7 || recvs[r] != 7 {
				t.Errorf("loops=%v: %s: %d PMPI_Send and %d PMPI_Recv, pipit counts 7 and 7", loops, r, sends[r], recvs[r])
			}
		}
		want := []string{
			"<unknown procedure> 0x24680 [libpsm2.so.2.2]", "MPID_Finalize [libmpi.so.12.1.1]",
			"MPID_Recv [libmpi.so.12.1.1]", "MPI_Finalize", "PMPI_Finalize [libmpi.so.12.1.1]",
			"PMPI_Recv [libmpi.so.12.1.1]", "PMPI_Send [libmpi.so.12.1.1]", "__GI___munmap [libc-2.17.so]",
			"__GI___unlink [libc-2.17.so]", "__GI_process_vm_readv [libc-2.17.so]", "loop", "main",
			"main thread", "psm2_ep_close [libpsm2.so.2.2]", "psm2_mq_ipeek2 [libpsm2.so.2.2]",
			"psm2_mq_irecv2 [libpsm2.so.2.2]", "psm_dofinalize [libmpi.so.12.1.1]",
			"psm_progress_wait [libmpi.so.12.1.1]", "psm_recv [libmpi.so.12.1.1]",
			"psm_try_complete [libmpi.so.12.1.1]", "shm_unlink [librt-2.17.so]", "targ5030 [libpsm2.so.2.2]",
		}
		if !loops {
			want = slices.DeleteFunc(want, func(s string) bool { return s == "loop" })
		}
		var got []string
		for n := range names {
			got = append(got, n)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("loops=%v: names\n%q\nwant (pipit)\n%q", loops, got, want)
		}
		// pipit closes the last frames at the traces' maximum timestamp.
		if tr.End != 311978000 {
			t.Errorf("trace ends at %d, want 311978000 (max - min of trace.db)", tr.End)
		}
	}
}

// The databases of the corpus read whole, with their hierarchies.
func TestCorpusHierarchy(t *testing.T) {
	cases := []struct {
		parts  []string
		leaves []string // some leaf containers
		states int
	}{
		{sparseDBs["vectorAdd"], []string{"Node 0x2a803c80/Thread 0", "Node 0x2a803c80/GPU context 1/GPU stream 7"}, 335},
		{sparseDBs["lmp-openmp"], []string{"Node 0x2a803c80/Rank 0/Thread 5", "Node 0x2a803c80/Rank 3/Thread 0"}, 0},
		{[]string{"hpctoolkit-db", "xml", "vectorAdd"}, []string{"Node 0x2a803c80/Rank 0/Thread 0", "Node 0x2a803c80/Rank 0/Thread 500"}, 631},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.parts, "/"), func(t *testing.T) {
			tr, _ := readStats(t, corpus(t, c.parts...), options{})
			paths := map[string]bool{}
			for i := range tr.Containers {
				paths[containerPath(tr, int32(i))] = true
			}
			for _, l := range c.leaves {
				if !paths[l] {
					t.Errorf("no container %s", l)
				}
			}
			if tr.States.Len() != c.states {
				t.Errorf("%d states, want %d", tr.States.Len(), c.states)
			}
		})
	}
}

// A database whose trace lines hold no sample (lmp-openmp: 24 lines) reads
// as its hierarchy, with a warning saying why it has no state; one with
// samples has no such warning.
func TestEmptyTracesSaid(t *testing.T) {
	for name, want := range map[string]string{
		"lmp-openmp": "holds no sample in any of its trace lines (24): the database has no timeline, only its hierarchy",
		"vectorAdd":  "",
	} {
		dir := corpus(t, sparseDBs[name]...)
		tr := trace.New()
		notes := &trace.Notes{}
		if err := Read(dir, tr, trace.ReadOptions{Notes: notes}); err != nil {
			t.Fatal(err)
		}
		got := strings.Join(notes.Messages(), "\n")
		if want == "" && strings.Contains(got, "holds no sample") || want != "" && !strings.Contains(got, want) {
			t.Errorf("%s: notes %q, want them to say %q", name, got, want)
		}
	}
}

// XML databases: every *.hpctrace record is a sample ((size - 32) / 12
// records, as the header of experiment.xml's TraceDB says 32 bytes).
func TestXMLSampleCounts(t *testing.T) {
	for _, name := range []string{"vectorAdd", "acc_f3"} {
		t.Run(name, func(t *testing.T) {
			dir := corpus(t, "hpctoolkit-db", "xml", name)
			db, err := openXML(dir, options{})
			if err != nil {
				t.Fatal(err)
			}
			tr := trace.New()
			stats, err := db.readLines(tr, trace.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			checkNesting(t, tr)
			files, _ := filepath.Glob(filepath.Join(dir, "*.hpctrace"))
			if len(stats) != len(files) || len(files) != 2 {
				t.Fatalf("%d lines for %d files", len(stats), len(files))
			}
			for _, f := range files {
				st, _ := os.Stat(f)
				want := (st.Size() - 32) / 12
				l := xmlLineOf(f)
				c := findContainer(t, tr, l.path)
				for _, s := range stats {
					if s.container == c && s.samples != want {
						t.Errorf("%s: %d samples, want %d", filepath.Base(f), s.samples, want)
					}
				}
			}
		})
	}
}

// Canceling at the first progress report stops the read.
func TestCancel(t *testing.T) {
	dir := corpus(t, sparseDBs["lulesh"]...)
	full := trace.New()
	if err := Read(dir, full, trace.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	readertest.Cancel(t, full.States.Len(), func(sink trace.Sink, opt trace.ReadOptions) error {
		return Read(dir, sink, opt)
	})
}

// Every state equals an interval of pipit's reader (its Enter and Leave
// events paired, testdata/pipit-ping-pong.intervals), with loops as
// frames as pipit has them: same rank, depth, start, end and name.
func TestPipitIntervals(t *testing.T) {
	dir := corpus(t, sparseDBs["ping-pong"]...)
	tr, _ := readStats(t, dir, options{Loops: true})
	var got []string
	for _, s := range tr.States.All() {
		rank := strings.TrimPrefix(tr.Containers[tr.Containers[s.Container].Parent].Name, "Rank ")
		name := tr.Values[s.Value].Name
		if strings.HasPrefix(name, "loop at ") {
			name = "loop"
		}
		got = append(got, fmt.Sprintf("%s\t%d\t%d\t%d\t%s", rank, s.Depth, s.Start, s.End, name))
	}
	data, err := os.ReadFile(filepath.Join("testdata", "pipit-ping-pong.intervals"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if !strings.HasPrefix(l, "#") {
			want = append(want, l)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if len(want) != 259 {
		t.Fatalf("%d pipit intervals, want 259", len(want))
	}
	if !slices.Equal(got, want) {
		t.Errorf("states differ from pipit's intervals:\n%s", readertest.FirstDiff(strings.Join(got, "\n"), strings.Join(want, "\n")))
	}
}

func BenchmarkReadLulesh(b *testing.B) {
	dir := corpus(b, sparseDBs["lulesh"]...)
	for b.Loop() {
		if err := Read(dir, trace.New(), trace.ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
