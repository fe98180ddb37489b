package critpath

// The critical path of GPU and task traces, with the semantics of
// Holistic Trace Analysis (HTA 0.5.0, facebookresearch/HolisticTraceAnalysis,
// hta/analyzers/critical_path_analysis.py, CPGraph): a graph whose nodes
// are the starts and ends of the CPU calls and the GPU operations, whose
// edges are
//
//   - on each CPU thread, the walk of its call stack in depth-first order:
//     from each start or end to the next (the time between is spent in the
//     operator that holds it; between two top-level operators, a
//     dependency of no weight); the end of a blocking call (its reader
//     gives it trace.RoleBlockingCall or RoleBlockingLaunchCall:
//     cudaStreamSynchronize, cudaMemcpy...) weighs nothing: its time is
//     waiting, which the GPU side accounts for; where the values have
//     categories (Kineto's), the calls walked are those the reader gives
//     a host call's role (trace.Role.HostCall: operators, runtime and
//     driver calls, not annotations);
//   - from each GPU operation's start to its end (kernel);
//   - to each GPU operation: from the call that launched it (launch, the
//     launch delay) when the stream was idle at the launch and stays so
//     (its queue length, launches by launch calls, trace.RoleLaunchCall or
//     RoleBlockingLaunchCall: cudaLaunchKernel..., minus operations
//     started, is 1 after
//     the launch and 0 after the operation starts) and the stream's
//     previous operation had ended before the launch; else from the
//     previous operation on the stream (kernel-kernel, its gap);
//   - from the last operation of a stream to the end of the call that
//     synchronised with it (sync wait, no weight), where the trace records
//     the synchronisation on the GPU side (its reader gives the states the
//     roles trace.RoleStreamSync for one stream, trace.RoleContextSync
//     for all: Kineto's and Nsight Systems' "Stream Sync", "Context
//     Sync") and links it to its call.
//
// The critical path is the graph's longest path (weights are durations,
// negative ones, from rounding, count 0), each edge attributed to an event
// as HTA does: a start-to-start or start-to-end edge to the first event,
// an end-to-end edge to the second, an end-to-start edge to the first
// event's parent, a kernel-kernel gap to the earlier kernel.
//
// Traces without launches but with links between states (the flows of a
// Chrome or Perfetto trace, task dependencies) get the same longest path
// with each link an edge (dependency) from its source to its destination,
// weighing the time between them, and every resource walked as a CPU
// thread, but for the containers whose reader says they are async lanes
// (trace.RoleAsyncLane: the Chrome reader's "Async track"), where
// each top-level state is an operation of its own: the operations of
// different async ids follow one another there without depending on one
// another.
//
// HTA's later versions add edges between the calls that take the CUDA
// runtime's lock and leave out kernel-kernel gaps over 1.5 ms; the
// release on PyPI, 0.5.0, which the tests compare with, does neither.

import (
	"cmp"
	"fmt"
	"github.com/macroscope-hpc/macroscope/core/intern"
	"slices"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/mpi"
)

// The semantics a Result was computed with (Result.Semantics).
const (
	// Scalasca is the backward replay of a message-passing run.
	Scalasca = "scalasca"
	// HTA is the longest path through CPU calls, launches and GPU
	// operations.
	HTA = "hta"
	// Dependencies is the longest path through states linked by flows.
	Dependencies = "dependencies"
)

// The kinds of the edges of a GPU or task critical path (Segment.Via).
const (
	EdgeCompute    = "compute"       // a CPU call, or between calls nested in one
	EdgeKernel     = "kernel"        // a GPU operation, start to end
	EdgeLaunch     = "launch"        // from a launch call to its operation's start
	EdgeKernelGap  = "kernel-kernel" // between two operations of a stream
	EdgeSyncWait   = "sync wait"     // from a GPU operation to a synchronising call's end
	EdgeDependency = "dependency"    // between top-level calls, or a flow
)

// BoundBy classifies a segment of an HTA path by what bounds it, as
// HTA's get_critical_path_breakdown does: "cpu_bound" (compute),
// "gpu_compute_bound" or "gpu_communication_bound" (a kernel, NCCL's:
// of role trace.RoleCommunicationKernel), "gpu_kernel_launch_overhead" (launch),
// "gpu_kernel_kernel_overhead" (kernel-kernel); "" for dependencies and
// waits, which weigh nothing, and for the segments of other semantics.
func BoundBy(s Segment) string {
	switch s.Via {
	case EdgeCompute:
		return "cpu_bound"
	case EdgeKernel:
		if s.Role == trace.RoleCommunicationKernel {
			return "gpu_communication_bound"
		}
		return "gpu_compute_bound"
	case EdgeLaunch:
		return "gpu_kernel_launch_overhead"
	case EdgeKernelGap:
		return "gpu_kernel_kernel_overhead"
	}
	return ""
}

// syncRole tells the roles of the synchronisations recorded on the GPU
// side: on a stream, for one stream or all (trace.RoleStreamSync,
// RoleContextSync), and the waits for a CUDA event, of the host
// (RoleEventSync: cudaEventSynchronize) or of a stream
// (RoleStreamWaitEvent: cudaStreamWaitEvent).
func syncRole(r trace.Role) bool {
	switch r {
	case trace.RoleStreamSync, trace.RoleContextSync, trace.RoleEventSync, trace.RoleStreamWaitEvent:
		return true
	}
	return false
}

// graphCollector keeps what the graph needs while a trace streams by:
// every state of positive duration and the links.
type graphCollector struct {
	valueName   []int32 // by value: name index
	valueRole   []trace.Role
	names       intern.Table
	categories  bool   // some value has a category
	launchType  []bool // by type: a link type of launches
	kinetoType  []bool // by type: the launches of Kineto's correlation ids
	waitType    []bool // by type: a link type of CUDA-event waits
	asyncType   []bool // by type: the container type of async lanes
	launchValue []bool // by value: the value of Kineto's launch flows
	conts       []gcont
	// kineto: the launches are Kineto's, whose traces record the
	// synchronisations on the GPU side when they record any.
	kineto bool
	states mpi.Chunks[gstate]
	// cancel, once closed, stops result (Options.Cancel).
	cancel     <-chan struct{}
	links      []glink
	waits      []glink // from the stream an event was recorded on, at the record, to its wait
	start, end trace.Time
}

type gcont struct {
	name   string
	parent int32
	// unchained: the top-level states of the container do not depend on
	// one another, as the operations of the different async ids an async
	// lane holds; each is a call stack of its own.
	unchained bool
}

type gstate struct {
	start, end   trace.Time
	cont, name   int32
	depth, order int32
	role         trace.Role // of its value (host calls, synchronisations, NCCL's kernels)
}

// linkPair is a link resolved to the states it joins; start and end are
// the link's own times (flowEnds).
type linkPair struct {
	from, to   int32
	start, end trace.Time
}

type glink struct {
	from, to   int32
	start, end trace.Time
	launch     bool
}

func newGraphCollector() *graphCollector {
	g := &graphCollector{conts: []gcont{{name: "", parent: -1}}}
	g.name("")
	return g
}

func (g *graphCollector) name(n string) int32 { return g.names.ID(n) }

func (g *graphCollector) defineType(t trace.Type) {
	// The readers say which links are launches (from correlation ids, or
	// Kineto's flows: see link), which join the stream a GPU event was
	// recorded on to the synchronisation that waits for it, and which
	// containers hold operations that do not depend on one another.
	link := t.Kind == trace.KindLink
	g.kinetoType = append(g.kinetoType, link && t.Role == trace.RoleLaunchSynced)
	g.launchType = append(g.launchType, link && (t.Role == trace.RoleLaunch || t.Role == trace.RoleLaunchSynced))
	g.waitType = append(g.waitType, link && t.Role == trace.RoleEventWait)
	g.asyncType = append(g.asyncType, t.Kind == trace.KindContainer && t.Role == trace.RoleAsyncLane)
}

func (g *graphCollector) defineValue(v trace.Value) {
	g.launchValue = append(g.launchValue, v.Role == trace.RoleLaunchFlow)
	g.valueName = append(g.valueName, g.name(v.Name))
	g.valueRole = append(g.valueRole, v.Role)
	if v.Category != "" {
		g.categories = true
	}
}

func (g *graphCollector) createContainer(c trace.Container) {
	async := c.Type >= 0 && int(c.Type) < len(g.asyncType) && g.asyncType[c.Type]
	g.conts = append(g.conts, gcont{name: c.Name, parent: c.Parent, unchained: async})
}

func (g *graphCollector) state(s trace.State) {
	if s.End <= s.Start || s.Value < 0 || int(s.Value) >= len(g.valueName) {
		return // HTA drops the events of no duration
	}
	g.states.Append(gstate{start: s.Start, end: s.End, cont: s.Container, name: g.valueName[s.Value],
		depth: s.Depth, order: s.Order, role: g.valueRole[s.Value]})
}

func (g *graphCollector) link(l trace.Link) {
	if l.From <= 0 || l.To <= 0 || int(l.From) >= len(g.conts) || int(l.To) >= len(g.conts) {
		return // a link to no container: nothing to follow
	}
	typed := l.Type >= 0 && int(l.Type) < len(g.launchType)
	if typed && g.waitType[l.Type] {
		g.waits = append(g.waits, glink{from: l.From, to: l.To, start: l.Start, end: l.End})
		return
	}
	// A Kineto launch flow, or a correlation id.
	kineto := l.Value >= 0 && int(l.Value) < len(g.launchValue) && g.launchValue[l.Value] || typed && g.kinetoType[l.Type]
	launch := kineto || typed && g.launchType[l.Type]
	g.links = append(g.links, glink{from: l.From, to: l.To, start: l.Start, end: l.End, launch: launch})
	g.kineto = g.kineto || kineto
}

// path returns the path of container id, its names from the root's child
// joined by "/".
func (g *graphCollector) path(id int32) string {
	return trace.JoinPath(id, "/", func(c int32) (string, int32) { return g.conts[c].name, g.conts[c].parent })
}

// laneBase returns the container a lane container is a lane of (its
// sibling named without trace.LaneSuffix), or id itself: a stream and
// its lanes are one stream.
func (g *graphCollector) laneBase(id int32, byName map[[2]string]int32) int32 {
	c := g.conts[id]
	i := strings.LastIndex(c.name, trace.LaneSuffix)
	if i < 0 || !strings.HasSuffix(c.name, ")") {
		return id
	}
	if b, ok := byName[[2]string{g.path(c.parent), c.name[:i]}]; ok {
		return b
	}
	return id
}

// The graph.

type node struct {
	ts    trace.Time
	state int32 // index in graph.states
	start bool
}

type edge struct {
	from, to int32
	weight   trace.Time
	kind     string
	// event is the state the edge's time is attributed to, -1 for none.
	event int32
}

type graph struct {
	g      *graphCollector
	states []gstate
	// parent of each state in its container's call stack, -1 at the top.
	parent []int32
	nodes  []node
	// startNode of state i is 2i, its end node 2i+1 (for the node
	// states; the others have none).
	isNode []bool
	edges  []edge
	in     [][]int32 // by node: its incoming edges, in the order added
	out    [][]int32
	byName map[[2]string]int32 // containers by parent path and name (laneBase)
	// points are the nodes inside states where flows leave or arrive
	// (flowPoint), by container, in time order; pointAt finds them.
	points  map[int32][]int32
	pointAt map[node]int32
	// look looks at the collector's cancel as the graph is built and
	// walked: states, links, nodes.
	look trace.Looker
}

func (gr *graph) startOf(s int32) int32 { return 2 * s }
func (gr *graph) endOf(s int32) int32   { return 2*s + 1 }

func (gr *graph) addEdge(from, to int32, kind string, zero bool, event int32) {
	w := trace.Time(0)
	if !zero && kind != EdgeDependency && kind != EdgeSyncWait {
		w = gr.nodes[to].ts - gr.nodes[from].ts
	}
	gr.addWeighted(from, to, kind, w, event)
}

func (gr *graph) addWeighted(from, to int32, kind string, w trace.Time, event int32) {
	if from == to {
		return
	}
	i := int32(len(gr.edges))
	gr.edges = append(gr.edges, edge{from: from, to: to, weight: max(w, 0), kind: kind, event: event})
	gr.in[to] = append(gr.in[to], i)
	gr.out[from] = append(gr.out[from], i)
}

func (gr *graph) nameOf(s int32) string { return gr.g.names.String(gr.states[s].name) }

// result finds the critical path of what g collected, or says why it
// cannot.
// It stops once g.cancel is closed, with trace.ErrComputationCanceled
// and nothing.
func (g *graphCollector) result() (*Result, error) {
	gr, semantics, err := g.build()
	if err != nil {
		return nil, err
	}
	return gr.longestPath(semantics)
}

// build makes the graph of what g collected, and says with which
// semantics.
func (g *graphCollector) build() (*graph, string, error) {
	if len(g.links) == 0 {
		// Outside the analysis's scope is a fact of the data (status 1,
		// the file named), not bad usage.
		return nil, "", errs.Empty("", "the critical path does not apply to this trace: it needs MPI calls with matched messages or collective "+
			"operations (Scalasca's semantics), kernel launches linked to their GPU operations (HTA's: Kineto's ac2g "+
			"flows or correlation ids, those of Nsight Systems and rocprof) or links between tasks (flows, dependencies); "+
			"this trace has no MPI calls (states named MPI_* or PMPI_*, Extrae's events 50000001-50000005) and no links")
	}
	gr := &graph{g: g, look: trace.Looker{Cancel: g.cancel}}
	if err := gr.look.Stopped(1); err != nil {
		return nil, "", err
	}
	states := g.states.Take()
	gr.states = states
	hta := slices.ContainsFunc(g.links, func(l glink) bool { return l.launch })
	semantics := Dependencies
	if hta {
		semantics = HTA
	}

	// Each container's states in start order, outermost first, and where
	// a time falls in them.
	order := make([]int32, len(states))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int {
		x, y := &states[a], &states[b]
		return cmp.Or(cmp.Compare(x.cont, y.cont), cmp.Compare(x.start, y.start), cmp.Compare(y.end, x.end),
			cmp.Compare(x.depth, y.depth), cmp.Compare(x.order, y.order))
	})
	if err := gr.look.Stopped(len(states)); err != nil {
		return nil, "", err
	}
	byCont := map[int32][]int32{}
	for _, s := range order {
		byCont[states[s].cont] = append(byCont[states[s].cont], s)
	}
	// reach[c][j]: the latest end of container c's states up to its j-th,
	// so that the search for the states that hold a time stops where
	// none before can (else a link's end in a gap walked back through
	// every state of its container: quadratic on long traces).
	reach := make(map[int32][]trace.Time, len(byCont))
	for c, ss := range byCont {
		r := make([]trace.Time, len(ss))
		for j, s := range ss {
			r[j] = states[s].end
			if j > 0 {
				r[j] = max(r[j], r[j-1])
			}
		}
		reach[c] = r
	}
	// The overlap lanes of each container (itself first).
	byName := map[[2]string]int32{}
	for i := range g.conts {
		if i > 0 {
			byName[[2]string{g.path(g.conts[i].parent), g.conts[i].name}] = int32(i)
		}
	}
	gr.byName = byName
	lanes := map[int32][]int32{}
	for c := range byCont {
		b := g.laneBase(c, byName)
		if len(lanes[b]) == 0 {
			lanes[b] = append(lanes[b], b)
		}
		if b != c {
			lanes[b] = append(lanes[b], c)
		}
	}
	// find returns the innermost state of container c or its lanes that
	// starts at t, else the innermost that holds t (or, for a link's
	// source, ends at t); -1 for none. scanned counts the states it
	// walked back through, for the looks at cancel.
	scanned := 0
	find := func(c int32, t trace.Time, source bool) int32 {
		group := lanes[g.laneBase(c, byName)]
		best := int32(-1)
		// Innermost: the latest to start, then the first to end (the
		// states of one container may nest across types, whose depths
		// are counted apart).
		deeper := func(s int32) bool {
			return best < 0 || cmp.Or(cmp.Compare(states[s].start, states[best].start), cmp.Compare(states[best].end, states[s].end)) > 0
		}
		for _, c := range group {
			ss := byCont[c]
			k, _ := slices.BinarySearchFunc(ss, t, func(s int32, t trace.Time) int { return cmp.Compare(states[s].start, t) })
			for j := k; j < len(ss) && states[ss[j]].start == t; j++ {
				if deeper(ss[j]) {
					best = ss[j]
				}
			}
		}
		if best >= 0 {
			return best
		}
		for _, c := range group {
			ss := byCont[c]
			k, _ := slices.BinarySearchFunc(ss, t, func(s int32, t trace.Time) int { return cmp.Compare(states[s].start, t) })
			r := reach[c]
			for j := k - 1; j >= 0; j-- {
				scanned++
				if r[j] < t || !source && r[j] == t {
					break // no state up to j holds t
				}
				s := ss[j]
				if best >= 0 && states[s].start < states[best].start {
					break // an earlier start is never deeper than best
				}
				if (states[s].end > t || source && states[s].end == t) && deeper(s) {
					best = s
				}
			}
		}
		return best
	}

	// The links, resolved to states; the streams are the containers
	// launches land on (a stream and its overlap lanes are one).
	var launches, deps []linkPair
	isStream := map[int32]bool{}
	launchedBy := map[int32]int32{} // GPU state -> its launch call
	for _, l := range g.links {
		if hta && !l.launch {
			continue // HTA follows launches only
		}
		// A link's ends are found by a search through its containers'
		// states, and some walk back through many.
		if err := gr.look.Stopped(1 + scanned); err != nil {
			return nil, "", err
		}
		scanned = 0
		from, to := find(l.from, l.start, true), find(l.to, l.end, false)
		if from < 0 || to < 0 {
			continue
		}
		if l.launch {
			if _, dup := launchedBy[to]; dup {
				continue
			}
			launchedBy[to] = from
			launches = append(launches, linkPair{from: from, to: to})
			isStream[states[to].cont] = true
		} else {
			deps = append(deps, linkPair{from, to, l.start, l.end})
		}
	}

	// The node states: on the streams, the launched operations; elsewhere,
	// with categories, HTA's CPU events (the host calls' roles), else all.
	gr.isNode = make([]bool, len(states))
	for i, s := range states {
		if isStream[s.cont] {
			_, gr.isNode[i] = launchedBy[int32(i)]
		} else {
			gr.isNode[i] = !hta || !g.categories || s.role.HostCall()
		}
	}
	for _, l := range slices.Concat(launches, deps) {
		gr.isNode[l.from], gr.isNode[l.to] = true, true
	}
	gr.nodes = make([]node, 2*len(states))
	for i, s := range states {
		gr.nodes[2*i] = node{ts: s.start, state: int32(i), start: true}
		gr.nodes[2*i+1] = node{ts: s.end, state: int32(i)}
	}
	gr.in = make([][]int32, len(gr.nodes))
	gr.out = make([][]int32, len(gr.nodes))

	// The flows' ends, which may be points inside states the call stacks
	// must walk through.
	type depEdge struct{ from, to, event int32 }
	depEdges := make([]depEdge, len(deps))
	for i, d := range deps {
		from, to := gr.flowEnds(d)
		depEdges[i] = depEdge{from, to, d.from}
	}

	// The call stacks of the threads (every container that is no stream).
	gr.parent = make([]int32, len(states))
	for c, ss := range byCont {
		if err := gr.look.Stopped(len(ss)); err != nil {
			return nil, "", err
		}
		if !isStream[c] {
			points := gr.points[c]
			slices.SortFunc(points, func(a, b int32) int { return cmp.Or(cmp.Compare(gr.nodes[a].ts, gr.nodes[b].ts), cmp.Compare(a, b)) })
			gr.callStack(ss, points, hta, !g.conts[c].unchained)
		}
	}
	if hta {
		streamOf := map[int32]int32{}
		for c := range isStream {
			streamOf[c] = g.laneBase(c, byName)
		}
		gr.kernels(launches, launchedBy, streamOf, gr.eventWaits(find, byName))
		if err := gr.look.Stopped(len(launches) + len(g.waits)); err != nil {
			return nil, "", err
		}
	}
	for _, d := range depEdges {
		// A flow's time is the wait between its ends.
		gr.addWeighted(d.from, d.to, EdgeDependency, gr.nodes[d.to].ts-gr.nodes[d.from].ts, d.event)
	}
	return gr, semantics, nil
}

// eventWait is a wait for a CUDA event: the stream the event was
// recorded on and when.
type eventWait struct {
	stream int32
	at     trace.Time
}

// eventWaits resolves the links of CUDA-event waits to the
// synchronisations they end on.
func (gr *graph) eventWaits(find func(c int32, t trace.Time, source bool) int32, byName map[[2]string]int32) map[int32]eventWait {
	waits := map[int32]eventWait{}
	for _, l := range gr.g.waits {
		if to := find(l.to, l.end, false); to >= 0 {
			waits[to] = eventWait{stream: gr.g.laneBase(l.from, byName), at: l.start}
		}
	}
	return waits
}

// flowEnds returns the nodes a flow joins. It leaves its source state at
// the state's end when that comes before the destination state's start
// (a task's completion), else at the flow's own start; it arrives at the
// destination state's start when that comes strictly after the leaving,
// else at the flow's own end. The edge goes forward in time, also for the
// flows a browser binds to the slices enclosing their ends, whose
// destination may have begun before the source: a message's handler that
// receives a reply in its middle, a task whose flow leaves its start for a
// later point inside it.
func (gr *graph) flowEnds(d linkPair) (from, to int32) {
	src, dst := &gr.states[d.from], &gr.states[d.to]
	if src.end <= dst.start {
		from = gr.endOf(d.from)
	} else {
		from = gr.flowPoint(d.from, d.start)
	}
	if dst.start > gr.nodes[from].ts {
		return from, gr.startOf(d.to)
	}
	return from, gr.flowPoint(d.to, d.end)
}

// flowPoint returns the node of state s at time t: its start or end node
// when t is one of them, else a point inside it, which its container's
// call stack walks through (callStack).
func (gr *graph) flowPoint(s int32, t trace.Time) int32 {
	st := &gr.states[s]
	switch {
	case t <= st.start:
		return gr.startOf(s)
	case t >= st.end:
		return gr.endOf(s)
	}
	n := node{ts: t, state: s}
	if p, ok := gr.pointAt[n]; ok {
		return p
	}
	if gr.pointAt == nil {
		gr.pointAt, gr.points = map[node]int32{}, map[int32][]int32{}
	}
	p := int32(len(gr.nodes))
	gr.nodes = append(gr.nodes, n)
	gr.in, gr.out = append(gr.in, nil), append(gr.out, nil)
	gr.pointAt[n] = p
	gr.points[st.cont] = append(gr.points[st.cont], p)
	return p
}

// sortedNodes returns the nodes of the node states in HTA's order: by
// time, then by event.
func (gr *graph) sortedNodes() []int32 {
	var ns []int32
	for i, ok := range gr.isNode {
		if ok {
			ns = append(ns, gr.startOf(int32(i)), gr.endOf(int32(i)))
		}
	}
	for p := 2 * len(gr.states); p < len(gr.nodes); p++ {
		ns = append(ns, int32(p))
	}
	slices.SortStableFunc(ns, func(a, b int32) int {
		return cmp.Or(cmp.Compare(gr.nodes[a].ts, gr.nodes[b].ts), cmp.Compare(gr.nodes[a].state, gr.nodes[b].state))
	})
	return ns
}

// callStack walks a thread's states (in start order, outermost first) in
// depth-first order, joining each node to the next
// (_construct_graph_from_call_stack). The stack is that of the times, as
// HTA's: a state is inside the last one open when it starts.
//
// Unless chained, a top-level state follows the one before it with no
// dependency: each is a call stack of its own.
//
// The points where flows leave or arrive inside the states (points, in
// time order) are walked through in their turn: the time on either side
// of one is spent in the state that holds it.
func (gr *graph) callStack(ss []int32, points []int32, hta, chained bool) {
	last, lastParent, depth := int32(-1), int32(-1), 0
	var stack []int32
	// lastParent is the state open after last (for a start, its parent:
	// the edge from a start goes to the started state).
	attribute := func(from, to int32, parent int32) int32 {
		switch {
		case gr.nodes[from].start:
			return gr.nodes[from].state
		case !gr.nodes[to].start && !gr.isPoint(to):
			return gr.nodes[to].state
		}
		return parent
	}
	// walkPoints walks through the points before time t, inside the
	// innermost state open. A point no state on the stack holds (inside
	// a state that outlives its parent) lies between two top-level
	// states, which it then joins as they would be.
	walkPoints := func(t trace.Time) {
		for ; len(points) > 0 && gr.nodes[points[0]].ts < t; points = points[1:] {
			p := points[0]
			switch {
			case last < 0:
			case len(stack) > 0:
				gr.addEdge(last, p, EdgeCompute, false, attribute(last, p, lastParent))
			case chained:
				gr.addEdge(last, p, EdgeDependency, false, -1)
			}
			last, lastParent = p, gr.nodes[p].state
			if len(stack) > 0 {
				lastParent = stack[len(stack)-1]
			}
		}
	}
	exit := func(s int32) {
		if !gr.isNode[s] {
			return
		}
		end := gr.endOf(s)
		if last >= 0 {
			zero := hta && gr.states[s].role.Blocks()
			gr.addEdge(last, end, EdgeCompute, zero, attribute(last, end, lastParent))
		}
		last, lastParent = end, gr.parent[s]
		depth--
	}
	pop := func() {
		top := stack[len(stack)-1]
		walkPoints(gr.states[top].end)
		exit(top)
		stack = stack[:len(stack)-1]
	}
	for _, s := range ss {
		for len(stack) > 0 && gr.states[stack[len(stack)-1]].end <= gr.states[s].start {
			pop()
		}
		walkPoints(gr.states[s].start)
		if len(stack) > 0 && gr.states[s].end > gr.states[stack[len(stack)-1]].end {
			continue // outlives its parent: on no call stack (readers give such states a lane)
		}
		gr.parent[s] = -1
		if len(stack) > 0 {
			gr.parent[s] = stack[len(stack)-1]
		}
		stack = append(stack, s)
		if !gr.isNode[s] {
			continue
		}
		start := gr.startOf(s)
		if last >= 0 {
			if depth == 0 {
				if chained {
					gr.addEdge(last, start, EdgeDependency, false, -1)
				}
			} else {
				gr.addEdge(last, start, EdgeCompute, false, attribute(last, start, lastParent))
			}
		}
		last, lastParent = start, gr.parent[s]
		depth++
	}
	for len(stack) > 0 {
		pop()
	}
}

// isPoint tells whether node n is a point inside a state (flowPoint).
func (gr *graph) isPoint(n int32) bool { return int(n) >= 2*len(gr.states) }

// kernels adds the edges of the GPU operations: start to end, from their
// launch or the stream's previous operation, and from the streams to the
// calls that synchronised with them (_construct_graph_from_kernels).
func (gr *graph) kernels(launches []linkPair, launchedBy map[int32]int32, streamOf map[int32]int32, waits map[int32]eventWait) {
	states := gr.states
	// The queue length of each stream after each launch and after each
	// operation's start (TraceCounters' queue length), for the
	// operations launched by a launch call.
	type step struct {
		at    trace.Time
		delta int
		state int32 // the operation
	}
	steps := map[int32][]step{}
	for _, l := range launches {
		if states[l.from].role.Launches() {
			st := streamOf[states[l.to].cont]
			steps[st] = append(steps[st], step{states[l.from].start, 1, l.to}, step{states[l.to].start, -1, l.to})
		}
	}
	queueAtLaunch, queueAtStart := map[int32]int{}, map[int32]int{}
	for _, ss := range steps {
		slices.SortStableFunc(ss, func(a, b step) int { return cmp.Compare(a.at, b.at) })
		q := 0
		for _, s := range ss {
			q += s.delta
			if s.delta > 0 {
				queueAtLaunch[s.state] = q
			} else {
				queueAtStart[s.state] = q
			}
		}
	}

	// The operations and synchronisations, by start (synchronisations by
	// end: one may overlap the operation it waits for).
	ops := make([]int32, 0, len(launches))
	for _, l := range launches {
		ops = append(ops, l.to)
	}
	sortBy := func(s int32) trace.Time {
		if syncRole(states[s].role) {
			return states[s].end
		}
		return states[s].start
	}
	slices.SortStableFunc(ops, func(a, b int32) int { return cmp.Or(cmp.Compare(sortBy(a), sortBy(b)), cmp.Compare(a, b)) })

	// The launch calls onto each stream, by start, for the CUDA-event
	// waits (HTA's find_previous_launch, find_next_launch).
	var byStream map[int32][]linkPair
	if len(waits) > 0 {
		byStream = map[int32][]linkPair{}
		for _, l := range launches {
			if states[l.from].role.Launches() {
				st := streamOf[states[l.to].cont]
				byStream[st] = append(byStream[st], l)
			}
		}
		for _, ls := range byStream {
			slices.SortStableFunc(ls, func(a, b linkPair) int { return cmp.Compare(states[a.from].start, states[b.from].start) })
		}
	}
	// kernelSync: an operation -> the operation it waits for (through a
	// cudaStreamWaitEvent).
	kernelSync := map[int32]int32{}

	lastOn := map[int32]int32{} // stream -> end node of its last operation
	var streams []int32         // in the order they got one
	synced := map[int32]bool{}  // the calls a recorded synchronisation joined to the GPU
	var work []int32            // the operations that are no synchronisation
	for _, s := range ops {
		stream := streamOf[states[s].cont]
		call := launchedBy[s]
		switch states[s].role {
		case trace.RoleStreamSync:
			if n, ok := lastOn[stream]; ok {
				gr.addEdge(n, gr.endOf(call), EdgeSyncWait, true, call)
				synced[call] = true
			}
			continue
		case trace.RoleContextSync:
			for _, st := range streams {
				gr.addEdge(lastOn[st], gr.endOf(call), EdgeSyncWait, true, call)
				synced[call] = true
			}
			continue
		case trace.RoleEventSync, trace.RoleStreamWaitEvent:
			w, ok := waits[s]
			if !ok {
				continue // no cudaEventRecord the wait is known to be for
			}
			// The event's operation: the last launched onto its stream
			// before the record.
			ls := byStream[w.stream]
			k, _ := slices.BinarySearchFunc(ls, w.at, func(l linkPair, t trace.Time) int { return cmp.Compare(states[l.from].start, t+1) })
			if k == 0 {
				continue
			}
			src := ls[k-1].to
			if states[s].role == trace.RoleEventSync {
				gr.addEdge(gr.endOf(src), gr.endOf(call), EdgeSyncWait, true, call)
				synced[call] = true
				continue
			}
			// The operation that waits: the next launched onto the
			// waiting stream from the thread of cudaStreamWaitEvent.
			thread := gr.g.laneBase(states[call].cont, gr.byName)
			for _, l := range byStream[stream] {
				if states[l.from].start >= states[call].start && gr.g.laneBase(states[l.from].cont, gr.byName) == thread {
					kernelSync[l.to] = src
					break
				}
			}
			continue
		}
		work = append(work, s)
		start, end := gr.startOf(s), gr.endOf(s)
		gr.addEdge(start, end, EdgeKernel, false, s)
		prev, had := lastOn[stream]
		qa, okA := queueAtLaunch[s]
		qs, okS := queueAtStart[s]
		syncEnd := int32(-1) // the end of the operation s waits for, if any
		if src, ok := kernelSync[s]; ok {
			syncEnd = gr.endOf(src)
			gr.addEdge(syncEnd, start, EdgeSyncWait, true, -1)
			delete(kernelSync, s)
		}
		syncedBefore := func(t trace.Time) bool { return syncEnd < 0 || gr.nodes[syncEnd].ts < t }
		switch {
		case okA && okS && qa == 1 && qs == 0 && (!had || gr.nodes[prev].ts < states[call].start) && syncedBefore(states[call].start):
			gr.addEdge(gr.startOf(call), start, EdgeLaunch, false, call)
		case had && syncedBefore(gr.nodes[prev].ts):
			gr.addEdge(prev, start, EdgeKernelGap, false, gr.nodes[prev].state)
		}
		if !had {
			streams = append(streams, stream)
		}
		lastOn[stream] = end
	}
	if !gr.g.kineto {
		gr.hostSync(work, launchedBy, synced)
	}
}

// hostSync stands in for the synchronisations a format does not record
// on the GPU side (rocprof, Nsight Systems exports without CUPTI's
// synchronisation records, or whose record joins nothing: a wait for an
// event whose record the export lacks): a blocking call not synced waits
// for the operation that ended last while it ran. (A Kineto trace without
// them, from a PyTorch before 2.1, gets none, as in HTA.)
func (gr *graph) hostSync(ops []int32, launchedBy map[int32]int32, synced map[int32]bool) {
	ends := slices.Clone(ops)
	slices.SortFunc(ends, func(a, b int32) int { return cmp.Compare(gr.states[a].end, gr.states[b].end) })
	for i, ok := range gr.isNode {
		s := gr.states[i]
		if !ok || !s.role.Blocks() {
			continue
		}
		if _, launched := launchedBy[int32(i)]; launched || synced[int32(i)] {
			continue
		}
		k, _ := slices.BinarySearchFunc(ends, s.end, func(o int32, t trace.Time) int {
			return cmp.Compare(gr.states[o].end, t+1)
		})
		if k > 0 && gr.states[ends[k-1]].end >= s.start {
			gr.addEdge(gr.endOf(ends[k-1]), gr.endOf(int32(i)), EdgeSyncWait, true, int32(i))
		}
	}
}

// cycleError words a graph that loops, naming an edge of the loop: one
// that goes back in time if any does, else one between two instants the
// loop holds (links joining two resources both ways at one instant). In
// the graph of a trace, the flows go forward in time (flowEnds); a loop
// comes from launches, synchronisations or flows at a single instant.
// looping tells the nodes the topological sort could not order. The
// fault is the data's, not a parameter's: a FormatError, whose file the
// caller that opened the trace names (errs.NameFile).
func (gr *graph) cycleError(looping func(n int32) bool) error {
	back, first := 0, -1
	for i, e := range gr.edges {
		if gr.nodes[e.to].ts < gr.nodes[e.from].ts {
			if back == 0 {
				first = i
			}
			back++
		}
	}
	origin := gr.g.start
	edgeWords := func(e edge) string {
		from, to := gr.nodes[e.from].state, gr.nodes[e.to].state
		f, t := &gr.states[from], &gr.states[to]
		return fmt.Sprintf("from %q on %s, begun at %s s, to %q on %s, begun at %s s",
			gr.nameOf(from), gr.g.path(f.cont), f.start-origin, gr.nameOf(to), gr.g.path(t.cont), t.start-origin)
	}
	if back > 0 {
		return errs.Format("", 0, "the graph of the critical path has a cycle: %d of its edges go back in time, "+
			"links joining a state to one that began before it (the first %s, from the trace's start); "+
			"the critical path needs links from each state to later ones, as task dependencies and GPU launches are",
			back, edgeWords(gr.edges[first]))
	}
	for _, e := range gr.edges {
		if e.kind == EdgeDependency && looping(e.from) && looping(e.to) {
			return errs.Format("", 0, "the graph of the critical path has a cycle: links join states both ways at one "+
				"instant (one %s, from the trace's start, at %s s); the critical path needs links from each state to later ones",
				edgeWords(e), gr.nodes[e.to].ts-origin)
		}
	}
	return errs.Format("", 0, "the graph of the critical path has a cycle")
}

// longestPath finds the graph's longest path (networkx's dag_longest_path,
// which HTA calls) and makes it a Result.
func (gr *graph) longestPath(semantics string) (*Result, error) {
	n := len(gr.nodes)
	indeg := make([]int32, n)
	for _, e := range gr.edges {
		indeg[e.to]++
	}
	if err := gr.look.Stopped(len(gr.edges)); err != nil {
		return nil, err
	}
	sorted := gr.sortedNodes()
	if err := gr.look.Stopped(len(sorted)); err != nil {
		return nil, err
	}
	topo := make([]int32, 0, n)
	for _, v := range sorted {
		if indeg[v] == 0 {
			topo = append(topo, v)
		}
	}
	for i := 0; i < len(topo); i++ {
		if err := gr.look.Stopped(1 + len(gr.out[topo[i]])); err != nil {
			return nil, err
		}
		for _, ei := range gr.out[topo[i]] {
			to := gr.edges[ei].to
			if indeg[to]--; indeg[to] == 0 {
				topo = append(topo, to)
			}
		}
	}
	points := len(gr.nodes) - 2*len(gr.states)
	if inGraph := 2*len(slices.DeleteFunc(slices.Clone(gr.isNode), func(ok bool) bool { return !ok })) + points; len(topo) != inGraph {
		return nil, gr.cycleError(func(v int32) bool { return indeg[v] > 0 })
	}
	dist := make([]trace.Time, n)
	via := make([]int32, n) // the edge the longest path arrives by, -1 at its start
	best := int32(-1)
	for _, v := range topo {
		if err := gr.look.Stopped(1 + len(gr.in[v])); err != nil {
			return nil, err
		}
		via[v] = -1
		for _, ei := range gr.in[v] {
			e := &gr.edges[ei]
			if d := dist[e.from] + e.weight; via[v] < 0 || d > dist[v] {
				dist[v], via[v] = d, ei
			}
		}
		if best < 0 || dist[v] > dist[best] {
			best = v
		}
	}
	var path []int32 // edges, from the end
	for v := best; v >= 0 && via[v] >= 0; v = gr.edges[via[v]].from {
		path = append(path, via[v])
	}
	slices.Reverse(path)
	if err := gr.look.Stopped(len(path)); err != nil {
		return nil, err
	}
	r, err := gr.toResult(semantics, path)
	if err != nil {
		return nil, err
	}
	// The attribution, last, goes through every state once.
	if err := gr.look.Stopped(len(gr.states)); err != nil {
		return nil, err
	}
	return r, nil
}

// toResult makes the path's edges the segments of a Result, each on the
// resource of the event it is attributed to (the destination's for the
// edges between resources).
func (gr *graph) toResult(semantics string, path []int32) (*Result, error) {
	g := gr.g
	resOf := map[int32]int32{}
	r := &Result{Semantics: semantics}
	var conts []int32
	for i, ok := range gr.isNode {
		if c := gr.states[i].cont; ok && resOf[c] == 0 {
			resOf[c] = -1
			conts = append(conts, c)
		}
	}
	slices.Sort(conts)
	r.spans = make([][2]trace.Time, len(conts))
	for i, c := range conts {
		resOf[c] = int32(i)
		r.Resources = append(r.Resources, g.path(c))
		r.spans[i] = [2]trace.Time{g.end, g.start}
	}
	for i, ok := range gr.isNode {
		if ok {
			s := gr.states[i]
			sp := &r.spans[resOf[s.cont]]
			sp[0], sp[1] = min(sp[0], s.start), max(sp[1], s.end)
		}
	}
	r.traceStart = g.start
	if len(path) == 0 {
		return nil, errs.Empty("", "the critical path is empty: the links of this trace join no states of positive duration")
	}
	for _, ei := range path {
		e := gr.edges[ei]
		from, to := gr.nodes[e.from], gr.nodes[e.to]
		seg := Segment{Resource: resOf[gr.states[to.state].cont], Start: to.ts - e.weight, End: to.ts, Via: e.kind, From: -1}
		switch e.kind {
		case EdgeCompute, EdgeKernel, EdgeKernelGap:
			if e.event >= 0 {
				seg.Resource = resOf[gr.states[e.event].cont]
			}
		}
		if fr := resOf[gr.states[from.state].cont]; fr != seg.Resource {
			seg.From = fr
		}
		if e.event >= 0 && (e.kind == EdgeCompute || e.kind == EdgeKernel || e.kind == EdgeKernelGap) {
			seg.Name = gr.nameOf(e.event) // HTA attributes these edges only
			seg.Role = gr.states[e.event].role
		}
		// A point inside a state (flowPoint) splits no stretch of it, nor
		// a thread's hop of no weight from one top-level state to the next
		// (a point inside a state that outlives its parent, callStack).
		if n := len(r.Segments); n > 0 && gr.isPoint(e.from) {
			last := &r.Segments[n-1]
			if last.Resource == seg.Resource && last.Via == seg.Via && last.Name == seg.Name && last.Role == seg.Role && last.From == seg.From {
				switch {
				case last.End == seg.Start:
					last.End = seg.End
					continue
				case last.Start == last.End && seg.Start == seg.End:
					*last = seg
					continue
				}
			}
		}
		r.Segments = append(r.Segments, seg)
	}
	r.Start, r.End = gr.nodes[gr.edges[path[0]].from].ts, gr.nodes[gr.edges[path[len(path)-1]].to].ts
	r.Attribution = gr.attribution(r)
	return r, nil
}

// unattributed names the time of the edges HTA attributes to no event.
var unattributed = map[string]string{EdgeLaunch: "(launch delay)", EdgeSyncWait: "(sync wait)",
	EdgeDependency: "(dependency)", EdgeCompute: NoState}

// attribution is what the path's time went to, by attributed event name
// (for the edges HTA attributes to none, their kind: "(launch delay)"...): each name's time on the
// path and on all resources within its extent.
func (gr *graph) attribution(r *Result) *Attribution {
	a := &Attribution{}
	byName := map[string]int{}
	share := func(n string) *StateShare {
		i, ok := byName[n]
		if !ok {
			i = len(a.ByState)
			byName[n] = i
			a.ByState = append(a.ByState, StateShare{State: n})
		}
		return &a.ByState[i]
	}
	for _, s := range r.Segments {
		if s.End <= s.Start {
			continue
		}
		n := s.Name
		if n == "" {
			n = unattributed[s.Via]
		}
		a.Pieces = append(a.Pieces, Piece{Resource: s.Resource, Start: s.Start, End: s.End, State: n})
		share(n).OnPath += s.End - s.Start
	}
	for i, ok := range gr.isNode {
		s := gr.states[i]
		if j, seen := byName[gr.g.names.String(s.name)]; ok && seen {
			if lo, hi := max(s.start, r.Start), min(s.end, r.End); hi > lo {
				a.ByState[j].Total += hi - lo
			}
		}
	}
	a.finish(r, resourceShares(r))
	return a
}
