package chrome

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

func decodeString(t *testing.T, text string) *trace.Trace {
	t.Helper()
	tr := trace.New("test.json")
	if err := Decode(strings.NewReader(text), "test.json", 0, tr, trace.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	return tr
}

// xEvents writes complete events on pid 1 tid 2, named e0, e1...
func xEvents(ts, dur []int) string {
	var b strings.Builder
	b.WriteString("[")
	for i := range ts {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"ph":"X","name":"e%d","pid":1,"tid":2,"ts":%d,"dur":%d}`, i, ts[i], dur[i])
	}
	b.WriteString("]")
	return b.String()
}

type placement struct{ lane, depth int32 }

// placements maps each state's name to its lane (0 for the thread itself)
// and depth.
func placements(t *testing.T, tr *trace.Trace) map[string]placement {
	t.Helper()
	got := map[string]placement{}
	for _, s := range tr.States.All() {
		_, lane, _ := strings.Cut(tr.Containers[s.Container].Alias, "#")
		p := placement{depth: s.Depth}
		if lane != "" {
			fmt.Sscan(lane, &p.lane)
		}
		got[tr.ValueName(s.Value)] = p
	}
	return got
}

// TestNestingLikeHTA uses the call stacks HTA's tests assert
// (tests/test_trace_call_stack.py): closed intervals, longer first on equal
// starts, zero-length slices inside the slice they touch.
func TestNestingLikeHTA(t *testing.T) {
	for _, c := range []struct {
		name    string
		ts, dur []int
		want    []placement
	}{
		{
			// HTA makes e8 [16,19] a child of e7 [12,18]; it overlaps
			// e7 without nesting, so here it goes to an overlap lane.
			name: "df",
			ts:   []int{0, 1, 3, 3, 7, 8, 10, 12, 16},
			dur:  []int{10, 5, 2, 1, 3, 1, 11, 6, 3},
			want: []placement{{0, 0}, {0, 1}, {0, 2}, {0, 3}, {0, 1}, {0, 2}, {0, 0}, {0, 1}, {1, 0}},
		},
		{
			name: "sort events without zero duration",
			ts:   []int{0, 0, 5, 5},
			dur:  []int{10, 5, 1, 5},
			want: []placement{{0, 0}, {0, 1}, {0, 2}, {0, 1}},
		},
		{
			name: "sort events with zero duration",
			ts:   []int{0, 0, 4, 5},
			dur:  []int{0, 5, 0, 0},
			want: []placement{{0, 1}, {0, 0}, {0, 1}, {0, 1}},
		},
		{
			name: "call stack with zero duration events",
			ts:   []int{55, 61, 62, 85, 86, 86, 90, 91},
			dur:  []int{0, 15, 0, 1, 0, 0, 225181, 0},
			want: []placement{{0, 0}, {0, 0}, {0, 1}, {0, 0}, {0, 1}, {0, 2}, {0, 0}, {0, 1}},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := placements(t, decodeString(t, xEvents(c.ts, c.dur)))
			for i, w := range c.want {
				if g := got[fmt.Sprintf("e%d", i)]; g != w {
					t.Errorf("e%d [%d,%d]: got lane %d depth %d, want lane %d depth %d",
						i, c.ts[i], c.ts[i]+c.dur[i], g.lane, g.depth, w.lane, w.depth)
				}
			}
		})
	}
}

func TestOverlapLanes(t *testing.T) {
	tr := decodeString(t, `{"traceEvents": [
		{"ph":"X","name":"a","pid":1,"tid":3,"ts":0,"dur":10},
		{"ph":"X","name":"b","pid":1,"tid":3,"ts":5,"dur":10},
		{"ph":"X","name":"c","pid":1,"tid":3,"ts":12,"dur":2},
		{"ph":"X","name":"d","pid":1,"tid":3,"ts":6,"dur":1},
		{"ph":"X","name":"e","pid":1,"tid":3,"ts":8,"dur":4},
		{"ph":"X","name":"f","pid":1,"tid":3,"ts":20,"dur":10},
		{"ph":"X","name":"g","pid":1,"tid":3,"ts":9,"dur":7},
		{"ph":"M","name":"thread_name","pid":1,"tid":3,"args":{"name":"worker"}},
		{"ph":"X","name":"launch","pid":1,"tid":9,"ts":0,"dur":2},
		{"ph":"s","cat":"c","name":"n","id":1,"pid":1,"tid":9,"ts":1},
		{"ph":"f","cat":"c","name":"n","id":1,"pid":1,"tid":3,"ts":12.5,"bp":"e"}
	]}`)
	// b overlaps a, so lane 1; d is inside a and b, and nests in b, the
	// one that started last; e overlaps a but nests in b; g overlaps a
	// and e: lane 2; c is inside b and g, and nests in g.
	want := map[string]placement{"a": {0, 0}, "b": {1, 0}, "c": {2, 1}, "d": {1, 1}, "e": {1, 1}, "f": {0, 0}, "g": {2, 0}, "launch": {0, 0}}
	if got := placements(t, tr); !equalMaps(got, want) {
		t.Errorf("placements: got %v, want %v", got, want)
	}
	var names []string
	for _, c := range tr.Containers[1:] {
		names = append(names, c.Name+"="+c.Alias)
	}
	wantNames := []string{"1=1", "worker=3", "worker (overlap lane 1)=3#1", "worker (overlap lane 2)=3#2", "9=9"}
	if !slices.Equal(names, wantNames) {
		t.Errorf("containers: got %q, want %q", names, wantNames)
	}
	// The flow end at 12.5 is inside b (lane 1), g and c (lane 2); c
	// started last.
	if tr.Links.Len() != 1 {
		t.Fatalf("got %d links, want 1", tr.Links.Len())
	}
	if l := tr.Links.At(0); tr.Containers[l.To].Alias != "3#2" || l.End != 12500 || tr.Containers[l.From].Alias != "9" || l.Start != 1000 {
		t.Errorf("link: got %+v", l)
	}
}

func equalMaps[K comparable, V comparable](a, b map[K]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestBeginEnd(t *testing.T) {
	tr := decodeString(t, `[
		{"ph":"E","pid":1,"tid":1,"ts":30},
		{"ph":"B","name":"outer","pid":1,"tid":1,"ts":10},
		{"ph":"B","name":"inner","pid":1,"tid":1,"ts":15},
		{"ph":"E","pid":1,"tid":1,"ts":20},
		{"ph":"B","name":"open","pid":1,"tid":1,"ts":40},
		{"ph":"X","name":"x","pid":1,"tid":1,"ts":50,"dur":10}
	]`)
	type st struct {
		name       string
		start, end trace.Time
		depth      int32
	}
	var got []st
	for _, s := range tr.States.All() {
		got = append(got, st{tr.ValueName(s.Value), s.Start, s.End, s.Depth})
	}
	want := []st{{"outer", 10000, 30000, 0}, {"inner", 15000, 20000, 1}, {"open", 40000, 60000, 0}, {"x", 50000, 60000, 1}}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if tr.Start != 10000 || tr.End != 60000 {
		t.Errorf("range [%d, %d]", tr.Start, tr.End)
	}
}

func TestFlows(t *testing.T) {
	tr := decodeString(t, `{"displayTimeUnit": "ns", "traceEvents": [
		{"ph":"X","name":"launch","pid":1,"tid":1,"ts":100,"dur":100},
		{"ph":"X","name":"launch2","pid":1,"tid":1,"ts":300,"dur":100},
		{"ph":"X","name":"k1","pid":1,"tid":2,"ts":150,"dur":10},
		{"ph":"X","name":"k2","pid":1,"tid":2,"ts":170,"dur":10},
		{"ph":"X","name":"k3","pid":1,"tid":2,"ts":500,"dur":100},
		{"ph":"f","cat":"ac2g","name":"ac2g","id":7,"pid":1,"tid":2,"ts":170,"bp":"e"},
		{"ph":"s","cat":"ac2g","name":"ac2g","id":7,"pid":1,"tid":1,"ts":100},
		{"ph":"f","cat":"ac2g","name":"ac2g","id":7,"pid":1,"tid":2,"ts":150,"bp":"e"},
		{"ph":"s","cat":"x","name":"chain","id":"7","pid":1,"tid":1,"ts":300},
		{"ph":"t","cat":"x","name":"chain","id":"7","pid":1,"tid":2,"ts":350},
		{"ph":"f","cat":"x","name":"chain","id":"7","pid":1,"tid":2,"ts":450},
		{"ph":"f","cat":"ac2g","name":"ac2g","id":8,"pid":1,"tid":2,"ts":175,"bp":"e"},
		{"ph":"s","cat":"ac2g","name":"ac2g","id":9,"pid":1,"tid":1,"ts":110},
		{"ph":"s","cat":"loc","name":"l","id2":{"local":1},"pid":1,"tid":1,"ts":120},
		{"ph":"f","cat":"loc","name":"l","id2":{"local":1},"pid":2,"tid":1,"ts":130,"bp":"e"}
	], "otherData": {"version": 1}}`)
	type end struct {
		pid, tid string
		at       trace.Time
	}
	type lk struct {
		from, to   end
		key, value string
	}
	var got []lk
	for _, l := range tr.Links.All() {
		fp, ft := owner(tr, l.From)
		tp, tt := owner(tr, l.To)
		if l.Container != 0 || !math.IsNaN(l.Size) {
			t.Errorf("link %+v: want container 0 and NaN size", l)
		}
		got = append(got, lk{end{fp, ft, l.Start}, end{tp, tt, l.End}, l.Key, tr.ValueName(l.Value)})
	}
	want := []lk{
		{end{"1", "1", 100000}, end{"1", "2", 150000}, "ac2g:7", "ac2g"},
		{end{"1", "1", 100000}, end{"1", "2", 170000}, "ac2g:7", "ac2g"}, // fan-out
		{end{"1", "1", 300000}, end{"1", "2", 350000}, "x:7", "chain"},   // the step binds nothing, keeps its time
		{end{"1", "2", 350000}, end{"1", "2", 500000}, "x:7", "chain"},   // f without bp "e": next slice, k3
	}
	sortLinks := func(ls []lk) {
		slices.SortFunc(ls, func(a, b lk) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
	}
	sortLinks(got)
	sortLinks(want)
	if !slices.Equal(got, want) {
		t.Errorf("links:\n got %v\nwant %v", got, want)
	}
	type ev struct {
		pid, tid, what string
		at             trace.Time
	}
	var lost []ev
	for _, e := range tr.Events.All() {
		if tr.TypeName(e.Type) != "Unmatched flow" {
			t.Errorf("unexpected event type %q", tr.TypeName(e.Type))
		}
		p, th := owner(tr, e.Container)
		lost = append(lost, ev{p, th, tr.ValueName(e.Value), e.Time})
	}
	wantLost := []ev{
		{"1", "1", "ac2g: start without end", 110000},
		{"1", "1", "loc: start without end", 120000},
		{"1", "2", "ac2g: end without start", 175000},
		{"2", "1", "loc: end without start", 130000},
	}
	slices.SortFunc(lost, func(a, b ev) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
	if !slices.Equal(lost, wantLost) {
		t.Errorf("unmatched flow points:\n got %v\nwant %v", lost, wantLost)
	}
}

func TestCountersAndInstants(t *testing.T) {
	tr := decodeString(t, `[
		{"ph":"X","name":"x","pid":1,"tid":1,"ts":0,"dur":20},
		{"ph":"C","name":"mem","pid":1,"ts":10,"args":{"a":1,"b":2.5}},
		{"ph":"C","name":"mem","pid":1,"ts":5,"args":{"a":"3"}},
		{"args":{"a":4},"ph":"C","name":"mem","id":"x","pid":1,"ts":7},
		{"ph":"i","s":"g","name":"G","ts":3},
		{"ph":"i","s":"p","pid":1,"name":"P","ts":4},
		{"ph":"I","pid":1,"tid":1,"name":"T","ts":6},
		{"ph":"n","pid":1,"tid":1,"name":"N","ts":8,"id":3,"cat":"c"}
	`) // no closing bracket: allowed in the array form
	type piece struct {
		typ        string
		start, end trace.Time
		v          float64
	}
	var got []piece
	for _, v := range tr.Variables.All() {
		if tr.Containers[v.Container].Alias != "1" {
			t.Errorf("variable on container %q", tr.Containers[v.Container].Name)
		}
		got = append(got, piece{tr.TypeName(v.Type), v.Start, v.End, v.Value})
	}
	want := []piece{{"mem a", 5000, 10000, 3}, {"mem a", 10000, 20000, 1}, {"mem b", 10000, 20000, 2.5}, {"mem id: x a", 7000, 20000, 4}}
	if !slices.Equal(got, want) {
		t.Errorf("variables:\n got %v\nwant %v", got, want)
	}
	type ev struct {
		typ, cont, name string
		at              trace.Time
	}
	var events []ev
	for _, e := range tr.Events.All() {
		events = append(events, ev{tr.TypeName(e.Type), tr.ContainerPath(e.Container, "/"), tr.ValueName(e.Value), e.Time})
	}
	wantEvents := []ev{{"Global instant", "", "G", 3000}, {"Process instant", "1", "P", 4000},
		{"Instant", "1/1", "T", 6000}, {"Async instant", "1/N", "N", 8000}} // n is an async instant on the track of id 3
	if !slices.Equal(events, wantEvents) {
		t.Errorf("events:\n got %v\nwant %v", events, wantEvents)
	}
	for _, ty := range tr.Types {
		want := map[string]string{"Global instant": "", "Process instant": "Process", "Instant": "Thread", "mem a": "Process"}
		if p, ok := want[ty.Name]; ok && tr.TypeName(ty.Parent) != p {
			t.Errorf("type %q has parent %q, want %q", ty.Name, tr.TypeName(ty.Parent), p)
		}
	}
}

func TestContainerNamesAndOrder(t *testing.T) {
	tr := decodeString(t, `{"traceEvents": [
		{"ph":"X","name":"a","pid":5,"tid":5,"ts":0,"dur":1},
		{"ph":"X","name":"a","pid":3,"tid":9,"ts":0,"dur":1},
		{"ph":"X","name":"a","pid":3,"tid":"x","ts":0,"dur":1},
		{"ph":"X","name":"a","pid":3,"tid":1,"ts":0,"dur":1},
		{"ph":"X","name":"a","pid":"Spans","tid":"PyTorch Profiler","ts":0,"dur":1},
		{"ph":"X","name":"a","pid":2,"tid":2,"ts":0,"dur":1},
		{"name":"process_name","ph":"M","ts":0,"pid":3,"tid":0,"args":{"name":"python"}},
		{"name":"process_labels","ph":"M","ts":0,"pid":3,"tid":0,"args":{"labels":"GPU 0"}},
		{"name":"process_sort_index","ph":"M","ts":0,"pid":3,"tid":0,"args":{"sort_index":100}},
		{"name":"process_sort_index","ph":"M","pid":2,"args":{"sort_index":-1}},
		{"name":"thread_name","ph":"M","pid":3,"tid":9,"args":{"name":"stream 9 "}},
		{"name":"thread_sort_index","ph":"M","pid":3,"tid":1,"args":{"sort_index":50}},
		{"name":"process_uptime_seconds","ph":"M","pid":3,"args":{"uptime":12}}
	]}`)
	var got []string
	for i := range tr.Containers[1:] {
		got = append(got, tr.ContainerPath(int32(i+1), "/"))
	}
	// Kineto's "stream 9 " is shown without its trailing space.
	want := []string{"2", "2/2", "5", "5/5", "python (GPU 0)", "python (GPU 0)/stream 9", "python (GPU 0)/1", "python (GPU 0)/x",
		"Spans", "Spans/PyTorch Profiler"}
	if !slices.Equal(got, want) {
		t.Errorf("containers:\n got %q\nwant %q", got, want)
	}
	// Metadata times do not count in the trace's range.
	if tr.Start != 0 || tr.End != 1000 {
		t.Errorf("range [%d, %d]", tr.Start, tr.End)
	}
}

// TestNamesWithoutSpaces: process and thread names are shown without the
// white space around them (Kineto's "stream 7 "); a name of white space
// alone leaves the container named by its id; names that become one are
// told apart by their ids, as names shared in the file are.
func TestNamesWithoutSpaces(t *testing.T) {
	tr := decodeString(t, `[
		{"ph":"X","name":"a","pid":1,"tid":7,"ts":0,"dur":1},
		{"ph":"X","name":"a","pid":1,"tid":8,"ts":0,"dur":1},
		{"ph":"X","name":"a","pid":1,"tid":9,"ts":0,"dur":1},
		{"ph":"X","name":"a","pid":2,"tid":1,"ts":0,"dur":1},
		{"name":"process_name","ph":"M","pid":1,"args":{"name":" python\t"}},
		{"name":"process_name","ph":"M","pid":2,"args":{"name":"  "}},
		{"name":"thread_name","ph":"M","pid":1,"tid":7,"args":{"name":"stream 7 "}},
		{"name":"thread_name","ph":"M","pid":1,"tid":8,"args":{"name":"stream 7"}},
		{"name":"thread_name","ph":"M","pid":1,"tid":9,"args":{"name":" "}}
	]`)
	var got []string
	for i := range tr.Containers[1:] {
		got = append(got, tr.ContainerPath(int32(i+1), "/"))
	}
	want := []string{"python", "python/stream 7 7", "python/stream 7 8", "python/9", "2", "2/1"}
	if !slices.Equal(got, want) {
		t.Errorf("containers:\n got %q\nwant %q", got, want)
	}
}

func TestEmptyTraces(t *testing.T) {
	for _, text := range []string{"[]", "[", " [ \n", `{"traceEvents": []}`, `{"traceEvents": [], "x": {"y": [1, 2.5e3, true, null]}}`} {
		tr := decodeString(t, text)
		if len(tr.Containers) != 1 || tr.States.Len()+tr.Events.Len()+tr.Links.Len()+tr.Variables.Len() != 0 || tr.End != 0 {
			t.Errorf("%q: got %+v", text, tr)
		}
	}
}

func TestEscapesAndUnicode(t *testing.T) {
	tr := decodeString(t, `[{"ph":"X","name":"a\"b\\c\u00e9\ud83d\ude00\ud800 é","pid":1,"tid":1,"ts":"1.5","dur":"2"}]`)
	if got, want := tr.ValueName(tr.States.At(0).Value), "a\"b\\cé😀\uFFFD é"; got != want {
		t.Errorf("name %q, want %q", got, want)
	}
	if s := tr.States.At(0); s.Start != 1500 || s.End != 3500 {
		t.Errorf("times from strings: %+v", s)
	}
}

func TestProgress(t *testing.T) {
	text := xEvents([]int{0, 1, 2}, []int{1, 1, 1})
	var last int64
	err := Decode(strings.NewReader(text), "p.json", int64(len(text)), trace.New(), trace.ReadOptions{
		Progress: func(done, total int64) {
			if total != int64(len(text)) || done < last {
				t.Errorf("progress %d of %d after %d", done, total, last)
			}
			last = done
		}})
	if err != nil || last != int64(len(text)) {
		t.Errorf("err %v, last progress %d of %d", err, last, len(text))
	}
}

// goroutineID is the number of the calling goroutine, from its stack.
func goroutineID() string {
	b := make([]byte, 64)
	b = b[:runtime.Stack(b, false)]
	f := strings.Fields(string(b))
	return f[1] // "goroutine N [running]:"
}

// TestProgressOnReadingGoroutine: a compressed input is decompressed on
// a goroutine of its own, ahead of the parser; the progress callback is
// still called only on the goroutine of the read (the callers' callbacks
// need not be safe for concurrent use), in order, and in parts read on
// all cores as on one.
func TestProgressOnReadingGoroutine(t *testing.T) {
	text := nastyTrace(140000, 3) // stored, not compressed: megabytes of input
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.NoCompression)
	zw.Write(text)
	zw.Close()
	// The input's counter runs ahead of the parser, by how much depends on
	// the scheduling: by the parts in flight (parsers + 2, and the one
	// being cut) and the decompressor's read-ahead (five chunks of 1 MiB)
	// at most. A report comes at the first part's end after progressEvery
	// bytes more than the last counted, and the last report comes at the
	// end: three reports on any machine need two progressEvery, that lead
	// and three parts.
	part := partSize + partSlack
	lead := (4+3)*part + 5<<20
	if need := 2*progressEvery + lead + 3*part; gz.Len() < need {
		t.Fatalf("%d bytes compressed, want %d for three progress reports", gz.Len(), need)
	}
	for _, n := range []int{1, 4} {
		oldN := parsers
		parsers = n
		me, reports, last := goroutineID(), 0, int64(0)
		err := Decode(bytes.NewReader(gz.Bytes()), "p.json.gz", int64(gz.Len()), trace.New(), trace.ReadOptions{
			Progress: func(done, total int64) {
				if g := goroutineID(); g != me {
					t.Errorf("%d parsers: progress %d of %d reported on goroutine %s, the read's is %s", n, done, total, g, me)
				}
				if done < last {
					t.Errorf("%d parsers: progress %d after %d", n, done, last)
				}
				reports, last = reports+1, done
			}})
		parsers = oldN
		if err != nil || last != int64(gz.Len()) || reports < 3 {
			t.Errorf("%d parsers: err %v, %d reports, the last %d of %d", n, err, reports, last, gz.Len())
		}
	}
}
