package formats

import (
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/macroscope-hpc/macroscope/core/budget"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// A hostileFile is a file (or directory) written to hurt a reader: a
// structure that loops or nests without end, a count or length of
// billions, an entity expansion, a compression the door does not undo.
type hostileFile struct {
	name   string
	format string // the format it attacks ("" for the door's own cases)
	named  bool   // read with its format named (else detected)
	// write writes it under dir and returns the path read.
	write func(t *testing.T, dir string) string
	// says is what the error must say; "" when a trace may be read.
	says string
	// where: the error must give a line or a byte offset.
	where bool
}

// pajeDefs are the definitions of the Pajé cases.
const pajeDefs = `%EventDef PajeDefineContainerType 0
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajeCreateContainer 1
% Time date
% Alias string
% Type string
% Container string
% Name string
%EndEventDef
%EventDef PajeDefineStateType 2
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajeSetState 3
% Time date
% Container string
% Type string
% Value string
%EndEventDef
`

func writeHostile(t *testing.T, path string, data []byte) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func file(name, data string) func(*testing.T, string) string {
	return func(t *testing.T, dir string) string { return writeHostile(t, filepath.Join(dir, name), []byte(data)) }
}

// varint and field write protobuf's wire format.
func varint(v uint64) []byte { return binary.AppendUvarint(nil, v) }
func field(num uint64, payload []byte) []byte {
	return append(append(varint(num<<3|2), varint(uint64(len(payload)))...), payload...)
}

// sqliteFile writes a database made by stmts.
func sqliteFile(name string, stmts ...string) func(*testing.T, string) string {
	return func(t *testing.T, dir string) string {
		path := filepath.Join(dir, name)
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
}

const endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c)"

func hostileCorpus() []hostileFile {
	var sameType, pjChain strings.Builder
	sameType.WriteString(pajeDefs + "0 T 0 T\n2 S T S\n1 0 c1 T 0 c1\n")
	for i := 2; i <= 3*trace.MaxDepth; i++ {
		fmt.Fprintf(&sameType, "1 0 c%d T c%d c%d\n", i, i-1, i)
	}
	pjChain.WriteString("Container, 0, T, 0, 10, 10, c0\n")
	for i := 1; i <= 3*trace.MaxDepth; i++ {
		fmt.Fprintf(&pjChain, "Container, c%d, T, 0, 10, 10, c%d\n", i-1, i)
	}
	deepJSON := `[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1,"args":` + strings.Repeat(`{"a":`, 1<<20) + "1" + strings.Repeat("}", 1<<20) + "}]"
	laughs := `<?xml version="1.0"?>
<!DOCTYPE HPCToolkitExperiment [
<!ENTITY lol "lol">` + func() string {
		var b strings.Builder
		prev := "&lol;"
		for i := range 10 {
			fmt.Fprintf(&b, "\n<!ENTITY lol%d \"%s\">", i, strings.Repeat(prev, 10))
			prev = fmt.Sprintf("&lol%d;", i)
		}
		return b.String()
	}() + `
]>
<HPCToolkitExperiment version="2.2"><SecCallPathProfile i="0" n="x"><SecHeader><TraceDBTable><TraceDB i="0" db-glob="*.hpctrace" db-min-time="1" db-max-time="2" u="1000000000" db-header-sz="32"/></TraceDBTable><ProcedureTable><Procedure i="1" n="&lol9;"/></ProcedureTable></SecHeader><SecCallPathProfileData><PF i="2" n="1" it="2"></PF></SecCallPathProfileData></SecCallPathProfile></HPCToolkitExperiment>
`
	hpctrace := append([]byte("HPCRUN-trace______01.01b"), make([]byte, 8)...)
	hpctrace = binary.BigEndian.AppendUint64(hpctrace, 1)
	hpctrace = binary.BigEndian.AppendUint32(hpctrace, 2)
	// A Perfetto chain of tracks, each the parent of the next, used from
	// the top down.
	var chain []byte
	const tracks, step = 3 * trace.MaxDepth, 250
	for u := uint64(1); u <= tracks; u++ {
		td := append(append([]byte{1 << 3}, varint(u)...), field(2, []byte("t"))...)
		if u > 1 {
			td = append(append(td, 5<<3), varint(u-1)...)
		}
		chain = append(chain, field(1, append([]byte{10 << 3, 1}, field(60, td)...))...)
	}
	for u, ts := uint64(step), uint64(1000); u <= tracks; u, ts = u+step, ts+10 {
		for typ := uint64(1); typ <= 2; typ++ {
			te := append(append([]byte{9 << 3}, varint(typ)...), append([]byte{11 << 3}, varint(u)...)...)
			if typ == 1 {
				te = append(te, field(23, []byte("work"))...)
			}
			p := append(append([]byte{8 << 3}, varint(ts+typ)...), 10<<3, 1)
			chain = append(chain, field(1, append(p, field(11, te)...))...)
		}
	}
	huge := append([]byte{0x0a}, varint(1<<63)...)
	negative := append([]byte{0x0a}, varint(^uint64(4))...)
	// Messages nested 100,000 deep (field 1 in field 1...), written from
	// the outside in: each level's length is known from the one inside.
	lengths := make([]uint64, 100001)
	for k := 1; k < len(lengths); k++ {
		lengths[k] = 1 + uint64(len(varint(lengths[k-1]))) + lengths[k-1]
	}
	var nested []byte
	for k := len(lengths) - 1; k > 0; k-- {
		nested = append(append(nested, 0x0a), varint(lengths[k-1])...)
	}
	return []hostileFile{
		{name: "paje containers of one type nested 30,000 deep", format: "paje", write: file("same.trace", sameType.String()),
			says: "would be nested 10001 levels deep", where: true},
		{name: "paje container its own parent", format: "paje", write: file("self.trace", pajeDefs+"0 T 0 T\n1 0 c T c c\n"),
			says: "Unknown container 'c'", where: true},
		{name: "paje container type its own parent", format: "paje", write: file("tself.trace", pajeDefs+"0 T T T\n"),
			says: "Unknown container type 'T'", where: true},
		{name: "paje event id of 23 digits", format: "paje",
			write: file("id.trace", "%EventDef PajeDefineContainerType 99999999999999999999999\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n")},
		{name: "paje definition never ended", format: "paje",
			write: file("open.trace", strings.Repeat("%EventDef PajeDefineContainerType 0\n% Alias string\n", 50000)),
			says:  "%EventDef inside the definition", where: true},
		{name: "pjdump containers nested 30,000 deep", format: "pjdump", write: file("deep.csv", pjChain.String()),
			says: "would be nested 10001 levels deep", where: true},
		{name: "pjdump container cycle", format: "pjdump",
			write: file("cycle.csv", "Container, A, T, 0, 10, 10, B\nContainer, B, T, 0, 10, 10, A\nState, A, S, 1, 2, 1, 0, x\n"),
			says:  "is not among the enclosing containers", where: true},
		{name: "paraver 4e9 CPUs", format: "paraver",
			write: file("cpus.prv", "#Paraver (01/01/2024 at 00:00):1000_ns:1(4000000000):1:4000000000(1:1)\n1:1:1:1:1:0:10:1\n"),
			says:  "bad number of CPUs", where: true},
		{name: "paraver 1e8 nodes", format: "paraver",
			write: file("nodes.prv", "#Paraver (01/01/2024 at 00:00):1000_ns:100000000(1,1):1:1(1:1)\n1:1:1:1:1:0:10:1\n"),
			says:  "bad number of nodes", where: true},
		{name: "chrome objects nested a million deep", format: "chrome", write: file("deep.json", deepJSON),
			says: "nested more than 512 deep", where: true},
		{name: "chrome ids past 64 bits", format: "chrome",
			write: file("ids.json", `[{"ph":"X","name":"a","pid":18446744073709551615,"tid":-9223372036854775808,"ts":1,"dur":1}]`)},
		{name: "speedscope nested three million deep", format: "speedscope",
			write: file("deep.speedscope.json", `{"$schema":"https://www.speedscope.app/file-format-schema.json","profiles":[`+strings.Repeat(`{"a":`, 3<<20)),
			says:  "exceeded max depth", where: true},
		{name: "speedscope a stack a million frames deep", format: "speedscope",
			write: file("stack.json", `{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[{"name":"f"}]},`+
				`"profiles":[{"type":"sampled","name":"t","unit":"seconds","startValue":0,"endValue":1,"samples":[[0`+strings.Repeat(",0", 1<<20)+`]],"weights":[1]}]}`),
			says: "nests frames more than 10000 deep"},
		{name: "speedscope frame index past the table", format: "speedscope",
			write: file("index.json", `{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[]},`+
				`"profiles":[{"type":"evented","name":"t","unit":"seconds","startValue":0,"endValue":1,"events":[{"type":"O","at":0,"frame":9223372036854775807}]}]}`),
			says: "names frame 9223372036854775807, but shared.frames holds 0"},
		{name: "rocprofv3 JSON nested three million deep", format: "rocprofv3-json",
			write: file("deep_results.json", `{"rocprofiler-sdk-tool":[`+strings.Repeat(`{"a":`, 3<<20)), says: "exceeded max depth", where: true},
		{name: "rocprofv3 CSV times of 30 digits", format: "rocprofv3-csv",
			write: file("1_kernel_trace.csv", `"Kind","Agent_Id","Queue_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp"`+"\n"+
				`"KERNEL_DISPATCH",1,1,1,"k",1,999999999999999999999999999999,1`+"\n")},
		{name: "rocprof v1 CSV times of 30 digits", format: "rocprof-csv",
			write: file("results.csv", "Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,arch_vgpr,accum_vgpr,sgpr,wave_size,sig,obj,DispatchNs,BeginNs,EndNs,CompleteNs\n"+
				"0,k,0,0,0,1,1,1,1,0,0,0,0,0,64,0,0,1,999999999999999999999999999999,2,3\n")},
		{name: "nsys StringIds an endless view", format: "nsys", named: true, write: sqliteFile("v.sqlite",
			"CREATE VIEW StringIds AS "+endless+" SELECT x AS id, 'v' AS value FROM c",
			"CREATE TABLE TARGET_INFO_SESSION_START_TIME(utcEpochNs INT)",
			"CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INT, end INT, globalTid INT, correlationId INT, nameId INT)"),
			says: "is a view"},
		{name: "rpd rocpd_op an endless view", format: "rpd", named: true, write: sqliteFile("v.rpd",
			"CREATE TABLE rocpd_string(id INTEGER PRIMARY KEY, string TEXT)",
			"CREATE TABLE rocpd_api(id INTEGER PRIMARY KEY, pid INT, tid INT, start INT, \"end\" INT, apiName_id INT, args_id INT)",
			"CREATE VIEW rocpd_op AS "+endless+" SELECT x AS id, 1 AS gpuId, 1 AS queueId, x AS start, x AS \"end\", 1 AS description_id, 1 AS opType_id FROM c"),
			says: "is a view"},
		{name: "rocpd a database with a trigger and no table of its own", format: "rocpd", named: true, write: sqliteFile("t.db",
			"CREATE TABLE x(a)", "CREATE TRIGGER tr AFTER INSERT ON x BEGIN DELETE FROM x; END")},
		{name: "hpctoolkit experiment.xml of a billion laughs", format: "hpctoolkit",
			write: func(t *testing.T, dir string) string {
				db := filepath.Join(dir, "laughs")
				writeHostile(t, filepath.Join(db, "experiment.xml"), []byte(laughs))
				writeHostile(t, filepath.Join(db, "app-000000-000-0-1-0.hpctrace"), slices.Concat(hpctrace, hpctrace[len(hpctrace)-12:]))
				return db
			}, says: "invalid character entity &lol9;", where: true},
		{name: "xplane field of 2^63 bytes", format: "xplane", write: file("h.xplane.pb", string(append(huge, "abc"...))),
			says: "announces 9223372036854775808 bytes", where: true},
		{name: "xplane field of a negative length", format: "xplane", write: file("n.xplane.pb", string(append(negative, "abc"...))),
			says: "announces 18446744073709551611 bytes", where: true},
		{name: "xplane messages nested 100,000 deep", format: "xplane", write: file("d.xplane.pb", string(nested))},
		{name: "perfetto field of 2^63 bytes", format: "perfetto", write: file("h.perfetto-trace", string(append(huge, "abc"...))),
			says: "announces 9223372036854775808 bytes", where: true},
		{name: "perfetto field of a negative length", format: "perfetto", write: file("n.perfetto-trace", string(append(negative, "abc"...))),
			says: "announces 18446744073709551611 bytes", where: true},
		{name: "perfetto tracks chained 30,000 deep", format: "perfetto", write: file("chain.perfetto-trace", string(chain))},
		{name: "gotrace header then 0xff", format: "gotrace", named: true,
			write: file("g.trace", "go 1.99 trace\x00\x00\x00"+strings.Repeat("\xff", 64)), says: "g.trace"},
		{name: "otf2 anchor of 0xff", format: "otf2", named: true,
			write: file("traces.otf2", strings.Repeat("\xff", 1<<16))},
		{name: "xz-compressed trace", write: file("trace.json.xz", "\xfd7zXZ\x00\x00\x04\xe6\xd6\xb4\x46"+strings.Repeat("\x00", 64)),
			says: "is xz-compressed, which Macroscope does not decompress"},
		{name: "xz-compressed trace named paje", format: "paje", named: true, write: file("t.trace", "\xfd7zXZ\x00\x00\x04"+strings.Repeat("\x00", 64)),
			says: "is xz-compressed, which Macroscope does not decompress: decompress it first (xz -d)"},
		{name: "lz4-compressed trace", write: file("t.json", "\x04\x22\x4d\x18"+strings.Repeat("\x00", 64)), says: "is lz4-compressed"},
		{name: "7z archive", write: file("t.7z", "7z\xbc\xaf\x27\x1c"+strings.Repeat("\x00", 64)), says: "is 7z-compressed"},
		{name: "zip archive named json", write: file("z.json", "PK\x03\x04"+strings.Repeat("\x00", 64)), says: "is a zip archive"},
		{name: "a link to /dev/zero", write: func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "zero.trace")
			if err := os.Symlink("/dev/zero", p); err != nil {
				t.Skip(err)
			}
			return p
		}, says: "not a regular file"},
		{name: "a directory named as a trace", write: func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "d.trace")
			os.Mkdir(p, 0o755)
			return p
		}, says: "is a directory holding no trace"},
	}
}

// TestHostileCorpus reads every hostile file through the door (Open,
// then Read), each with a watchdog and under a memory budget of 1 GiB:
// each read ends with a FormatError naming a file of the case (with its
// line or byte where the case says), or with a trace. The watchdog's
// two minutes are a safety net against a hang, not a timing assertion:
// every case ends in well under a second on an idle machine. Every
// registered format has cases.
//
// With MACROSCOPE_HOSTILE_OUT set, the corpus is also written there,
// with a manifest.json of the cases, for the Python side's test, which
// reads them in child processes with limits of time and memory
// (pybind/tests/test_hostile_corpus.py).
func TestHostileCorpus(t *testing.T) {
	corpus := hostileCorpus()
	covered := map[string]bool{}
	for _, c := range corpus {
		covered[c.format] = true
	}
	for _, f := range All {
		if !covered[f.Name] {
			t.Errorf("format %s has no hostile case", f.Name)
		}
	}
	out := os.Getenv("MACROSCOPE_HOSTILE_OUT")
	type entry struct {
		Name, Path, Format, Says string
	}
	var manifest []entry
	for i, c := range corpus {
		format := ""
		if c.named {
			format = c.format
		}
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if out != "" {
				dir = filepath.Join(out, fmt.Sprint(i))
				os.MkdirAll(dir, 0o755)
			}
			path := c.write(t, dir)
			if out != "" {
				manifest = append(manifest, entry{c.name, path, format, c.says})
			}
			meter := budget.NewMeter(1<<30, nil)
			type result struct {
				tr  *trace.Trace
				err error
			}
			done := make(chan result, 1)
			go func() {
				src, _, err := Open(path, format, nil)
				if err != nil {
					done <- result{nil, err}
					return
				}
				tr := trace.New()
				err = src.Read(tr, trace.ReadOptions{Notes: &trace.Notes{}, Hold: meter.Hold})
				done <- result{tr, err}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(2 * time.Minute):
				t.Fatalf("%s: the read has not ended after two minutes", path)
			}
			if r.err == nil {
				if c.says != "" {
					t.Errorf("read, want an error saying %q", c.says)
				}
				// The views walk the hierarchy recursively.
				for i := range r.tr.Containers {
					d := 0
					for p := int32(i); p > 0 && d <= trace.MaxDepth; p = r.tr.Containers[p].Parent {
						d++
					}
					if d > trace.MaxDepth {
						t.Fatalf("container %d is nested more than %d deep", i, trace.MaxDepth)
					}
				}
				return
			}
			var fe *errs.FormatError
			if !errors.As(r.err, &fe) || !strings.HasPrefix(fe.File, dir) {
				t.Fatalf("%v (%T), want a FormatError naming a file of %s", r.err, r.err, dir)
			}
			if c.says != "" && !strings.Contains(r.err.Error(), c.says) {
				t.Errorf("%v, want it to say %q", r.err, c.says)
			}
			if c.where && fe.Line == 0 && !fe.HasOffset() {
				t.Errorf("%v: no line nor byte", r.err)
			}
		})
	}
	if out != "" {
		b, _ := json.MarshalIndent(manifest, "", " ")
		if err := os.WriteFile(filepath.Join(out, "manifest.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
