package chrome

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestRocprofV1Nanoseconds reads rocprof v1's JSON (testdata/producers/
// rocprof, HIP and HSA calls, copies and kernels on two GPUs): ts and dur
// are strings of whole microseconds, truncated, and args.BeginNs,
// args.EndNs the exact times. Each state lasts EndNs - BeginNs and starts
// at BeginNs, as encoding/json reads them from the file; before, the
// 2,037 hsa_system_get_info calls of about a microsecond each lasted 0,
// 1 or 2 µs by their truncated ts and dur.
func TestRocprofV1Nanoseconds(t *testing.T) {
	const path = "testdata/producers/rocprof/memcpy-host-device.rocprofiler.json.gz"
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []struct {
			Ph, Name string
			Args     map[string]any
		}
	}
	if err := json.NewDecoder(z).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	type span struct{ start, end int64 }
	want := map[string][]span{} // by name, in file order
	for _, e := range doc.TraceEvents {
		if e.Ph != "X" {
			continue
		}
		b, _ := strconv.ParseInt(e.Args["BeginNs"].(string), 10, 64)
		x, _ := strconv.ParseInt(e.Args["EndNs"].(string), 10, 64)
		want[e.Name] = append(want[e.Name], span{b, x})
	}
	tr, err := readFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]map[span]int{}
	n := 0
	for i := range tr.States.Len() {
		s := tr.States.At(i)
		name := tr.Values[s.Value].Name
		if got[name] == nil {
			got[name] = map[span]int{}
		}
		got[name][span{int64(s.Start), int64(s.End)}]++
		n++
	}
	if n != 2636 {
		t.Errorf("%d states, want 2636 (the X events)", n)
	}
	bad := 0
	for name, spans := range want {
		for _, w := range spans {
			if got[name][w] == 0 {
				if bad++; bad <= 3 {
					t.Errorf("%s: no state from %d to %d ns", name, w.start, w.end)
				}
				continue
			}
			got[name][w]--
		}
	}
	if bad > 0 {
		t.Errorf("%d states differ from BeginNs-EndNs", bad)
	}
}

// TestQuotedTimesWithoutNanoseconds: a complete event whose ts is a string
// but whose args hold no BeginNs and EndNs, or ones that disagree with ts
// (BeginNs truncated to the microsecond is not ts), keeps ts and dur.
func TestQuotedTimesWithoutNanoseconds(t *testing.T) {
	tr := decodeString(t, `[
{"ph":"X","name":"a","pid":1,"tid":1,"ts":"10","dur":"2","args":{"x":1}},
{"ph":"X","name":"b","pid":1,"tid":1,"ts":"20","dur":"2","args":{"BeginNs":"30500","EndNs":"31000"}},
{"ph":"X","name":"c","pid":1,"tid":1,"ts":"40","dur":"2","args":{"BeginNs":"40250","EndNs":"40100"}},
{"ph":"X","name":"d","pid":1,"tid":1,"ts":"50","dur":"2","args":{"BeginNs":50250,"EndNs":51750}},
{"ph":"X","name":"e","pid":1,"tid":1,"ts":60,"dur":2,"args":{"BeginNs":"60250","EndNs":"61750"}}]`)
	var got []string
	for i := range tr.States.Len() {
		s := tr.States.At(i)
		got = append(got, tr.Values[s.Value].Name+" "+strconv.FormatInt(int64(s.Start), 10)+"-"+strconv.FormatInt(int64(s.End), 10))
	}
	// d has numeric BeginNs and EndNs: read as well; e's ts is a number,
	// as no rocprof v1 writes it: its args are not looked into.
	want := "a 10000-12000 b 20000-22000 c 40000-42000 d 50250-51750 e 60000-62000"
	if g := strings.Join(got, " "); g != want {
		t.Errorf("got %s\nwant %s", g, want)
	}
}

// TestRocprofV1InParts: rocprof v1's nanoseconds are the same when the
// input is read in parts on two cores, with or without the arguments
// kept.
func TestRocprofV1InParts(t *testing.T) {
	f, err := os.Open("testdata/producers/rocprof/memcpy-host-device.rocprofiler.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	in, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	for _, keep := range []bool{false, true} {
		want := readWith(in, keep, 1<<20, 1)
		if want.err != nil || want.tr.States.Len() != 2636 {
			t.Fatalf("%v, %d states", want.err, want.tr.States.Len())
		}
		if d := sameRead(readWith(in, keep, 64<<10, 2), want); d != "" {
			t.Errorf("args %v, in parts: %s", keep, d)
		}
	}
}
