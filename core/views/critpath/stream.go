package critpath

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/macroscope-hpc/macroscope/core/intern"

	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/mpi"
)

// Accumulator computes the critical path, what its time was spent on and
// the delay costs of the wait states while a trace streams by. It keeps
// the MPI calls and messages (an mpi.Builder, its calls set aside by
// resource) and, per container, its states that are not MPI calls, 24
// bytes each: the attribution and the delay costs need what every
// resource did between its calls. All go to a spill file beyond its
// share of memory (Options.SpillMemory).
type Accumulator struct {
	opt Options
	mpi *mpi.Builder
	// valueName is the name index of each value, -1 for the values that
	// are MPI calls (the builder keeps those).
	valueName []int32
	names     intern.Table      // the states' names
	spans     []mpi.Spool[span] // by container
	// spill takes the spans and the builder's records beyond its memory,
	// until Result.
	spill *mpi.Spill
	// graph keeps the states and links for the path of a GPU or task
	// trace, until the first MPI call says the trace is a message-passing
	// run (nil from then on).
	graph *graphCollector
	done  bool
	err   error
}

// span is a state of a container, as the accumulator keeps it.
type span struct {
	start, end  trace.Time
	depth, name int32
}

// New returns an empty accumulator.
func New(opt Options) *Accumulator {
	a := &Accumulator{opt: opt, mpi: mpi.NewBuilder(), graph: newGraphCollector(),
		spill: &mpi.Spill{Dir: opt.SpillDir, Memory: opt.SpillMemory}}
	a.mpi.SpillTo(a.spill)
	a.mpi.Cancel = opt.Cancel
	a.graph.cancel = opt.Cancel
	// The calls too: the path reads them back a chunk at a time.
	a.mpi.SpillCalls = true
	a.spans = []mpi.Spool[span]{mpi.NewSpool[span](a.spill)}
	return a
}

// Compute finds the critical path of a trace held in memory, its
// attribution and the delay costs.
func Compute(t *trace.Trace, opt Options) (*Result, error) {
	a := New(opt)
	defer a.Close() // what a canceled replay spilled; the Result's file is its own
	if err := t.ReplayCancel(a, opt.Cancel); err != nil {
		return nil, err
	}
	return a.Result()
}

func (a *Accumulator) name(n string) int32 { return a.names.ID(n) }

// DefineType implements trace.Sink.
func (a *Accumulator) DefineType(t trace.Type) {
	a.mpi.DefineType(t)
	if a.graph != nil {
		a.graph.defineType(t)
	}
}

// DefineValue implements trace.Sink.
func (a *Accumulator) DefineValue(v trace.Value) {
	a.mpi.DefineValue(v)
	id := int32(-1)
	if _, call := mpi.Operation(v.Name); !call {
		id = a.name(v.Name)
	}
	a.valueName = append(a.valueName, id)
	if a.graph != nil {
		a.graph.defineValue(v)
	}
}

// CreateContainer implements trace.Sink.
func (a *Accumulator) CreateContainer(c trace.Container) {
	a.mpi.CreateContainer(c)
	a.spans = append(a.spans, mpi.NewSpool[span](a.spill))
	if a.graph != nil {
		a.graph.createContainer(c)
	}
}

// DestroyContainer implements trace.Sink.
func (a *Accumulator) DestroyContainer(id int32, at trace.Time) { a.mpi.DestroyContainer(id, at) }

// State implements trace.Sink: MPI calls go to the builder, the other
// states of positive duration are kept.
func (a *Accumulator) State(s trace.State) {
	a.mpi.State(s)
	if s.Container < 0 || int(s.Container) >= len(a.spans) || s.Value < 0 || int(s.Value) >= len(a.valueName) {
		a.fail("state on unknown container %d or of unknown value %d", s.Container, s.Value)
		return
	}
	n := a.valueName[s.Value]
	if n >= 0 && s.End > s.Start {
		a.spans[s.Container].Append(span{s.Start, s.End, s.Depth, n})
	}
	if a.graph != nil {
		if n < 0 {
			a.graph = nil // an MPI call: Scalasca's semantics
		} else {
			a.graph.state(s)
		}
	}
}

// Variable implements trace.Sink.
func (a *Accumulator) Variable(v trace.Variable) { a.mpi.Variable(v) }

// Link implements trace.Sink.
func (a *Accumulator) Link(l trace.Link) {
	a.mpi.Link(l)
	if a.graph != nil {
		a.graph.link(l)
	}
}

// Event implements trace.Sink.
func (a *Accumulator) Event(e trace.Event) { a.mpi.Event(e) }

// Finish implements trace.Sink.
func (a *Accumulator) Finish(start, end trace.Time) {
	a.mpi.Finish(start, end)
	if a.graph != nil {
		a.graph.start, a.graph.end = start, end
	}
	a.done = true
}

func (a *Accumulator) fail(format string, args ...any) {
	if a.err == nil {
		a.err = fmt.Errorf("critpath: "+format, args...)
	}
}

// Close releases the spill file of a read that ended without Result (a
// failed or cancelled read); a failed Result closes it too, a Result made
// takes it (Result.Close). It may be called more than once.
func (a *Accumulator) Close() error { return a.spill.Close() }

// Result returns the critical path once the trace has finished, with its
// attribution (Result.Attribution) and what the delay costs need
// (Result.DelayCosts computes them when asked). The calls are taken from
// the builder a resource at a time (mpi.Builder.Blocks) and, with what
// each resource did, stay in the spill file, which the Result keeps.
func (a *Accumulator) Result() (*Result, error) {
	spill := a.spill
	defer func() {
		if a.spill != nil { // not handed to the Result
			a.spill.Close()
		}
	}()
	if a.err != nil {
		return nil, a.err
	}
	if err := trace.Stopped(a.opt.Cancel); err != nil {
		return nil, err
	}
	index := callIndex{members: mpi.NewSpool[collMember](spill)}
	// The messages' wait states are taken from their calls while Blocks
	// has them in hand, not read back from the spools out of order.
	messages := newMessageWaits(spill)
	// What each resource did does not depend on the path: it is built
	// on another core from the calls Blocks hands over, while Blocks
	// goes on and the path is found. Waited for on every way out, a
	// panic of the path's included, before the spill file it writes to
	// is closed (deferred above).
	acts := &activityBuilder{a: a, spill: spill}
	defer acts.stop()
	a.mpi.OnCalls = func(b *mpi.Blocks, r int, calls []mpi.Call) {
		index.add(b, r, calls)
		messages.resource(len(b.Resources), r, len(calls))
		acts.add(b, r, calls)
	}
	a.mpi.OnTied = messages.tied
	blocks, err := a.mpi.Blocks()
	if err != nil {
		return nil, err
	}
	if err := trace.Stopped(a.opt.Cancel); err != nil {
		return nil, err // the activities' goroutine stops (deferred)
	}
	if len(blocks.Resources) == 0 && a.graph != nil {
		// No MPI call: the path through launches or dependencies.
		a.spans = nil
		return a.graph.result()
	}
	run := runOfBlocks(blocks, &index)
	r, err := findPath(run, messages, a.opt)
	acts.wait()
	a.spans = nil
	// The spans or calls could not be read back: the file's error says
	// why (the path's is only that a call was not read).
	err = cmp.Or(spill.Err(), err)
	if err == nil {
		r.Attribution = attribute(r, acts.acts, acts.total, a.names.Strings())
		err = spill.Err() // the activities could not be written or read
	}
	if err != nil {
		return nil, err
	}
	// The spill file, which holds the calls and activities, is the
	// Result's now, for the delay costs and the waits' table: it goes
	// when the Result does, if not closed before.
	a.spill = nil
	r.acts, r.callName, r.stateNames, r.spill = acts.acts, acts.callName, a.names.Strings(), spill
	runtime.AddCleanup(r, func(s *mpi.Spill) { s.Close() }, spill)
	return r, nil
}

// activityBuilder builds what each resource did, on a goroutine of its
// own, from the calls mpi.Builder.Blocks hands over (OnCalls) while they
// are in memory, rather than read back from their spools, and the
// resource's states. Blocks waits for it a resource behind at most.
type activityBuilder struct {
	a     *Accumulator
	spill *mpi.Spill
	// Set at the first resource's calls, with the call names.
	calls    chan resourceCalls
	built    chan struct{}
	closing  sync.Once
	failed   any
	acts     []activity
	total    []trace.Time // of every piece, by name
	callName []int32      // the state name of each call name
}

// resourceCalls are the calls of resource r, as Blocks hands them over.
type resourceCalls struct {
	r     int
	calls []mpi.Call
}

// add is the activity of resource r's calls to build (mpi.Builder.OnCalls);
// the first starts the goroutine.
func (ab *activityBuilder) add(b *mpi.Blocks, r int, calls []mpi.Call) {
	if ab.calls == nil {
		ab.start(b)
	}
	select {
	case ab.calls <- resourceCalls{r, calls}:
	case <-ab.built: // it panicked: wait raises it again
	}
}

// start names the calls' states and starts the goroutine.
func (ab *activityBuilder) start(b *mpi.Blocks) {
	a := ab.a
	ab.callName = make([]int32, len(b.Names))
	for i, n := range b.Names {
		ab.callName[i] = a.name(n)
	}
	noState := a.name(NoState)
	ab.acts = make([]activity, len(b.Resources))
	ab.total = make([]trace.Time, a.names.Len())
	ab.calls, ab.built = make(chan resourceCalls, 1), make(chan struct{})
	resources, start, end := b.Resources, b.Start, b.End
	go func() {
		defer close(ab.built)
		// Nothing recovers a panic on this goroutine: it is handed back.
		defer func() { ab.failed = recover() }()
		var inner []piece
		for rc := range ab.calls {
			inner = innermost(a.spans[resources[rc.r].Container].Take(), inner[:0])
			ab.acts[rc.r] = newActivity(start, ab.spill, ab.total)
			buildActivity(start, end, rc.calls, inner, ab.callName, noState, &ab.acts[rc.r])
		}
	}()
}

// stop tells the goroutine that no more calls come, and waits for it.
func (ab *activityBuilder) stop() {
	if ab.calls == nil {
		return
	}
	ab.closing.Do(func() { close(ab.calls) })
	<-ab.built
}

// wait is stop, raising again what the goroutine panicked with.
func (ab *activityBuilder) wait() {
	ab.stop()
	if ab.failed != nil {
		panic(ab.failed)
	}
}

// findPath is fromRun; a variable so that tests can make it fail.
var findPath = fromRun

// runOfBlocks is the run of the calls set aside by resource: their
// chunks indexed, and the collectives gathered from their calls (the
// members of each in the order of the resources, as mpi.Run has them),
// as index gathered them while Blocks handed the calls over.
func runOfBlocks(b *mpi.Blocks, index *callIndex) *run {
	r := &run{Resources: b.Resources, Names: b.Names, Start: b.Start, End: b.End, NumMessages: b.NumMessages}
	r.Collectives, r.memberTimes = index.collectives(len(b.Members))
	r.spooled, r.lastInit, r.lastFinalize = index.spooled, index.lastInit, index.lastFinalize
	if r.spooled == nil { // no resource
		r.spooled, r.lastInit, r.lastFinalize = []spooledCalls{}, []int32{}, []int32{}
	}
	for res := range r.spooled {
		r.spooled[res].spool = &b.Calls[res]
	}
	return r
}

// callIndex is what the path needs of the calls beyond their spools,
// gathered as mpi.Builder.Blocks hands each resource's calls over (add)
// rather than read back from the spools: where each spool's chunks
// begin, each resource's last MPI_Init (where the delay costs'
// intervals may begin) and MPI_Finalize (where the path may end), and the
// collectives' members and their calls' times (what the collectives'
// wait states read of them).
type callIndex struct {
	ops          []string       // the operation of each call name
	spooled      []spooledCalls // their spool set by runOfBlocks (Blocks.Calls grows meanwhile)
	lastInit     []int32        // -1 for none
	lastFinalize []int32        // -1 for none
	// The collectives as their first members have them, Members aside
	// (count counts them); members are those of all, in the order of the
	// resources and their calls, with their calls' times, 32 bytes each
	// until collectives, in a spool (the spill file's beyond its share of
	// memory: as many as the calls of a collective each step).
	colls   []mpi.Collective
	count   []int32
	members mpi.Spool[collMember]
}

// collMember is a call in collective coll, and its times.
type collMember struct {
	times callTimes
	coll  int32
	call  mpi.CallRef
}

// add is mpi.Builder.OnCalls: the index of resource r's calls.
func (ix *callIndex) add(b *mpi.Blocks, r int, calls []mpi.Call) {
	if ix.spooled == nil {
		ix.ops = make([]string, len(b.Names))
		for i, n := range b.Names {
			ix.ops[i], _ = mpi.Operation(n)
		}
		ix.spooled = make([]spooledCalls, len(b.Resources))
		ix.lastInit, ix.lastFinalize = make([]int32, len(b.Resources)), make([]int32, len(b.Resources))
	}
	ix.lastInit[r], ix.lastFinalize[r] = -1, -1
	for j := range calls {
		c := &calls[j]
		switch ix.ops[c.Name] {
		case "init":
			ix.lastInit[r] = int32(j)
		case "finalize":
			ix.lastFinalize[r] = int32(j)
		}
		if !c.Class.Collective() || c.Coll < 0 {
			continue
		}
		ix.grow(int(c.Coll) + 1)
		coll := &ix.colls[c.Coll]
		if ix.count[c.Coll] == 0 {
			coll.Name, coll.Comm, coll.Class = c.Name, c.Comm, c.Class
		}
		if c.Root {
			coll.Root = ix.count[c.Coll]
		}
		ix.count[c.Coll]++
		ix.members.Append(collMember{callTimes{c.Enter, c.Leave}, c.Coll, mpi.CallRef{Resource: int32(r), Call: int32(j)}})
	}
	ix.spooled[r] = indexCalls(&b.Calls[r], calls)
}

// grow makes room for n collectives.
func (ix *callIndex) grow(n int) {
	for len(ix.colls) < n {
		ix.colls = append(ix.colls, mpi.Collective{Root: -1})
		ix.count = append(ix.count, 0)
	}
}

// collectives returns the n collectives with their members, in one
// array for all, and the times of the members' calls in the same order.
func (ix *callIndex) collectives(n int) ([]mpi.Collective, []callTimes) {
	ix.grow(n)
	members := make([]mpi.CallRef, ix.members.Len())
	times := make([]callTimes, ix.members.Len())
	// next is where each collective's next member goes.
	next, at := ix.count, int32(0)
	for i := range ix.colls {
		k := next[i]
		ix.colls[i].Members = members[at : at+k : at+k]
		next[i] = at
		at += k
	}
	ix.members.Drain(func(m *collMember) {
		members[next[m.coll]] = m.call
		times[next[m.coll]] = m.times
		next[m.coll]++
	})
	colls := ix.colls
	ix.colls, ix.count = nil, nil
	return colls, times
}

// piece is a stretch of a resource doing one thing (a name index).
type piece struct {
	start, end trace.Time
	name       int32
}

// innermost returns the innermost states of one container (spans, which
// it sorts), as pieces in time order appended to out: at each instant the
// open state opened last (outer states open first among those opening
// together; states end before others begin at the same instant).
func innermost(spans []span, out []piece) []piece {
	slices.SortStableFunc(spans, func(x, y span) int {
		return cmp.Or(cmp.Compare(x.start, y.start), cmp.Compare(x.depth, y.depth))
	})
	var stack []int32
	at := trace.Time(0)
	emit := func(to trace.Time, name int32) {
		if to <= at {
			return
		}
		if n := len(out); n > 0 && out[n-1].name == name && out[n-1].end == at {
			out[n-1].end = to
		} else {
			out = append(out, piece{at, to, name})
		}
		at = to
	}
	// closeUntil closes the states that end at or before t, emitting the
	// stretches their tops covered.
	closeUntil := func(t trace.Time) {
		for len(stack) > 0 {
			top := spans[stack[len(stack)-1]]
			if top.end > t {
				return
			}
			emit(top.end, top.name)
			stack = stack[:len(stack)-1]
			// States under it that ended meanwhile were never on top.
			for len(stack) > 0 && spans[stack[len(stack)-1]].end <= at {
				stack = stack[:len(stack)-1]
			}
		}
	}
	for i, s := range spans {
		closeUntil(s.start)
		if len(stack) > 0 {
			emit(s.start, spans[stack[len(stack)-1]].name)
		}
		at = s.start
		stack = append(stack, int32(i))
	}
	closeUntil(trace.Time(1<<62 - 1))
	return out
}

// buildActivity builds into act what a resource did over the run, from
// start to end: its MPI calls (in time order), between them its
// innermost states (inner, in time order), else noState.
func buildActivity(start, end trace.Time, calls []mpi.Call, inner []piece, callName []int32, noState int32, act *activity) {
	i := 0
	gap := func(a, b trace.Time) {
		for i < len(inner) && inner[i].end <= a {
			i++
		}
		at := a
		for k := i; k < len(inner) && inner[k].start < b; k++ {
			p := inner[k]
			act.add(at, max(at, p.start), noState)
			s, e := max(p.start, at), min(p.end, b)
			act.add(s, e, p.name)
			at = max(at, e)
		}
		act.add(at, b, noState)
	}
	at := start
	for i := range calls {
		c := &calls[i]
		gap(at, c.Enter)
		act.add(max(at, c.Enter), c.Leave, callName[c.Name])
		at = max(at, c.Leave)
	}
	gap(at, max(at, end))
	act.finish()
}

// attribute attributes the path's time to what its resources were doing.
// all is the time of each name over the activities (they tile the run):
// what falls outside the path's extent is taken off it, rather than what
// falls inside added up again (a read of every piece).
func attribute(r *Result, acts []activity, all []trace.Time, names []string) *Attribution {
	total := make([]trace.Time, len(names))
	copy(total, all)
	outside := func(s, e trace.Time, n int32) { total[n] -= e - s }
	for i := range acts {
		acts[i].each(math.MinInt64, r.Start, outside)
		acts[i].each(r.End, math.MaxInt64, outside)
	}
	a := &Attribution{}
	onPath := make([]trace.Time, len(names))
	seen := make([]bool, len(names))
	for _, seg := range r.Segments {
		acts[seg.Resource].each(seg.Start, seg.End, func(s, e trace.Time, n int32) {
			a.Pieces = append(a.Pieces, Piece{Resource: seg.Resource, Start: s, End: e, State: names[n]})
			onPath[n] += e - s
			seen[n] = true
		})
	}
	for i, on := range onPath {
		if seen[i] {
			a.ByState = append(a.ByState, StateShare{State: names[i], OnPath: on, Total: total[i]})
		}
	}
	a.finish(r, resourceShares(r))
	return a
}
