package chrome

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// cpuProfileTrace is a DevTools recording in miniature: a thread's trace
// event, the Profile event of its V8 CPU profile and two ProfileChunk
// events written on the profiler's thread (tid 9), the second defining a
// node the first did not.
const cpuProfileTrace = `[
{"ph":"M","name":"thread_name","pid":1,"tid":7,"args":{"name":"CrRendererMain"}},
{"ph":"X","name":"RunTask","pid":1,"tid":7,"ts":1000,"dur":100},
{"ph":"P","name":"Profile","cat":"disabled-by-default-v8.cpu_profiler","id":"0x1","pid":1,"tid":7,"ts":1001,"args":{"data":{"startTime":1000}}},
{"ph":"P","name":"ProfileChunk","cat":"disabled-by-default-v8.cpu_profiler","id":"0x1","pid":1,"tid":9,"ts":1050,"args":{"data":{"cpuProfile":{
 "nodes":[{"id":1,"callFrame":{"functionName":"(root)"}},{"id":2,"callFrame":{"functionName":"(program)"},"parent":1},
  {"id":3,"callFrame":{"functionName":"main"},"parent":1},{"id":4,"callFrame":{"functionName":""},"parent":3},
  {"id":5,"callFrame":{"functionName":"(idle)"},"parent":1}],
 "samples":[3,4,2,4]},"timeDeltas":[10,10,10,10]}}},
{"ph":"P","name":"ProfileChunk","cat":"disabled-by-default-v8.cpu_profiler","id":"0x1","pid":1,"tid":9,"ts":1090,"args":{"data":{"cpuProfile":{
 "nodes":[{"id":6,"callFrame":{"functionName":"f"},"parent":3}],
 "samples":[6,5,2,3]},"timeDeltas":[10,10,10,10]}}},
{"ph":"P","name":"SampleA","pid":1,"tid":7,"ts":1095,"args":{}}
]`

// TestCPUProfile: the samples of a V8 CPU profile become the nested
// states of its thread's stacks, on a container beside the thread, worked
// out by hand from the samples at 1010 (main), 1020 (main, anonymous),
// 1030 ((program), alone between two samples of main: DevTools gives it
// the stack before it), 1040 (main, anonymous), 1050 (main, f), 1060
// ((idle): nothing), 1070 ((program), after idle: kept) and 1080 (main,
// the last sample: the stacks open end there).
func TestCPUProfile(t *testing.T) {
	tr, notes := decodeNotes(t, cpuProfileTrace)
	const cat = "[disabled-by-default-v8.cpu_profiler]"
	checkLines(t, "entities", dump(tr), []string{
		"state /1/CrRendererMain Slice RunTask 1000.000-1100.000 d0",
		"state /1/CrRendererMain (CPU profile) Slice main" + cat + " 1010.000-1060.000 d0",
		"state /1/CrRendererMain (CPU profile) Slice (anonymous)" + cat + " 1020.000-1050.000 d1",
		"state /1/CrRendererMain (CPU profile) Slice f" + cat + " 1050.000-1060.000 d1",
		"state /1/CrRendererMain (CPU profile) Slice (program)" + cat + " 1070.000-1080.000 d0",
	})
	checkLines(t, "notes", notes.Messages(), []string{"skipped 1 sample events (ph P)"})
}

// TestCPUProfileParts: a profile read in parts on several cores is the
// one read on one, its chunks falling in different parts.
func TestCPUProfileParts(t *testing.T) {
	in := append(bytes.Repeat([]byte(" "), firstWindow), cpuProfileTrace...)
	if n := checkParts(t, "cpu profile", in, 200); n == 0 {
		t.Error("the trace was not read in parts")
	}
}

// TestCPUProfileUnchunked: Chrome up to 66 wrote a thread's whole profile
// in one CpuProfile instant event whose nodes name their children; it
// reads as the chunked form does, and is no instant event. Samples at
// 1005 (main), 1015 and 1025 (main, g), 1045 and 1050 ((program), not
// alone: kept).
func TestCPUProfileUnchunked(t *testing.T) {
	tr, notes := decodeNotes(t, `[
{"pid":1,"tid":7,"ts":5000,"ph":"I","cat":"disabled-by-default-devtools.timeline","name":"CpuProfile","args":{"data":{"cpuProfile":{
 "nodes":[{"id":1,"callFrame":{"functionName":"(root)"},"children":[2,3]},{"id":2,"callFrame":{"functionName":"(program)"}},
  {"id":3,"callFrame":{"functionName":"main"},"children":[4]},{"id":4,"callFrame":{"functionName":"g"}}],
 "startTime":1000,"endTime":1100,"samples":[3,4,4,2,2],"timeDeltas":[5,10,10,20,5]}}}},
{"pid":1,"tid":7,"ts":5000,"ph":"I","s":"t","name":"Mark","args":{}}
]`)
	const cat = "[disabled-by-default-devtools.timeline]"
	checkLines(t, "entities", dump(tr), []string{
		"state /1/7 (CPU profile) Slice main" + cat + " 1005.000-1045.000 d0",
		"state /1/7 (CPU profile) Slice g" + cat + " 1015.000-1045.000 d1",
		"state /1/7 (CPU profile) Slice (program)" + cat + " 1045.000-1050.000 d0",
		"event /1/7 Instant Mark 5000.000",
	})
	checkLines(t, "notes", notes.Messages(), nil)
}

// TestCPUProfileCycle: a corrupt profile whose parents go round a cycle
// reads, its stacks cut at the number of nodes, instead of looping.
func TestCPUProfileCycle(t *testing.T) {
	tr, _ := decodeNotes(t, `[
{"ph":"P","name":"Profile","id":"1","pid":1,"tid":1,"ts":0,"args":{"data":{"startTime":0}}},
{"ph":"P","name":"ProfileChunk","id":"1","pid":1,"tid":1,"ts":0,"args":{"data":{"cpuProfile":{
 "nodes":[{"id":1,"callFrame":{"functionName":"a"},"parent":2},{"id":2,"callFrame":{"functionName":"b"},"parent":1}],
 "samples":[1,1]},"timeDeltas":[1,1]}}}
]`)
	if n := tr.States.Len(); n != 2 {
		t.Errorf("%d states, want the 2 frames of the cut stack:\n%s", n, strings.Join(dump(tr), "\n"))
	}
}

// TestSampledStacksHermes reads the sampling profile of Hermes (React
// Native's engine) in the object form's stackFrames and samples; the
// frames last as long as speedscope's reading of the same file makes them
// (its snapshot of multi-thread-with-samples.json: [root] 34,096 us with
// function1 13,326 us; [root thread 2] 54,096 us with function3 13,326 us
// and function4 10,000 us).
func TestSampledStacksHermes(t *testing.T) {
	tr, err := readFile("testdata/producers/speedscope/hermes_multi_thread_with_samples.json")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range tr.States.All() {
		if c := tr.ContainerPath(s.Container, "/"); strings.HasSuffix(c, "(CPU profile)") {
			got = append(got, fmt.Sprintf("%s %s d%d %d", c, tr.Values[s.Value].Name, s.Depth, (s.End-s.Start)/1000))
		}
	}
	checkLines(t, "profile states", got, []string{
		"hermes/mqt_js (CPU profile) [root] d0 34096",
		"hermes/mqt_js (CPU profile) function1 d1 13326",
		"hermes/2 (CPU profile) [root thread 2] d0 54096",
		"hermes/2 (CPU profile) function3 d1 13326",
		"hermes/2 (CPU profile) function4 d1 10000",
	})
}

// TestCPUProfileFile reads a V8 CPU profile file (.cpuprofile, Chrome 65's
// JavaScript profiler): its frames last as speedscope's snapshot of the
// same file has them ((anonymous) 34,345 us; a 33,285; b 17,002 and c
// 16,283, each calling d for all its time).
func TestCPUProfileFile(t *testing.T) {
	tr, err := readFile("testdata/producers/speedscope/simple.cpuprofile")
	if err != nil {
		t.Fatal(err)
	}
	checkLines(t, "states", frameTimes(tr), []string{
		"0/CPU profile (anonymous) d0 34345",
		"0/CPU profile a d1 33285",
		"0/CPU profile b d2 17002",
		"0/CPU profile d d3 17002",
		"0/CPU profile c d2 16283",
		"0/CPU profile d d3 16283",
	})
	in := `{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"}}],"startTime":0,"samples":[],"timeDeltas":[]}`
	if _, notes := decodeNotes(t, in); len(notes.Messages()) != 0 {
		t.Errorf("a profile without samples: notes %q", notes.Messages())
	}
	tr2 := trace.New()
	for _, in := range []string{`{"startTime":0,"samples":[1]}`, `{"nodes":[{"id":2,"parent":1}],"start_ts":6278907328}`} {
		err = Decode(strings.NewReader(in), "x.cpuprofile", 0, tr2, trace.ReadOptions{})
		if err == nil || !strings.Contains(err.Error(), "no traceEvents array (nor the nodes, samples and timeDeltas of a CPU profile, nor stackFrames and samples)") {
			t.Errorf("%s: %v", in, err)
		}
	}
}

// frameTimes writes each state of tr as its container, frame, depth and
// duration in whole microseconds, as speedscope's snapshots give them.
func frameTimes(tr *trace.Trace) []string {
	var lines []string
	for _, s := range tr.States.All() {
		lines = append(lines, fmt.Sprintf("%s %s d%d %d", tr.ContainerPath(s.Container, "/"), tr.Values[s.Value].Name, s.Depth, (s.End-s.Start)/1000))
	}
	return lines
}

// TestCPUProfileOldForm reads a CPU profile of V8's older form (the call
// tree under head, and the samples' times in timestamps), as Node 10's
// v8-profiler wrote it: its frames last as speedscope's snapshot of the same
// file has them ((anonymous) 44,777 us; a 33,202; b 16,788 and c 16,414,
// each calling d for all its time). Its 30 timestamps for 29 samples are
// said, the last one left out as speedscope does. Was refused as having
// "no traceEvents array".
func TestCPUProfileOldForm(t *testing.T) {
	data, err := os.ReadFile("testdata/producers/speedscope/node10_example.cpuprofile")
	if err != nil {
		t.Fatal(err)
	}
	tr, notes := decodeNotes(t, string(data))
	checkLines(t, "states", frameTimes(tr), []string{
		"0/CPU profile (anonymous) d0 44777",
		"0/CPU profile a d1 33202",
		"0/CPU profile b d2 16788",
		"0/CPU profile d d3 16788",
		"0/CPU profile c d2 16414",
		"0/CPU profile d d3 16414",
	})
	checkLines(t, "notes", notes.Messages(), []string{"1 CPU profile chunks (ProfileChunk or CpuProfile events, .cpuprofile files) whose samples and timeDeltas differ in length: the extra ones are skipped"})
	for _, s := range tr.States.All() {
		if s.Start != 163140599286000 {
			t.Errorf("first sample at %d ns, want the first timestamp, 163140599286000", s.Start)
		}
		break
	}
	// Fractional microseconds keep their nanoseconds; a head that is not a
	// tree is said, not read as an empty profile.
	tr2, _ := decodeNotes(t, `{"head":{"id":1,"functionName":"(root)","children":[{"id":2,"functionName":"f","children":[]}]},`+
		`"samples":[2,2,1],"timestamps":[10.5,11.25,12.125],"startTime":0}`)
	checkLines(t, "fractional", dump(tr2), []string{"state /0/CPU profile Slice f 10.500-12.125 d0"})
	_, bad := decodeNotes(t, `{"head":[1],"samples":[1],"timestamps":[1]}`)
	checkLines(t, "bad head", bad.Messages(), []string{"skipped 1 CPU profiles (head, samples, timestamps) that do not parse"})
	// Both forms in one object: the current one, complete, is read.
	tr3, both := decodeNotes(t, `{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"}},{"id":2,"callFrame":{"functionName":"g"},"parent":1}],`+
		`"samples":[2,2,1],"timeDeltas":[1,1,1],"startTime":0,"head":[1],"timestamps":[1]}`)
	checkLines(t, "both forms", dump(tr3), []string{"state /0/CPU profile Slice g 1.000-3.000 d0"})
	checkLines(t, "both forms notes", both.Messages(), nil)
}

// TestCPUProfileHostile: a .cpuprofile whose timeDeltas add up beyond the
// clock's range keeps the samples before (was wrapped round to negative
// times), and a node a parent names as its child but that has no entry
// of its own is no frame (was a frame named by the reader's first string).
func TestCPUProfileHostile(t *testing.T) {
	for _, c := range []struct {
		name, in    string
		want, notes []string
	}{
		{"huge timeDeltas", `{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"}},{"id":2,"callFrame":{"functionName":"f"},"parent":1}],` +
			`"samples":[2,2,2],"timeDeltas":[1,9000000000000000,9000000000000000],"startTime":0}`,
			[]string{"state /0/CPU profile Slice f 1.000-9000000000000001000ns d0"},
			[]string{"skipped 1 CPU profile samples whose timeDeltas add up beyond the clock's range"}},
		{"negative timeDeltas", `{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"}},{"id":2,"callFrame":{"functionName":"f"},"parent":1},{"id":3,"callFrame":{"functionName":"g"},"parent":1}],` +
			`"samples":[2,3,2],"timeDeltas":[-1,-9000000000000000,-9000000000000000],"startTime":0}`,
			[]string{"state /0/CPU profile Slice g -9000000000000001000ns--1.000 d0"},
			[]string{"skipped 1 CPU profile samples whose timeDeltas add up beyond the clock's range"}},
		{"lengths differ", `{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"}},{"id":2,"callFrame":{"functionName":"f"},"parent":1}],` +
			`"samples":[2,2,2],"timeDeltas":[1,1],"startTime":0}`,
			[]string{"state /0/CPU profile Slice f 1.000-2.000 d0"},
			[]string{"1 CPU profile chunks (ProfileChunk or CpuProfile events, .cpuprofile files) whose samples and timeDeltas differ in length: the extra ones are skipped"}},
		{"missing node", `{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"},"children":[2,3]},{"id":3,"callFrame":{"functionName":"g"}}],` +
			`"samples":[3,2,3],"timeDeltas":[1,1,1],"startTime":0}`,
			[]string{"state /0/CPU profile Slice g 1.000-2.000 d0"}, nil},
	} {
		tr, notes := decodeNotes(t, c.in)
		checkLines(t, c.name, dump(tr), c.want)
		checkLines(t, c.name+" notes", notes.Messages(), c.notes)
	}
}

// randomCPUProfile writes a .cpuprofile of random trees: nodes whose
// parents may be missing, never defined (named only as children) or go
// round a cycle, "(program)", "(idle)" and "(garbage collector)" frames,
// and timeDeltas that may go back in time or be equal.
func randomCPUProfile(r *rand.Rand) string {
	names := []string{"(program)", "(idle)", "(garbage collector)", "f", "g", "h", ""}
	nodes := 2 + r.IntN(30)
	var b strings.Builder
	b.WriteString(`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"}`)
	if r.IntN(4) == 0 {
		fmt.Fprintf(&b, `,"children":[%d]`, 2+r.IntN(nodes+3))
	}
	b.WriteString("}")
	for id := 2; id <= nodes; id++ {
		if r.IntN(10) == 0 {
			continue // never defined
		}
		parent := 1 + r.IntN(id-1)
		switch r.IntN(12) {
		case 0:
			parent = id + r.IntN(5) // a cycle, or a parent never defined
		case 1:
			parent = 99
		}
		fmt.Fprintf(&b, `,{"id":%d,"callFrame":{"functionName":%q},"parent":%d}`, id, names[r.IntN(len(names))], parent)
	}
	samples := r.IntN(60)
	b.WriteString(`],"samples":[`)
	for i := 0; i < samples; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprint(&b, 1+r.IntN(nodes+2))
	}
	b.WriteString(`],"timeDeltas":[`)
	for i := 0; i < samples; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprint(&b, r.IntN(20)-3)
	}
	b.WriteString(`],"startTime":100}`)
	return b.String()
}

// TestCPUProfileStacksWalked: the samples' stacks found from the open
// frames and the depths remembered are those of walking each sample's
// stack whole, on random trees and on a stack 20,000 deep sampled at
// alternate depths (which took the whole walk 12 s of CPU).
func TestCPUProfileStacksWalked(t *testing.T) {
	var deep strings.Builder
	const depth = 20000
	deep.WriteString(`{"nodes":[{"id":0,"callFrame":{"functionName":"(root)"}}`)
	for i := 1; i <= depth; i++ {
		fmt.Fprintf(&deep, `,{"id":%d,"callFrame":{"functionName":"f%d"},"parent":%d}`, i, i%7, i-1)
	}
	deep.WriteString(`],"samples":[`)
	for i := 0; i < depth; i++ {
		fmt.Fprintf(&deep, "%d,", depth-i%2)
	}
	deep.WriteString(`1],"timeDeltas":[`)
	for i := 0; i < depth; i++ {
		deep.WriteString("1,")
	}
	deep.WriteString(`1],"startTime":0}`)
	tr, _ := decodeNotes(t, deep.String())
	got := dump(tr)
	// The outer 19,999 frames last from the first sample to the one of
	// the last, node 1; the deepest opens at every other sample: 10,000.
	if len(got) != depth-1+depth/2 {
		t.Errorf("deep stack: %d states", len(got))
	}
	if want := "state /0/CPU profile Slice f1 1.000-20001.000 d0"; len(got) == 0 || got[0] != want {
		t.Errorf("deep stack: first state %q, want %q", got[0], want)
	}

	r := rand.New(rand.NewPCG(35, 1))
	for i := 0; i < 400; i++ {
		in := randomCPUProfile(r)
		tr, notes := decodeNotes(t, in)
		walkWholeStacks = true
		want, wantNotes := decodeNotes(t, in)
		walkWholeStacks = false
		checkLines(t, in, dump(tr), dump(want))
		checkLines(t, in+" notes", notes.Messages(), wantNotes.Messages())
	}
}

// TestSamplesWithoutTraceEvents: an object holding only the stackFrames
// and samples of a sampling profile (Hermes' file without its two
// metadata events) is the trace of its samples: the same states as with
// an empty traceEvents array. It used to be refused as having no
// traceEvents.
func TestSamplesWithoutTraceEvents(t *testing.T) {
	data, err := os.ReadFile("testdata/producers/speedscope/hermes_simple_with_samples.json")
	if err != nil {
		t.Fatal(err)
	}
	var object map[string]json.RawMessage
	if err := json.Unmarshal(data, &object); err != nil {
		t.Fatal(err)
	}
	delete(object, "traceEvents")
	without, _ := json.Marshal(object)
	object["traceEvents"] = json.RawMessage("[]")
	empty, _ := json.Marshal(object)
	got, _ := decodeNotes(t, string(without))
	want, _ := decodeNotes(t, string(empty))
	if want.States.Len() == 0 {
		t.Fatal("the samples gave no state")
	}
	checkLines(t, "entities", dump(got), dump(want))
}
