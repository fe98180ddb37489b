package chrome

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// V8's sampling CPU profiles, as Chrome and DevTools record them.
//
// Chrome up to 66 wrote a thread's whole profile in one "CpuProfile"
// instant event (ph I), args.data.cpuProfile holding the nodes (each
// naming its children), the samples, startTime and timeDeltas; it is read
// as a Profile event and its one chunk.
//
// A "Profile" event (ph P) starts a profile of one thread, named by its
// pid and id; args.data.startTime is when, on the clock of ts. The
// "ProfileChunk" events (ph P, same pid and id, often on the profiler's
// own thread) carry its samples: args.data.cpuProfile.nodes are call-tree
// nodes (id, callFrame.functionName, parent), added as they appear,
// cpuProfile.samples the node sampled, and args.data.timeDeltas the time
// from the previous sample (from startTime for the first one), in
// microseconds. A node's stack is its path from the tree's "(root)".
//
// The samples become the nested states of the profiled thread's stacks,
// as DevTools draws them: a frame lasts from the first of consecutive
// samples whose stacks hold the same call path up to it until the next
// sample that does not, and the stacks still open at the last sample end
// there. "(idle)" samples are no state (the thread waits); "(program)"
// and "(garbage collector)" are states, except a lone "(program)" sample
// between two samples of the same JavaScript call (see fixMissingSamples). They go on a thread container of
// their own beside the profiled one, "<thread> (CPU profile)", as they do
// not nest with the thread's trace events, which sample boundaries cut.

// cpuProfile is one profile: where it belongs and its samples so far.
type cpuProfile struct {
	pid, tid    int32 // the profiled thread: the Profile event's, else the first chunk's
	cat         int32
	fromProfile bool
	file        bool       // a .cpuprofile file's: no thread but its own
	start       trace.Time // startTime, the clock of the first timeDelta
	clock       trace.Time // time of the last sample read
	nodes       map[int64]profileNode
	times       []trace.Time
	leaves      []int64
	depths      map[int64]int // see depth
}

type profileNode struct {
	parent    int64
	hasParent bool
	defined   bool // its own entry was read, not only a parent's children naming it
	name      int32
}

// profileArgs is what the reader takes of the args of Profile and
// ProfileChunk events.
type profileArgs struct {
	Data struct {
		StartTime  json.Number `json:"startTime"`
		CPUProfile struct {
			Nodes []struct {
				ID        int64   `json:"id"`
				Parent    *int64  `json:"parent"`
				Children  []int64 `json:"children"`
				CallFrame struct {
					FunctionName string `json:"functionName"`
				} `json:"callFrame"`
			} `json:"nodes"`
			Samples    []int64       `json:"samples"`
			StartTime  json.Number   `json:"startTime"`
			TimeDeltas []json.Number `json:"timeDeltas"`
		} `json:"cpuProfile"`
		TimeDeltas []json.Number `json:"timeDeltas"`
	} `json:"data"`
}

// isProfileEvent tells whether a P event is part of a V8 CPU profile.
func isProfileEvent(name string) bool { return name == "Profile" || name == "ProfileChunk" }

// profileArgs tells whether the args of e are kept in e.profile, to be
// read as a CPU profile: those of sample events, and those of the
// "CpuProfile" instant events (ph I) of Chrome up to 66 when their name
// comes before their args, as Chrome writes it.
func (d *decoder) profileArgs(e *rawEvent) bool {
	return e.ph == 'P' || e.ph == 'I' && e.name != none && d.strs.str(e.name) == "CpuProfile"
}

// addProfile records a Profile or ProfileChunk event; it reports false
// (the caller counts the event as skipped) when its args are not those of
// a CPU profile.
func (c *collector) addProfile(e *rawEvent) bool {
	var a profileArgs
	if len(e.profile) == 0 || json.Unmarshal(strictJSON(e.profile), &a) != nil {
		return false
	}
	if e.pid == none {
		e.pid = c.strs.id([]byte("0"))
	}
	if c.profileByKey == nil {
		c.profileByKey = map[[2]int32]int32{}
	}
	name := c.strs.str(e.name)
	deltas := a.Data.TimeDeltas
	key := [2]int32{e.pid, e.id}
	if name == "CpuProfile" { // a whole profile of its thread, in one event
		key[1] = c.strs.id([]byte("CpuProfile of tid " + c.strs.str(e.tid)))
		a.Data.StartTime, deltas = a.Data.CPUProfile.StartTime, a.Data.CPUProfile.TimeDeltas
		name = "Profile"
	}
	pi, ok := c.profileByKey[key]
	if !ok {
		pi = int32(len(c.profiles))
		c.profiles = append(c.profiles, cpuProfile{pid: e.pid, tid: e.tid, cat: e.cat, nodes: map[int64]profileNode{}})
		c.profileByKey[key] = pi
	}
	p := &c.profiles[pi]
	if name == "Profile" {
		if e.tid != none {
			p.tid, p.fromProfile = e.tid, true
		}
		p.start = e.ts
		if t, err := parseMicros([]byte(a.Data.StartTime)); a.Data.StartTime != "" && err == nil {
			p.start = t
		}
		if len(p.times) == 0 {
			p.clock = p.start
		}
	} else if p.tid == none && !p.fromProfile {
		p.tid = e.tid
	}
	if !ok && name != "Profile" {
		p.start, p.clock = e.ts, e.ts // a chunk without its Profile event: its ts is the nearest clock
	}
	for _, n := range a.Data.CPUProfile.Nodes {
		name := n.CallFrame.FunctionName
		if name == "" {
			name = "(anonymous)"
		}
		node := p.nodes[n.ID]
		node.name, node.defined = c.strs.id([]byte(name)), true
		if n.Parent != nil {
			node.parent, node.hasParent = *n.Parent, true
		}
		p.nodes[n.ID] = node
		for _, child := range n.Children { // the unchunked form names children instead
			ch := p.nodes[child]
			ch.parent, ch.hasParent = n.ID, true
			p.nodes[child] = ch
		}
	}
	samples := a.Data.CPUProfile.Samples
	if len(samples) != len(deltas) {
		c.notes.warn("%d CPU profile chunks (ProfileChunk or CpuProfile events, .cpuprofile files) whose samples and timeDeltas differ in length: the extra ones are skipped")
		n := min(len(samples), len(deltas))
		samples, deltas = samples[:n], deltas[:n]
	}
	for i, leaf := range samples {
		d, err := parseMicros([]byte(deltas[i]))
		if err != nil {
			c.notes.skip("CPU profile samples whose timeDelta is not a number", 1)
			continue
		}
		next := p.clock + d
		if d > 0 && next < p.clock || d < 0 && next > p.clock {
			c.notes.skip("CPU profile samples whose timeDeltas add up beyond the clock's range", 1)
			continue
		}
		p.clock = next
		p.times = append(p.times, p.clock)
		p.leaves = append(p.leaves, leaf)
	}
	return true
}

// profileSlices turns each profile's samples into the slices of a thread
// of its own beside the profiled one (see the comment at the top).
func (c *collector) profileSlices() {
	for pi := range c.profiles {
		p := &c.profiles[pi]
		if len(p.times) == 0 {
			continue
		}
		if p.tid == none {
			p.tid = p.pid
		}
		key := c.strs.id([]byte(c.strs.str(p.tid) + " (CPU profile)"))
		if p.file {
			key = c.strs.id([]byte("CPU profile"))
		}
		ti := c.thread(p.pid, key)
		if !p.file {
			profiled := &c.threads[c.thread(p.pid, p.tid)]
			t := &c.threads[ti]
			if profiled.name != none {
				t.name = c.strs.id([]byte(c.strs.str(profiled.name) + " (CPU profile)"))
			}
			if profiled.hasSortIndex {
				t.sortIndex, t.hasSortIndex = profiled.sortIndex, true
			}
		}
		t := &c.threads[ti]
		order := make([]int32, len(p.times))
		for i := range order {
			order[i] = int32(i)
		}
		// Samples whose timeDeltas go back in time are put in time order,
		// as DevTools sorts them; equal times keep their order.
		slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(p.times[a], p.times[b]) })
		idle := c.strs.id([]byte("(idle)"))
		p.fixMissingSamples(order, c.strs.id([]byte("(program)")), c.strs.id([]byte("(garbage collector)")), idle)
		type frame struct {
			node  int64
			name  int32
			start trace.Time
			seq   int32 // numbered as opened: of two frames with the same times, the outer one comes first
		}
		var open, path []frame
		closeFrom := func(k int, at trace.Time) {
			for j := len(open) - 1; j >= k; j-- {
				if at > open[j].start {
					*t.slices.add() = slice{start: open[j].start, end: at, name: open[j].name, cat: p.cat, args: none, seq: open[j].seq}
				}
			}
			open = open[:k]
		}
		for _, i := range order {
			at := p.times[i]
			c.seeOn(t, at)
			path = path[:0]
			k := 0
			if d := p.depth(p.leaves[i]); d >= 0 && !walkWholeStacks {
				// The frames below the open frame the leaf's stack
				// passes through are the new ones: a node's frame is at
				// its depth, its parents' below it.
				if n := p.nodes[p.leaves[i]]; d == 1 && n.name == idle {
					d = 0
				}
				for id := p.leaves[i]; d > 0 && (d > len(open) || open[d-1].node != id); d-- {
					n := p.nodes[id]
					path = append(path, frame{node: id, name: n.name})
					id = n.parent
				}
				slices.Reverse(path)
				k = d
			} else {
				// A path longer than the tree has nodes goes round a
				// cycle of parents (a corrupt profile): it is cut there.
				for id, depth := p.leaves[i], 0; depth < len(p.nodes); depth++ {
					n, ok := p.nodes[id]
					if !ok || !n.hasParent || !n.defined { // the root, or a node never defined
						break
					}
					path = append(path, frame{node: id, name: n.name})
					id = n.parent
				}
				slices.Reverse(path)
				if len(path) == 1 && path[0].name == idle {
					path = path[:0]
				}
				for k < len(open) && k < len(path) && open[k].node == path[k].node {
					k++
				}
				path = path[k:]
			}
			closeFrom(k, at)
			for _, f := range path {
				c.seq++
				f.start, f.seq = at, c.seq
				open = append(open, f)
			}
		}
		closeFrom(0, p.times[order[len(order)-1]])
		p.nodes, p.times, p.leaves, p.depths = nil, nil, nil, nil
	}
	c.profiles, c.profileByKey = nil, nil
}

// walkWholeStacks makes profileSlices walk each sample's stack from its
// leaf to the root, as it does for stacks that go round a cycle: the
// tests' reference for the walk that stops at the open frames.
var walkWholeStacks = false

// depth is the number of frames of the stack whose leaf is node id: the
// nodes from it up to the root or a node never defined; -1 when its
// parents go round a cycle. Depths are remembered, so that the stacks of
// all samples are found in time proportional to the tree's nodes, however
// deep (the samples of a deep stack would each walk it).
func (p *cpuProfile) depth(id int64) int {
	if p.depths == nil {
		p.depths = map[int64]int{}
	}
	var walked []int64
	d := 0
	for {
		if known, ok := p.depths[id]; ok {
			d = known
			break
		}
		n, ok := p.nodes[id]
		if !ok || !n.hasParent || !n.defined {
			break
		}
		if len(walked) >= len(p.nodes) {
			d = -1
			break
		}
		walked = append(walked, id)
		id = n.parent
	}
	for j := len(walked) - 1; j >= 0; j-- {
		if d >= 0 {
			d++
		}
		p.depths[walked[j]] = d
	}
	if len(walked) > 0 {
		return p.depths[walked[0]]
	}
	return d
}

// fixMissingSamples applies DevTools' correction (CPUProfileDataModel's
// fixMissingSamples): the sampler sometimes fails to walk the JavaScript
// stack and records "(program)" instead, splitting one call in two; a
// "(program)" sample between two samples that are not "(program)",
// "(garbage collector)" or "(idle)" and whose stacks share their bottom
// frame takes the stack of the sample before it. order is the samples in
// time order.
func (p *cpuProfile) fixMissingSamples(order []int32, program, gc, idle int32) {
	if len(order) < 3 {
		return
	}
	system := func(leaf int64) bool {
		n := p.nodes[leaf]
		return n.defined && (n.name == program || n.name == gc || n.name == idle)
	}
	bottoms := map[int64]int64{}
	bottom := func(id int64) int64 {
		if d := p.depth(id); d > 0 && !walkWholeStacks { // the node at depth 1 under it, remembered
			var walked []int64
			for ; d > 1; d-- {
				if b, ok := bottoms[id]; ok {
					id = b
					break
				}
				walked = append(walked, id)
				id = p.nodes[id].parent
			}
			for _, w := range walked {
				bottoms[w] = id
			}
			return id
		}
		for depth := 0; depth < len(p.nodes); depth++ {
			n, ok := p.nodes[id]
			if !ok || !n.hasParent || !n.defined {
				return id
			}
			if up, ok := p.nodes[n.parent]; !ok || !up.hasParent || !up.defined {
				return id
			}
			id = n.parent
		}
		return id
	}
	prev := p.leaves[order[0]]
	for i := 1; i < len(order)-1; i++ {
		leaf, next := p.leaves[order[i]], p.leaves[order[i+1]]
		if n := p.nodes[leaf]; n.defined && n.name == program && !system(prev) && !system(next) && bottom(prev) == bottom(next) {
			p.leaves[order[i]] = prev
		}
		prev = p.leaves[order[i]]
	}
}

// The object form's sampling profile: stackFrames maps frame ids to
// {name, parent}, and samples lists {ts, pid, tid, sf}, sf naming the
// sampled frame (Hermes, React Native's engine, and Chrome's old sampling
// write it). Each thread's samples become a profile as V8's do: a frame
// lasts from the sample whose stack opens it until the next sample whose
// stack leaves it. A sample without pid is on the thread of its tid if a
// process has one, else on pid 0.

// sampleEntry is what the reader takes of an entry of samples.
type sampleEntry struct {
	Ts  json.RawMessage `json:"ts"`
	Pid json.RawMessage `json:"pid"`
	Tid json.RawMessage `json:"tid"`
	Sf  json.RawMessage `json:"sf"`
}

// rawText is the text of a JSON number or string, without quotes.
func rawText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// addSampledStacks turns the stackFrames and samples of the object form
// into profiles (see profileSlices). It returns the memory budget's error
// if their text, or the profiles, pass it.
func (c *collector) addSampledStacks() error {
	if err := c.weigh(); err != nil {
		return err
	}
	framesText, samplesText, isFile := c.stackFramesText, c.samplesText, c.isProfileFile()
	c.stackFramesText, c.samplesText = nil, nil
	if file := c.cpuProfileFile; isFile {
		c.cpuProfileFile = nil
		c.addProfileFile(file, samplesText)
		return c.weigh()
	}
	if len(samplesText) == 0 && len(framesText) == 0 {
		return nil
	}
	var frames map[string]struct {
		Name   string          `json:"name"`
		Parent json.RawMessage `json:"parent"`
	}
	var samples []sampleEntry
	if len(framesText) > 0 && json.Unmarshal(strictJSON(framesText), &frames) != nil {
		c.notes.skip("stackFrames that are not an object of frames", 1)
		frames = nil
	}
	if len(samplesText) > 0 && json.Unmarshal(strictJSON(samplesText), &samples) != nil {
		c.notes.skip("samples that are not an array of samples", 1)
		return nil
	}
	// Frame ids become the nodes 1, 2...; node 0 is the root above the
	// frames without parent.
	ids := make(map[string]int64, len(frames))
	for id := range frames {
		ids[id] = int64(len(ids) + 1)
	}
	nodes := make(map[int64]profileNode, len(frames)+1)
	nodes[0] = profileNode{name: c.strs.id([]byte("(root)")), defined: true}
	for id, f := range frames {
		n := profileNode{name: c.strs.id([]byte(f.Name)), hasParent: true, defined: true}
		if len(f.Parent) > 0 && string(f.Parent) != "null" {
			if p, ok := ids[rawText(f.Parent)]; ok {
				n.parent = p
			}
		}
		if f.Name == "" {
			n.name = c.strs.id([]byte("(anonymous)"))
		}
		nodes[ids[id]] = n
	}
	byTid := map[int32]int32{} // a tid's thread, for samples without pid
	for ti := range c.threads {
		if _, ok := byTid[c.threads[ti].key]; !ok {
			byTid[c.threads[ti].key] = int32(ti)
		}
	}
	byThread := map[[2]int32]int32{}
	for _, s := range samples {
		ts, err := parseMicros([]byte(rawText(s.Ts)))
		leaf, known := ids[rawText(s.Sf)]
		if len(s.Ts) == 0 || err != nil || !known {
			c.notes.skip("samples entries without ts or a known sf", 1)
			continue
		}
		tid := c.strs.id([]byte(rawText(s.Tid)))
		if len(s.Tid) == 0 {
			tid = c.strs.id([]byte("0"))
		}
		var pid int32
		switch t, ok := byTid[tid]; {
		case len(s.Pid) > 0:
			pid = c.strs.id([]byte(rawText(s.Pid)))
		case ok:
			pid = c.procs[c.threads[t].proc].key
		default:
			pid = c.strs.id([]byte("0"))
		}
		key := [2]int32{pid, tid}
		pi, ok := byThread[key]
		if !ok {
			pi = int32(len(c.profiles))
			c.profiles = append(c.profiles, cpuProfile{pid: pid, tid: tid, cat: none, fromProfile: true, nodes: nodes})
			byThread[key] = pi
		}
		p := &c.profiles[pi]
		p.times = append(p.times, ts)
		p.leaves = append(p.leaves, leaf)
	}
	return c.weigh()
}

// addProfileFile reads a V8 CPU profile file (.cpuprofile, as Node's
// --cpu-prof, the inspector's Profiler.stop and DevTools' JavaScript
// profiler write it): the object of nodes, samples, startTime and
// timeDeltas of one thread, put on a thread "CPU profile" of a process "0".
func (c *collector) addProfileFile(file map[string][]byte, samples []byte) {
	if file["nodes"] == nil || file["timeDeltas"] == nil { // V8's older form alone (see isProfileFile)
		var ok bool
		if file, ok = profileFromTree(file); !ok {
			c.notes.skip("CPU profiles (head, samples, timestamps) that do not parse", 1)
			return
		}
	}
	part := func(text []byte, empty string) []byte {
		if len(text) == 0 {
			return []byte(empty)
		}
		return text
	}
	var text []byte
	text = append(text, `{"data":{"cpuProfile":{"nodes":`...)
	text = append(text, file["nodes"]...)
	text = append(text, `,"samples":`...)
	text = append(text, part(samples, "[]")...)
	text = append(text, `,"timeDeltas":`...)
	text = append(text, part(file["timeDeltas"], "[]")...)
	if st := file["startTime"]; len(st) > 0 {
		text = append(text, `,"startTime":`...)
		text = append(text, st...)
	}
	text = append(text, "}}}"...)
	e := rawEvent{ph: 'I', name: c.strs.id([]byte("CpuProfile")), pid: c.strs.id([]byte("0")),
		tid: c.strs.id([]byte("0")), id: none, cat: none, profile: text}
	if !c.addProfile(&e) {
		c.notes.skip("CPU profiles (nodes, samples, timeDeltas) that do not parse", 1)
		return
	}
	c.profiles[len(c.profiles)-1].file = true
}

// oldProfileNode is a node of V8's older CPU profile form: the call tree
// itself, each node holding its children.
type oldProfileNode struct {
	ID           int64            `json:"id"`
	FunctionName string           `json:"functionName"`
	Children     []oldProfileNode `json:"children"`
}

// profileFromTree turns a CPU profile of V8's older form (the C++ API's,
// which Node's v8-profiler modules write: the tree under head, samples, and the absolute time of each sample in
// timestamps, in microseconds) into the fields of the current form: the
// nodes as a flat array naming their children, and the timeDeltas from
// startTime. startTime is the first sample's time: the older form's
// startTime counts seconds, cut to whole ones by some writers, while the
// timestamps are the profiler's clock.
func profileFromTree(file map[string][]byte) (map[string][]byte, bool) {
	var head oldProfileNode
	var stamps []json.Number
	if json.Unmarshal(strictJSON(file["head"]), &head) != nil || json.Unmarshal(strictJSON(file["timestamps"]), &stamps) != nil {
		return nil, false
	}
	type node struct {
		ID        int64 `json:"id"`
		CallFrame struct {
			FunctionName string `json:"functionName"`
		} `json:"callFrame"`
		Children []int64 `json:"children"`
	}
	var nodes []node
	for stack := []*oldProfileNode{&head}; len(stack) > 0; {
		o := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := node{ID: o.ID, Children: make([]int64, len(o.Children))}
		n.CallFrame.FunctionName = o.FunctionName
		for i := range o.Children {
			n.Children[i] = o.Children[i].ID
			stack = append(stack, &o.Children[i])
		}
		nodes = append(nodes, n)
	}
	deltas := make([]json.Number, 0, len(stamps))
	var start, prev trace.Time
	for i, s := range stamps {
		t, err := parseMicros([]byte(s))
		if err != nil {
			return nil, false
		}
		if i == 0 {
			start, prev = t, t
		}
		deltas = append(deltas, json.Number(microsText(t-prev)))
		prev = t
	}
	nodesText, err1 := json.Marshal(nodes)
	deltasText, err2 := json.Marshal(deltas)
	if err1 != nil || err2 != nil {
		return nil, false
	}
	return map[string][]byte{"nodes": nodesText, "timeDeltas": deltasText, "startTime": []byte(microsText(start))}, true
}

// microsText writes a time in nanoseconds as microseconds, as the trace
// writes times: whole ones, else with the three decimals of nanoseconds.
func microsText(t trace.Time) string {
	sign := ""
	if t < 0 {
		sign, t = "-", -t
	}
	if t%1000 == 0 {
		return sign + strconv.FormatInt(int64(t/1000), 10)
	}
	return fmt.Sprintf("%s%d.%03d", sign, t/1000, t%1000)
}

// isProfileFile tells whether the object read is a V8 CPU profile file: it
// has nodes, samples and timeDeltas, or V8's older head, samples and
// timestamps (PyTorch's execution traces have nodes too, and are not one).
// isSamplesOnly tells whether the trace object held the stackFrames and
// samples of a sampling profile (Hermes, catapult) without traceEvents:
// the samples are the trace.
func (c *collector) isSamplesOnly() bool {
	return c.stackFramesText != nil && c.samplesText != nil
}

func (c *collector) isProfileFile() bool {
	f := c.cpuProfileFile
	return (f["nodes"] != nil && f["timeDeltas"] != nil || f["head"] != nil && f["timestamps"] != nil) && c.samplesText != nil
}
