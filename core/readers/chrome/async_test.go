package chrome

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestAsyncLanesFirstFit checks the packing rule on a small case: the
// operations of a group in order of start, each on the lowest lane free by
// then (an operation that ends when another starts leaves its lane to it),
// nested slices and instants with their operation, each id in the args.
func TestAsyncLanesFirstFit(t *testing.T) {
	tr, _ := decodeNotes(t, `[
{"ph":"b","name":"fetch","cat":"net","id":1,"pid":1,"ts":10},
{"ph":"b","name":"dns","cat":"net","id":1,"pid":1,"ts":11},
{"ph":"e","name":"dns","cat":"net","id":1,"pid":1,"ts":12},
{"ph":"e","name":"fetch","cat":"net","id":1,"pid":1,"ts":20},
{"ph":"b","name":"fetch","cat":"net","id":2,"pid":1,"ts":15},
{"ph":"n","name":"sent","cat":"net","id":2,"pid":1,"ts":16},
{"ph":"e","name":"fetch","cat":"net","id":2,"pid":1,"ts":30},
{"ph":"b","name":"fetch","cat":"net","id":3,"pid":1,"ts":20},
{"ph":"e","name":"fetch","cat":"net","id":3,"pid":1,"ts":25},
{"ph":"b","name":"fetch","cat":"net","id":1,"pid":1,"ts":26},
{"ph":"e","name":"fetch","cat":"net","id":1,"pid":1,"ts":28},
{"ph":"n","name":"late","cat":"net","id":2,"pid":1,"ts":40},
{"ph":"b","name":"paint","cat":"gfx","id":4,"pid":1,"ts":12},
{"ph":"e","name":"paint","cat":"gfx","id":4,"pid":1,"ts":13}
]`)
	checkLines(t, "containers", containerPaths(tr), []string{
		"1 (Process, alias 1)",
		"1/fetch (Async track, alias )",
		"1/fetch (overlap lane 1) (Async track, alias #1)",
		"1/paint (Async track, alias )",
	})
	checkLines(t, "entities", dump(tr), []string{
		// Lane 0: id 1 [10, 20], then id 3 from 20, then id 1 again.
		`state /1/fetch Async slice fetch[net] 10.000-20.000 d0 {"id":"1"}`,
		`state /1/fetch Async slice dns[net] 11.000-12.000 d1 {"id":"1"}`,
		`state /1/fetch Async slice fetch[net] 20.000-25.000 d0 {"id":"3"}`,
		`state /1/fetch Async slice fetch[net] 26.000-28.000 d0 {"id":"1"}`,
		// Lane 1: id 2, open while id 1 is.
		`state /1/fetch (overlap lane 1) Async slice fetch[net] 15.000-30.000 d0 {"id":"2"}`,
		`state /1/paint Async slice paint[gfx] 12.000-13.000 d0 {"id":"4"}`,
		// An instant in an operation is on its lane; one outside any is an
		// operation of its own, on the lowest lane free then.
		`event /1/fetch Async instant late[net] 40.000 {"id":"2"}`,
		`event /1/fetch (overlap lane 1) Async instant sent[net] 16.000 {"id":"2"}`,
	})
}

// asyncOpSpec is an operation the generator of TestAsyncLanesMinimal
// writes: a top-level slice of its id, maybe with a slice nested in it
// and an instant (nestable ids: a legacy event named otherwise is on
// another track, keyed by its name).
type asyncOpSpec struct {
	pid, id    int
	name       string
	start, end int
	nested     bool
	legacy     bool
}

// TestAsyncLanesMinimal reads random traces of many async ids, nestable
// and legacy, several operations per id, on two processes, and checks the
// packing against what the generator wrote: every slice is where the
// per-id form had it (same process, name, times and depth, so the time
// per state is the same) with its id in its args; the operations of a
// lane never overlap and keep their nesting; and each group has as many
// lanes as the most operations of it open at once, the fewest any
// packing can have.
func TestAsyncLanesMinimal(t *testing.T) {
	names := []string{"fetch", "paint", "decode"}
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 41))
		var ops []asyncOpSpec
		for pid := 1; pid <= 2; pid++ {
			for i := range 5 + r.IntN(40) {
				id, name, legacy := pid*1000+i, names[r.IntN(len(names))], r.IntN(4) == 0
				at := r.IntN(200)
				for range 1 + r.IntN(4) {
					d := 1 + r.IntN(60)
					ops = append(ops, asyncOpSpec{pid: pid, id: id, name: name, start: at, end: at + d, nested: !legacy && d > 2 && r.IntN(2) == 0, legacy: legacy})
					at += d + 1 + r.IntN(30) // an id's events never tie: file order would decide
				}
			}
		}
		text, groups := asyncTrace(ops, r)
		tr, _ := decodeNotes(t, text)
		checkAsyncLanes(t, seed, tr, ops, groups)
	}
}

// asyncTrace writes the operations' events in a random file order, and
// returns the name of each id's first event in the file: the name of its
// group.
func asyncTrace(ops []asyncOpSpec, r *rand.Rand) (string, map[int]string) {
	type event struct {
		text, name string
		id         int
	}
	var events []event
	for _, o := range ops {
		begin, end, key := "b", "e", fmt.Sprintf(`"cat":"c","id":%d,"pid":%d`, o.id, o.pid)
		if o.legacy {
			begin, end = "S", "F"
		}
		ev := func(ph, name string, ts int) {
			events = append(events, event{fmt.Sprintf(`{"ph":%q,"name":%q,%s,"ts":%d}`, ph, name, key, ts), name, o.id})
		}
		ev(begin, o.name, o.start)
		ev(end, o.name, o.end)
		if o.nested {
			ev(begin, "inner", o.start+1)
			ev(end, "inner", o.end-1)
		}
		if !o.legacy {
			ev("n", "mark", o.start+(o.end-o.start)/2)
		}
	}
	r.Shuffle(len(events), func(i, j int) { events[i], events[j] = events[j], events[i] })
	texts, groups := make([]string, len(events)), map[int]string{}
	for i, e := range events {
		texts[i] = e.text
		if _, ok := groups[e.id]; !ok {
			groups[e.id] = e.name
		}
	}
	return "[\n" + strings.Join(texts, ",\n") + "\n]", groups
}

func checkAsyncLanes(t *testing.T, seed uint64, tr *trace.Trace, ops []asyncOpSpec, groups map[int]string) {
	t.Helper()
	us := func(x int) trace.Time { return trace.Time(x) * 1000 }
	type slice struct {
		proc, name string
		start, end trace.Time
		depth      int32
		id         string
	}
	var want, got []slice
	for _, o := range ops {
		p, id := fmt.Sprint(o.pid), fmt.Sprint(o.id)
		want = append(want, slice{p, o.name, us(o.start), us(o.end), 0, id})
		if o.nested {
			want = append(want, slice{p, "inner", us(o.start + 1), us(o.end - 1), 1, id})
		}
	}
	// The lanes' top-level slices, by lane, in delivery order.
	lanes := map[int32][]trace.State{}
	for i, s := range tr.States.All() {
		c := tr.Containers[s.Container]
		var args struct{ ID string }
		if err := json.Unmarshal([]byte(tr.ArgsOf(trace.KindState, i)), &args); err != nil {
			t.Fatalf("seed %d: args of state %d: %v", seed, i, err)
		}
		got = append(got, slice{tr.Containers[c.Parent].Name, tr.Values[s.Value].Name, s.Start, s.End, s.Depth, args.ID})
		if s.Depth == 0 {
			lanes[s.Container] = append(lanes[s.Container], s)
		}
	}
	order := func(a, b slice) int {
		return cmp.Or(cmp.Compare(a.proc, b.proc), cmp.Compare(a.id, b.id), cmp.Compare(a.start, b.start), cmp.Compare(a.depth, b.depth))
	}
	slices.SortFunc(want, order)
	slices.SortFunc(got, order)
	if !slices.Equal(got, want) {
		t.Fatalf("seed %d: slices differ from the per-id form:\n got %v\nwant %v", seed, got, want)
	}
	for c, ss := range lanes {
		for k := 1; k < len(ss); k++ {
			if ss[k].Start < ss[k-1].End {
				t.Errorf("seed %d: lane %s: [%d, %d] overlaps [%d, %d]", seed, tr.ContainerPath(c, "/"), ss[k].Start, ss[k].End, ss[k-1].Start, ss[k-1].End)
			}
		}
	}
	// The group of an id is its process and the name of its first event
	// in the file: count the lanes of each and the most of its operations
	// open at once.
	type group struct{ proc, name string }
	lanesOf := map[group]int{}
	for c := range lanes {
		name, _, _ := strings.Cut(tr.Containers[c].Name, " (overlap lane ")
		lanesOf[group{tr.Containers[tr.Containers[c].Parent].Name, name}]++
	}
	type edge struct {
		at    int
		delta int
	}
	edges := map[group][]edge{}
	for _, o := range ops {
		g := group{fmt.Sprint(o.pid), groups[o.id]}
		edges[g] = append(edges[g], edge{o.start, 1}, edge{o.end, -1})
	}
	for g, es := range edges {
		// Ends before starts at one instant: an operation ending then
		// leaves its lane to one starting then.
		slices.SortFunc(es, func(a, b edge) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.delta, b.delta)) })
		open, most := 0, 0
		for _, e := range es {
			open += e.delta
			most = max(most, open)
		}
		if lanesOf[g] != most {
			t.Errorf("seed %d: group %v has %d lanes, %d operations open at once", seed, g, lanesOf[g], most)
		}
	}
	if len(lanesOf) != len(edges) {
		t.Errorf("seed %d: %d groups with lanes, %d in the trace", seed, len(lanesOf), len(edges))
	}
}

// TestLaneNamesTaken: a trace whose threads and async tracks are named as
// lanes are (one converted before: "worker (overlap lane 1)" beside
// "worker", "fetch (overlap lane 1)" beside "fetch") gets lanes that take
// the next names free, so that no two containers of the process share a
// path; each slice stays on its own container.
func TestLaneNamesTaken(t *testing.T) {
	tr, _ := decodeNotes(t, `[
{"ph":"M","name":"thread_name","pid":1,"tid":3,"args":{"name":"worker"}},
{"ph":"M","name":"thread_name","pid":1,"tid":4,"args":{"name":"worker (overlap lane 1)"}},
{"ph":"X","name":"a","pid":1,"tid":3,"ts":0,"dur":10},
{"ph":"X","name":"b","pid":1,"tid":3,"ts":5,"dur":10},
{"ph":"X","name":"own","pid":1,"tid":4,"ts":0,"dur":1},
{"ph":"b","name":"fetch","cat":"net","id":1,"pid":1,"ts":10},
{"ph":"e","name":"fetch","cat":"net","id":1,"pid":1,"ts":20},
{"ph":"b","name":"fetch","cat":"net","id":2,"pid":1,"ts":15},
{"ph":"e","name":"fetch","cat":"net","id":2,"pid":1,"ts":30},
{"ph":"b","name":"fetch (overlap lane 1)","cat":"net","id":3,"pid":1,"ts":1},
{"ph":"e","name":"fetch (overlap lane 1)","cat":"net","id":3,"pid":1,"ts":2}
]`)
	checkLines(t, "containers", containerPaths(tr), []string{
		"1 (Process, alias 1)",
		"1/worker (Thread, alias 3)",
		"1/worker (overlap lane 2) (Thread, alias 3#1)",
		"1/worker (overlap lane 1) (Thread, alias 4)",
		"1/fetch (Async track, alias )",
		"1/fetch (overlap lane 2) (Async track, alias #1)",
		"1/fetch (overlap lane 1) (Async track, alias )",
	})
	checkLines(t, "entities", dump(tr), []string{
		`state /1/worker Slice a 0.000-10.000 d0`,
		`state /1/worker (overlap lane 2) Slice b 5.000-15.000 d0`,
		`state /1/worker (overlap lane 1) Slice own 0.000-1.000 d0`,
		`state /1/fetch Async slice fetch[net] 10.000-20.000 d0 {"id":"1"}`,
		`state /1/fetch (overlap lane 2) Async slice fetch[net] 15.000-30.000 d0 {"id":"2"}`,
		`state /1/fetch (overlap lane 1) Async slice fetch (overlap lane 1)[net] 1.000-2.000 d0 {"id":"3"}`,
	})
}

// TestAsyncGroupNamedAsThread: an async group named as a thread of its
// process ("fetch"), and one named as that group would be renamed ("io"
// beside a thread "io" and a group "io (async)"), take names of their
// own, so that no two containers of the process share a path; their
// lanes follow their names, and each slice stays on its own container.
// The threads keep theirs, and so does a group named as a thread of
// another process.
func TestAsyncGroupNamedAsThread(t *testing.T) {
	tr, _ := decodeNotes(t, `[
{"ph":"M","name":"thread_name","pid":1,"tid":3,"args":{"name":"fetch"}},
{"ph":"M","name":"thread_name","pid":1,"tid":4,"args":{"name":"io"}},
{"ph":"M","name":"thread_name","pid":2,"tid":5,"args":{"name":"net"}},
{"ph":"X","name":"a","pid":1,"tid":3,"ts":0,"dur":10},
{"ph":"X","name":"c","pid":1,"tid":4,"ts":0,"dur":10},
{"ph":"b","name":"fetch","cat":"net","id":1,"pid":1,"ts":10},
{"ph":"e","name":"fetch","cat":"net","id":1,"pid":1,"ts":20},
{"ph":"b","name":"fetch","cat":"net","id":2,"pid":1,"ts":15},
{"ph":"e","name":"fetch","cat":"net","id":2,"pid":1,"ts":30},
{"ph":"b","name":"io","cat":"disk","id":3,"pid":1,"ts":1},
{"ph":"e","name":"io","cat":"disk","id":3,"pid":1,"ts":2},
{"ph":"b","name":"io (async)","cat":"disk","id":4,"pid":1,"ts":3},
{"ph":"e","name":"io (async)","cat":"disk","id":4,"pid":1,"ts":4},
{"ph":"b","name":"fetch","cat":"net","id":5,"pid":2,"ts":1},
{"ph":"e","name":"fetch","cat":"net","id":5,"pid":2,"ts":2}
]`)
	checkLines(t, "containers", containerPaths(tr), []string{
		"1 (Process, alias 1)",
		"1/fetch (Thread, alias 3)",
		"1/io (Thread, alias 4)",
		"1/fetch (async) (Async track, alias )",
		"1/fetch (async) (overlap lane 1) (Async track, alias #1)",
		"1/io (async 2) (Async track, alias )",
		"1/io (async) (Async track, alias )",
		"2 (Process, alias 2)",
		"2/net (Thread, alias 5)",
		"2/fetch (Async track, alias )",
	})
	checkLines(t, "entities", dump(tr), []string{
		`state /1/fetch Slice a 0.000-10.000 d0`,
		`state /1/io Slice c 0.000-10.000 d0`,
		`state /1/fetch (async) Async slice fetch[net] 10.000-20.000 d0 {"id":"1"}`,
		`state /1/fetch (async) (overlap lane 1) Async slice fetch[net] 15.000-30.000 d0 {"id":"2"}`,
		`state /1/io (async 2) Async slice io[disk] 1.000-2.000 d0 {"id":"3"}`,
		`state /1/io (async) Async slice io (async)[disk] 3.000-4.000 d0 {"id":"4"}`,
		`state /2/fetch Async slice fetch[net] 1.000-2.000 d0 {"id":"5"}`,
	})
}
