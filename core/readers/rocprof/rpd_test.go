package rocprof

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The counts below come from the sqlite3 command-line tool on
// matmul_result.rpd:
//
//	SELECT count(*) FROM rocpd_api;                                  -- 125
//	SELECT count(*) FROM rocpd_op WHERE opType_id IN
//	  (SELECT id FROM rocpd_string WHERE string = 'KernelExecution'); -- 29
//	SELECT count(*) FROM rocpd_op;                                   -- 85
//	SELECT count(*) FROM rocpd_api_ops;                              -- 85
//	SELECT count(*) FROM rocpd_monitor;                              -- 15
func TestRPDCounts(t *testing.T) {
	path := corpus(t, "rpd", "matmul_result.rpd")
	tr, notes := load(t, func(s trace.Sink, o trace.ReadOptions) error { return readRPD(path, s, o) })
	got := statesByType(tr)
	want := map[string]int{kindHIP: 125, kindKernel: 29, kindCopy: 85 - 29}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("states by type %v, want %v", got, want)
	}
	if tr.Links.Len() != 85 {
		t.Errorf("%d links, want 85 (rows of rocpd_api_ops)", tr.Links.Len())
	}
	// SELECT count(*), sum(size) FROM rocpd_api_ops A JOIN rocpd_copyapi C
	// ON C.api_ptr_id = A.api_id  -> 55|2032000296
	sized, bytes := 0, 0.0
	for _, l := range tr.Links.All() {
		if !math.IsNaN(l.Size) {
			sized++
			bytes += l.Size
		}
	}
	if sized != 55 || bytes != 2032000296 {
		t.Errorf("%d links with a size, %v bytes; want 55, 2032000296", sized, bytes)
	}
	if tr.Variables.Len() != 15 {
		t.Errorf("%d variables, want 15 (rows of rocpd_monitor)", tr.Variables.Len())
	}
	if m := notes.Messages(); len(m) != 0 {
		t.Errorf("notes %q, want none", m)
	}
	// sqlite3: SELECT min(start), max("end") FROM (SELECT start, "end" FROM
	// rocpd_api UNION ALL SELECT start, "end" FROM rocpd_op UNION ALL
	// SELECT start, "end" FROM rocpd_monitor) -> 8306014165212251|8306020859003155
	if tr.Start != 8306014165212251 || tr.End != 8306020859003155 {
		t.Errorf("extent [%d, %d]", tr.Start, tr.End)
	}
}

// TestRPDOracle compares the states with rpd2tracing's Chrome JSON of the
// same run: each of its complete events (ph X) is a state with the same
// name on the same resource (pid/tid for API calls, gpuId/queueId for
// operations), at the same microsecond (ts = start/1000, dur =
// (end-start)/1000, both truncated), and its api_op flows are the links.
func TestRPDOracle(t *testing.T) {
	path := corpus(t, "rpd", "matmul_result.rpd")
	oracle := corpus(t, "rpd", "matmul_result.json")
	tr, _ := load(t, func(s trace.Sink, o trace.ReadOptions) error { return readRPD(path, s, o) })

	text, err := os.ReadFile(oracle)
	if err != nil {
		t.Fatal(err)
	}
	var events []map[string]any
	if err := json.Unmarshal(text, &events); err != nil {
		t.Fatal(err)
	}
	var want []string
	flows := map[string]int{}
	for _, e := range events {
		switch e["ph"] {
		case "X":
			want = append(want, fmt.Sprintf("%v/%v %v %v+%v", e["pid"], e["tid"], e["name"], e["ts"], e["dur"]))
		case "s", "f":
			flows[e["ph"].(string)]++
		}
	}
	// The resource of a state: pid/tid of its thread, or gpu/queue.
	resource := func(c int32) string {
		cont := tr.Containers[c]
		parent := tr.Containers[cont.Parent]
		return strings.TrimPrefix(parent.Alias, "GPU ") + "/" + strings.TrimPrefix(cont.Alias, "Queue ")
	}
	var got []string
	for _, s := range tr.States.All() {
		got = append(got, fmt.Sprintf("%s %s %d+%d", resource(s.Container), tr.Values[s.Value].Name,
			int64(s.Start)/1000, int64(s.End-s.Start)/1000))
	}
	slices.Sort(want)
	slices.Sort(got)
	if len(want) != 210 {
		t.Fatalf("the oracle has %d complete events, expected 210", len(want))
	}
	if !slices.Equal(got, want) {
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("%d states, %d oracle events; first difference:\n got  %s\n want %s", len(got), len(want), got[i], want[i])
			}
		}
		t.Fatalf("%d states, %d oracle events", len(got), len(want))
	}
	if flows["s"] != tr.Links.Len() || flows["f"] != tr.Links.Len() {
		t.Errorf("%d links, the oracle has %d flow starts and %d flow ends", tr.Links.Len(), flows["s"], flows["f"])
	}
}

// TestRPDExactTimes checks rows read with sqlite3:
//
//	SELECT start, "end" FROM rocpd_op WHERE id = 3;   -- 8306020565922417|8306020592134373
//	SELECT start, "end" FROM rocpd_api WHERE id = 1;  -- 8306017478773569|8306017478790320
func TestRPDExactTimes(t *testing.T) {
	path := corpus(t, "rpd", "matmul_result.rpd")
	tr, _ := load(t, func(s trace.Sink, o trace.ReadOptions) error { return readRPD(path, s, o) })
	found := 0
	for _, s := range tr.States.All() {
		switch {
		case s.Start == 8306020565922417:
			found++
			if s.End != 8306020592134373 || !strings.HasPrefix(tr.Values[s.Value].Name, "Cijk_Ailk_Bljk_SB_MT128x64x16") || tr.Types[s.Type].Name != kindKernel {
				t.Errorf("op 3: %+v %q", s, tr.Values[s.Value].Name)
			}
		case s.Start == 8306017478773569:
			found++
			if s.End != 8306017478790320 || tr.Values[s.Value].Name != "hipGetDeviceCount" {
				t.Errorf("api 1: %+v %q", s, tr.Values[s.Value].Name)
			}
		}
	}
	if found != 2 {
		t.Errorf("found %d of the 2 rows", found)
	}
}

// TestRPDCorrupt reads truncated copies and copies with flipped bytes:
// each read fails with a FormatError naming the file, or succeeds, and
// never panics.
func TestRPDCorrupt(t *testing.T) {
	path := corpus(t, "rpd", "matmul_result.rpd")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	try := func(name string, b []byte) error {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		err := readRPD(p, trace.New(), trace.ReadOptions{})
		var fe *errs.FormatError
		if err != nil && !errors.As(err, &fe) {
			t.Errorf("%s: %v is not a FormatError", name, err)
		}
		if err != nil && !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %v does not name the file", name, err)
		}
		return err
	}
	for _, n := range []int{0, 10, 100, 4096, 5000, len(data) / 2, len(data) - 1} {
		if err := try("cut"+strconv.Itoa(n)+".rpd", data[:n]); err == nil && n < len(data)/2 {
			t.Errorf("cut at %d: no error", n)
		}
	}
	for i := 0; i < 64; i++ {
		b := slices.Clone(data)
		at := (i*7919 + 13) % len(b)
		b[at] ^= 0x5a
		try("flip"+strconv.Itoa(at)+".rpd", b)
	}
	if err := try("empty-db.rpd", []byte(sqliteMagicOnly)); err == nil {
		t.Error("a bare SQLite header read without error")
	}
}

const sqliteMagicOnly = "SQLite format 3\x00"

// TestRPDSqlite3 asks the sqlite3 tool, when it is installed, for the
// counts of each kind in both corpus databases and compares them with the
// states, links and variables read.
func TestRPDSqlite3(t *testing.T) {
	tool, err := exec.LookPath("sqlite3")
	if err != nil {
		t.Skip("sqlite3 is not installed")
	}
	for _, name := range []string{"matmul_result.rpd", "matmul_result_large.rpd"} {
		path := corpus(t, "rpd", name)
		query := func(q string) int {
			out, err := exec.Command(tool, "-readonly", path, q).Output()
			if err != nil {
				t.Fatalf("sqlite3 %s: %v", q, err)
			}
			n, err := strconv.Atoi(strings.TrimSpace(string(out)))
			if err != nil {
				t.Fatalf("sqlite3 %s: %q", q, out)
			}
			return n
		}
		kernelType := `(SELECT id FROM rocpd_string WHERE string = 'KernelExecution')`
		want := map[string]int{
			kindHIP:    query(`SELECT count(*) FROM rocpd_api`),
			kindKernel: query(`SELECT count(*) FROM rocpd_op WHERE opType_id IN ` + kernelType),
			kindCopy:   query(`SELECT count(*) FROM rocpd_op WHERE opType_id NOT IN ` + kernelType),
		}
		links := query(`SELECT count(*) FROM rocpd_api_ops`)
		samples := query(`SELECT count(*) FROM rocpd_monitor WHERE deviceType = 'gpu'`)
		tr, _ := load(t, func(s trace.Sink, o trace.ReadOptions) error { return readRPD(path, s, o) })
		if got := statesByType(tr); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: states %v, sqlite3 says %v", name, got, want)
		}
		if tr.Links.Len() != links || tr.Variables.Len() != samples {
			t.Errorf("%s: %d links, %d variables; sqlite3 says %d, %d", name, tr.Links.Len(), tr.Variables.Len(), links, samples)
		}
	}
}
