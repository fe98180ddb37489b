package pop

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/mpi"
)

// Options tune the POP analysis of one run.
type Options struct {
	// EagerLimit is the size in bytes above which a blocking send waits
	// for its receiver in the ideal replay; 0 means DefaultEagerLimit, a
	// negative value every send (rendezvous), +Inf none.
	EagerLimit float64
	// NoIdeal skips the ideal replay: serialisation and transfer
	// efficiencies are then unknown, and the messages are not kept.
	NoIdeal bool
	// SpillDir and SpillMemory say where the MPI calls, the links, the
	// collectives' events and the replay's waits go beyond SpillMemory
	// bytes in memory (mpi.Spill: "" is the system's temporary
	// directory, 0 mpi.DefaultSpillMemory, negative never).
	SpillDir    string
	SpillMemory int64
	// Cancel, once closed, stops Compute (while it replays the trace)
	// and Result (in its passes over the calls and in the ideal replay),
	// which return trace.ErrComputationCanceled and no result. Nil: never.
	Cancel <-chan struct{}
}

func (o Options) eagerLimit() float64 {
	switch {
	case o.EagerLimit == 0:
		return DefaultEagerLimit
	case o.EagerLimit < 0:
		return -1
	}
	return o.EagerLimit
}

// Resource is one resource's share of a run.
type Resource struct {
	Path    string
	Process string // the process it belongs to (itself for a rank)
	// Useful is its useful computation, MPI its time in MPI calls,
	// Outside its time outside MPI calls from the trace's start to its
	// last record (the CPU bursts of the ideal replay).
	Useful, MPI, Outside trace.Time
	// UsefulOpenMP is the part of Useful inside OpenMP constructs (the
	// model of hybrid runs; 0 without them).
	UsefulOpenMP trace.Time
	// IdealEnd is its end in the ideal replay, on the trace's clock,
	// -1 without it.
	IdealEnd trace.Time
	// Instructions and Cycles are the hardware counters over its useful
	// computation, NaN when the trace has none.
	Instructions, Cycles float64
}

// Run is the raw data of the POP metrics for one run, the quantities BSC's
// modelfactors.py names in its "#" lines.
type Run struct {
	Source    string
	Processes int // distinct processes
	// Resources counts the rows the useful times are over (threads, or
	// ranks).
	Resources int
	Runtime   trace.Time // the trace's duration
	// Useful computation: added up, its largest, its mean per resource.
	UsefulTotal, UsefulMax trace.Time
	UsefulAvg              float64 // nanoseconds
	// The ideal-network replay (when HasIdeal): its runtime, and the
	// largest time outside MPI calls, which it keeps.
	HasIdeal       bool
	IdealRuntime   trace.Time
	UsefulIdealMax trace.Time
	// NoIdealReason says why there is no replay.
	NoIdealReason string
	// Instructions and Cycles in useful computation, added up; NaN
	// without hardware counters.
	Instructions, Cycles float64
	// UsefulRule says what counted as useful computation.
	UsefulRule string
	Calls      int // MPI calls
	Messages   int
	// PerResource details every resource.
	PerResource []Resource
	// Model says what the run uses. With MPI calls: "MPI+OpenMP" when
	// the trace records OpenMP constructs (Extrae's OpenMP events, OTF2's
	// regions of paradigm OPENMP), whatever its threads per process, else
	// "MPI+threads" for several threads per process, else "MPI".
	// Without (Extrae's Running state only): "OpenMP" with the
	// constructs, else "threads" or "serial".
	Model string
	// ThreadsPerProcess is the largest number of resources of a process.
	ThreadsPerProcess int
	// PerProcess details every process, for the hybrid factors.
	PerProcess []Process
}

// Process is one process's share of a hybrid run: the quantities of
// BSC's hybrid model factors and of pypop's MPI+OpenMP metrics, taken on
// its main thread (the one longest in MPI calls, the first if none).
type Process struct {
	Path    string
	Main    string // the path of its main thread
	Threads int
	// OutsideMPI is the runtime less the main thread's time in MPI calls
	// (BSC's "outside MPI" of the process); IdealOutside the main
	// thread's time outside MPI calls up to its last record, which the
	// ideal replay keeps.
	OutsideMPI, IdealOutside trace.Time
	// OpenMP is the main thread's time inside OpenMP constructs (pypop's
	// "OpenMP Total Runtime"), SerialUseful its useful computation
	// outside them ("Serial Useful Computation").
	OpenMP, SerialUseful trace.Time
}

// Accumulator computes the raw data of a run while a trace streams by. It
// keeps, per container, the useful time and counters so far; the ideal
// replay needs the MPI calls and messages, which an mpi.Builder gathers
// (unless Options.NoIdeal).
type Accumulator struct {
	opt     Options
	mpi     *mpi.Builder
	spill   *mpi.Spill // the builder's records beyond its memory, until Result
	waits   *waits     // the ideal replay's, from the messages as they are tied
	types   []typeInfo
	values  []valueInfo
	conts   []container
	running bool // the trace has Extrae's Running state
	openMP  bool // it has OpenMP constructs (events or regions)
	// openMPTypes: the trace defines event types of OpenMP constructs
	// (Extrae's), before the first such event in a stream (the Paraver
	// reader defines a type at its first record, in time order, not as
	// the .pcf declares it) and before any state in a replay (a trace in
	// memory defines its types first).
	openMPTypes bool
	// events: an event has been delivered. A replay delivers every state
	// before the first event (trace.Replay), a stream its records in time
	// order: once events flow, types declared without an OpenMP event
	// yet say nothing of the constructs to come.
	events  bool
	counter [2]bool // it has Extrae's counter events
	metric  [2]bool // it has PAPI metrics (OTF2)
	err     error
	start   trace.Time
	end     trace.Time
	done    bool
}

type typeInfo struct {
	name, alias string
	kind        trace.Kind
	// counter is 0 for instructions, 1 for cycles, -1 for neither: event
	// types (Extrae's counters) and variable types (OTF2's metrics).
	counter int8
	openMP  bool // Extrae's OpenMP events
	thread  bool // containers of this type are threads (trace.IsThread)
}

type valueInfo struct {
	name, alias string
	typ         int32
	running     bool
	measurement bool
	omp         openMPRole // in a byte: traces define a value per counter reading
	count       float64    // a counter event's value
}

// openMPRole is what an OpenMP value stands for.
type openMPRole uint8

const (
	notOpenMP       openMPRole = iota
	openMPConstruct            // trace.RoleParallelRegion (OTF2's OpenMP regions, outlined bodies)
	openMPWaitIn               // trace.RoleParallelWait: a construct where a thread waits (OTF2's barriers)
	openMPWaitOnly             // trace.RoleParallelIdle: a wait outside constructs (HPCToolkit's <omp idle>...)
	openMPLeave                // Extrae's OpenMP event of value 0
	openMPEnter                // Extrae's OpenMP event of another value
)

type container struct {
	name        string
	parent, typ int32
	first, last trace.Time
	seen        bool
	threads     int32 // a process's threads
	running     trace.Time
	hasRunning  bool
	// bursts[k] holds the Running bursts still waiting for a counter k
	// event at or after their end (Paraver's "next event value").
	bursts  [2][]burst
	counts  [2]float64
	counted [2]bool
	// measurement holds the intervals of measurement regions.
	measurement [][2]trace.Time
	// samples[k] holds the samples of the accumulated PAPI metric k
	// (OTF2): when each was taken, and its value.
	samples [2][]sample
	omp     openMPTime
	// lastRunning is the last Running burst of a thread whose bursts are
	// not kept (one thread in its process, no OpenMP event yet): in a
	// stream it may straddle the trace's first OpenMP event, which
	// comes after it.
	lastRunning [2]trace.Time
}

// openMPTime follows a thread's OpenMP constructs: their intervals (from
// OTF2's regions, or from Extrae's events, by the depth of the constructs
// entered and not left: Paraver's "Stacked Val"), and the thread's
// Running bursts (Extrae), to be compared once the trace has finished
// (a trace in memory replays a thread's states before its events).
// Adjacent bursts are kept as one: what is kept grows with the bursts
// between MPI calls and synchronisations, as the calls the replay keeps.
type openMPTime struct {
	depth   int
	since   trace.Time // when the outermost open construct was entered
	regions [][2]trace.Time
	waits   [][2]trace.Time
	running [][2]trace.Time
}

// change records an Extrae OpenMP event at t: enter (a non-zero value)
// or leave.
func (o *openMPTime) change(t trace.Time, enter bool) {
	switch {
	case enter:
		if o.depth == 0 {
			o.since = t
		}
		o.depth++
	case o.depth > 0:
		o.depth--
		if o.depth == 0 {
			o.regions = append(o.regions, [2]trace.Time{o.since, t})
		}
	}
}

// close ends at t the constructs still open.
func (o *openMPTime) close(t trace.Time) {
	if o.depth > 0 {
		o.regions = append(o.regions, [2]trace.Time{o.since, max(t, o.since)})
		o.depth = 0
	}
}

type sample struct {
	at    trace.Time
	value float64
}

type burst struct{ b, e trace.Time }

// New returns an accumulator.
func New(opt Options) *Accumulator {
	a := &Accumulator{opt: opt, conts: []container{{name: "0", parent: trace.None, typ: trace.None}}}
	a.mpi = mpi.NewBuilder()
	a.mpi.Cancel = opt.Cancel
	a.spill = &mpi.Spill{Dir: opt.SpillDir, Memory: opt.SpillMemory}
	a.mpi.SpillTo(a.spill)
	if !opt.NoIdeal {
		// The messages become the replay's waits as they are tied to
		// their calls: they are never all held.
		a.waits = newWaits(opt.eagerLimit(), a.spill)
		a.waits.cancel = opt.Cancel
		a.mpi.OnMessage = a.waits.add
	}
	a.mpi.SpillCalls = true
	return a
}

// Compute computes the raw data of a trace held in memory.
func Compute(t *trace.Trace, opt Options) (*Run, error) {
	a := New(opt)
	defer a.Close() // what a canceled replay spilled
	if err := t.ReplayCancel(a, opt.Cancel); err != nil {
		return nil, err
	}
	return a.Result()
}

func (a *Accumulator) fail(format string, args ...any) {
	if a.err == nil {
		a.err = fmt.Errorf("pop: "+format, args...)
	}
}

// DefineType implements trace.Sink.
func (a *Accumulator) DefineType(t trace.Type) {
	a.mpi.DefineType(t)
	info := typeInfo{name: t.Name, alias: t.Alias, kind: t.Kind, counter: -1, thread: trace.IsThread(t)}
	switch {
	case (t.Kind == trace.KindEvent || t.Kind == trace.KindVariable) && t.Role == trace.RoleInstructions:
		info.counter = 0
	case (t.Kind == trace.KindEvent || t.Kind == trace.KindVariable) && t.Role == trace.RoleCycles:
		info.counter = 1
	}
	if t.Kind == trace.KindEvent && t.Role == trace.RoleParallelConstruct {
		info.openMP = true
		a.openMPTypes = true
	}
	if info.counter >= 0 && t.Kind == trace.KindEvent {
		a.counter[info.counter] = true
	}
	if info.counter >= 0 && t.Kind == trace.KindVariable {
		a.metric[info.counter] = true
	}
	a.types = append(a.types, info)
}

// DefineValue implements trace.Sink.
func (a *Accumulator) DefineValue(v trace.Value) {
	a.mpi.DefineValue(v)
	info := valueInfo{name: v.Name, alias: v.Alias, typ: v.Type}
	if v.Type >= 0 && int(v.Type) < len(a.types) {
		t := a.types[v.Type]
		switch {
		case t.kind == trace.KindState && v.Role == trace.RoleUseful:
			info.running = true
		case t.kind == trace.KindState && v.Role == trace.RoleMeasurement:
			info.measurement = true
		case t.kind == trace.KindState && v.Role == trace.RoleParallelRegion:
			info.omp = openMPConstruct
		case t.kind == trace.KindState && v.Role == trace.RoleParallelWait:
			info.omp = openMPWaitIn
		case t.kind == trace.KindState && v.Role == trace.RoleParallelIdle:
			info.omp = openMPWaitOnly
		case t.openMP:
			info.omp = openMPEnter
			if v.Role == trace.RoleOff {
				info.omp = openMPLeave
			}
		case t.counter >= 0:
			c, err := strconv.ParseFloat(v.Alias, 64)
			if err != nil {
				c, err = strconv.ParseFloat(v.Name, 64)
			}
			if err == nil {
				info.count = c
			}
		}
	}
	a.values = append(a.values, info)
}

// CreateContainer implements trace.Sink.
func (a *Accumulator) CreateContainer(c trace.Container) {
	a.mpi.CreateContainer(c)
	if c.Parent < 0 || int(c.Parent) >= len(a.conts) {
		c.Parent = 0
	}
	a.conts = append(a.conts, container{name: c.Name, parent: c.Parent, typ: c.Type})
	if id := int32(len(a.conts) - 1); a.process(id) != id {
		a.conts[c.Parent].threads++
	}
}

// DestroyContainer implements trace.Sink.
func (a *Accumulator) DestroyContainer(id int32, at trace.Time) { a.mpi.DestroyContainer(id, at) }

func (a *Accumulator) seen(c *container, from, to trace.Time) {
	if !c.seen {
		c.first, c.last, c.seen = from, to, true
		return
	}
	c.first, c.last = min(c.first, from), max(c.last, to)
}

// maxPendingBursts bounds the Running bursts a container keeps while the
// trace has shown no counter yet: a trace without counters keeps none
// for long.
const maxPendingBursts = 4096

// State implements trace.Sink.
func (a *Accumulator) State(s trace.State) {
	a.mpi.State(s)
	if s.Container < 0 || int(s.Container) >= len(a.conts) || s.Value < 0 || int(s.Value) >= len(a.values) {
		a.fail("state on unknown container %d or of unknown value %d", s.Container, s.Value)
		return
	}
	c := &a.conts[s.Container]
	a.seen(c, s.Start, s.End)
	v := &a.values[s.Value]
	switch {
	case v.running:
		a.running, c.hasRunning = true, true
		c.running += s.End - s.Start
		if s.End > s.Start {
			for k := range c.bursts {
				if a.counter[k] || len(c.bursts[k]) < maxPendingBursts {
					c.bursts[k] = append(c.bursts[k], burst{s.Start, s.End})
				}
			}
			// Only the threads of a process of several threads, or of a
			// trace of OpenMP constructs (an OpenMP program run on one
			// thread: its constructs' time is not serial computation),
			// can be in OpenMP constructs: an MPI-only trace keeps no
			// burst. Constructs are known by their events: in a stream,
			// from the first one on (the constructs begin at their
			// events); in a replay, whose states come before its
			// events, by the types the trace in memory defines, which
			// its reader defined at their first event.
			if c.parent > 0 && (a.conts[c.parent].threads > 1 || a.openMP || a.openMPTypes && !a.events) {
				if n := len(c.omp.running); n > 0 && c.omp.running[n-1][1] == s.Start {
					c.omp.running[n-1][1] = s.End
				} else {
					c.omp.running = append(c.omp.running, [2]trace.Time{s.Start, s.End})
				}
			} else {
				c.lastRunning = [2]trace.Time{s.Start, s.End}
			}
		}
	case v.measurement:
		c.measurement = append(c.measurement, [2]trace.Time{s.Start, s.End})
	case v.omp != notOpenMP:
		a.openMP = true
		// A wait is not computation, and not inside a construct unless
		// one encloses it (HPCToolkit's idle threads).
		if v.omp == openMPWaitIn || v.omp == openMPWaitOnly {
			c.omp.waits = append(c.omp.waits, [2]trace.Time{s.Start, s.End})
		}
		if v.omp != openMPWaitOnly {
			c.omp.regions = append(c.omp.regions, [2]trace.Time{s.Start, s.End})
		}
	}
}

// Variable implements trace.Sink: the pieces of the PAPI metrics are
// kept (a sample each) until the useful intervals are known.
func (a *Accumulator) Variable(v trace.Variable) {
	if v.Type < 0 || int(v.Type) >= len(a.types) || v.Container < 0 || int(v.Container) >= len(a.conts) {
		a.fail("variable on unknown container %d or of unknown type %d", v.Container, v.Type)
		return
	}
	if k := a.types[v.Type].counter; k >= 0 {
		c := &a.conts[v.Container]
		c.samples[k] = append(c.samples[k], sample{v.Start, v.Value})
	}
}

// Link implements trace.Sink.
func (a *Accumulator) Link(l trace.Link) {
	if !a.opt.NoIdeal {
		a.mpi.Link(l)
	}
}

// straddling keeps, at the trace's first OpenMP event (at t, in a
// stream), the Running bursts not kept before it that last beyond it: a
// construct it opens may hold their end.
func (a *Accumulator) straddling(t trace.Time) {
	for i := range a.conts {
		c := &a.conts[i]
		if r := c.lastRunning; r[1] > t && r[1] > r[0] {
			c.omp.running = append(c.omp.running, r)
		}
		c.lastRunning = [2]trace.Time{}
	}
}

// Event implements trace.Sink.
func (a *Accumulator) Event(e trace.Event) {
	a.mpi.Event(e)
	if e.Container < 0 || int(e.Container) >= len(a.conts) || e.Type < 0 || int(e.Type) >= len(a.types) ||
		e.Value < 0 || int(e.Value) >= len(a.values) {
		a.fail("event on unknown container %d or of unknown type %d or value %d", e.Container, e.Type, e.Value)
		return
	}
	c := &a.conts[e.Container]
	a.seen(c, e.Time, e.Time)
	a.events = true
	if a.types[e.Type].openMP {
		if !a.openMP {
			a.straddling(e.Time)
		}
		a.openMP = true
		c.omp.change(e.Time, a.values[e.Value].omp != openMPLeave)
		return
	}
	k := a.types[e.Type].counter
	if k < 0 {
		return
	}
	// Paraver's "next event value" times "useful": each stretch of a
	// Running burst, cut at the counter's events, is worth the value of
	// the first event after the stretch begins; so a burst [b, e) gets
	// the events in (b, e) and the first at or after e.
	v, q := a.values[e.Value].count, c.bursts[k]
	i := 0
	for ; i < len(q) && q[i].e <= e.Time; i++ {
		c.counts[k] += v
	}
	q = q[i:]
	if len(q) > 0 && q[0].b < e.Time {
		c.counts[k] += v
	}
	c.counted[k] = true
	// Reuse the array once it is drained.
	if len(q) == 0 {
		q = c.bursts[k][:0]
	}
	c.bursts[k] = q
}

// Finish implements trace.Sink.
func (a *Accumulator) Finish(start, end trace.Time) {
	a.mpi.Finish(start, end)
	if a.done {
		a.fail("Finish called twice")
	}
	a.done, a.start, a.end = true, start, end
}

// Close releases the spill file of a read that ended without Result (a
// failed or cancelled read); Result closes it too. It may be called more
// than once.
func (a *Accumulator) Close() error { return a.spill.Close() }

// Result returns the raw data once the trace has finished.
func (a *Accumulator) Result() (*Run, error) {
	defer a.spill.Close()
	if a.err != nil {
		return nil, a.err
	}
	if !a.done {
		return nil, fmt.Errorf("pop: the trace has not finished")
	}
	look := trace.Looker{Cancel: a.opt.Cancel}
	if err := look.Stopped(0); err != nil {
		return nil, err
	}
	// The calls, a resource at a time, never all in memory: the replay
	// and the resources' times read each resource's forwards.
	run, err := a.mpi.Blocks()
	if err != nil {
		return nil, err
	}
	if err := look.Stopped(run.NumCalls); err != nil {
		return nil, err
	}
	out := &Run{Runtime: a.end - a.start, Instructions: math.NaN(), Cycles: math.NaN(),
		Calls: run.NumCalls, Messages: run.NumMessages}
	// The ideal replay runs on another core while the resources' times
	// are added up (both only read the run).
	replay := !a.opt.NoIdeal && (run.NumMessages > 0 || len(run.Members) > 0 || len(run.Resources) <= 1)
	var ideal *Ideal
	var idealErr error
	var failed any
	replayed := make(chan struct{})
	go func() {
		defer close(replayed)
		// Nothing recovers a panic on this goroutine: it is handed back.
		defer func() { failed = recover() }()
		if replay {
			ideal, idealErr = a.waits.replayBlocks(run)
		}
	}()
	defer func() { <-replayed }()
	// The resources: the containers with Extrae's Running state, or else
	// those making MPI calls.
	resOf := map[int32]int{}
	for i, r := range run.Resources {
		resOf[r.Container] = i
	}
	var ids []int32
	if a.running {
		out.UsefulRule = "Extrae's Running state"
		for id := range a.conts {
			if a.conts[id].hasRunning {
				ids = append(ids, int32(id))
			}
		}
	} else {
		out.UsefulRule = "time outside MPI calls and measurement regions, from each resource's first record to its last"
		for _, r := range run.Resources {
			ids = append(ids, r.Container)
		}
	}
	if len(ids) == 0 {
		// The data, not an argument, are outside POP's scope: an
		// EmptyError, named by its file and a failure (status 1), not
		// bad usage (status 2).
		return nil, errs.Empty("", "POP does not apply to this trace: it needs MPI calls or Extrae's Running state, and none of the states or "+
			"events of this trace are MPI calls (states named MPI_* or PMPI_*, Extrae's events 50000001-50000005); "+
			"POP models MPI runs (hybrid MPI+OpenMP too) traced by Extrae (Paraver), Score-P (OTF2), SMPI (Pajé) or HPCToolkit, "+
			"and OpenMP runs traced by Extrae")
	}
	if !a.running && a.openMP {
		// OTF2's OpenMP threads make no MPI calls: the other threads of
		// the processes that do are resources too.
		ids = a.siblingThreads(ids)
	}
	slices.SortFunc(ids, cmp.Compare)
	inMPI := run.InCalls
	main := a.mainThreads(ids, inMPI, resOf)
	var calls []mpi.Call // a resource's, read again when its useful time needs them
	threads := map[int32]int{}
	for _, id := range ids {
		threads[a.process(id)]++
	}
	extrae := a.counter[0] && a.counter[1]
	haveCounters := extrae || !a.running && a.metric[0] && a.metric[1]
	if haveCounters {
		out.Instructions, out.Cycles = 0, 0
	}
	procs := map[int32]bool{}
	var useful [][2]trace.Time
	for _, id := range ids {
		c := &a.conts[id]
		r := Resource{Path: a.path(id), IdealEnd: -1, Instructions: math.NaN(), Cycles: math.NaN()}
		p := a.process(id)
		procs[p] = true
		r.Process = a.path(p)
		calls = calls[:0]
		if i, ok := resOf[id]; ok {
			r.MPI = inMPI[i]
			if !a.running {
				read := run.Calls[i].Reader()
				for c, ok := read.Next(); ok; c, ok = read.Next() {
					calls = append(calls, *c)
				}
			}
		}
		if err := look.Stopped(1 + len(calls)); err != nil {
			return nil, err // the replay, if running, stops at its own look
		}
		useful = useful[:0]
		isMain := main[p] == id
		if a.running {
			r.Useful = c.running
			if a.openMP {
				c.omp.close(a.end)
				c.omp.regions = union(c.omp.regions)
				r.UsefulOpenMP = overlap(union(c.omp.running), c.omp.regions)
			}
		} else {
			busy := c.measurement
			if a.openMP {
				busy = append(slices.Clip(busy), c.omp.waits...)
				c.omp.regions = union(c.omp.regions)
			}
			useful = usefulIntervals(c.first, c.last, calls, busy, useful[:0])
			if a.openMP && !isMain {
				// A thread other than the main one computes only in the
				// OpenMP constructs: the rest of the time it idles.
				useful = intersect(useful, c.omp.regions)
			}
			for _, u := range useful {
				r.Useful += u[1] - u[0]
			}
			r.UsefulOpenMP = overlap(useful, c.omp.regions)
		}
		r.Outside = max(c.last-a.start, 0) - r.MPI
		if isMain {
			inside := overlap(c.omp.regions, [][2]trace.Time{{a.start, a.end}})
			out.PerProcess = append(out.PerProcess, Process{Path: r.Process, Main: r.Path, Threads: threads[p],
				OutsideMPI: out.Runtime - r.MPI, IdealOutside: r.Outside,
				OpenMP: inside, SerialUseful: r.Useful - r.UsefulOpenMP})
		}
		if haveCounters {
			if extrae {
				r.Instructions, r.Cycles = c.counts[0], c.counts[1]
			} else {
				r.Instructions, r.Cycles = accumulated(c.samples[0], useful), accumulated(c.samples[1], useful)
			}
			out.Instructions += r.Instructions
			out.Cycles += r.Cycles
		}
		out.UsefulTotal += r.Useful
		out.UsefulMax = max(out.UsefulMax, r.Useful)
		out.PerResource = append(out.PerResource, r)
	}
	out.Resources, out.Processes = len(ids), len(procs)
	for _, p := range out.PerProcess {
		out.ThreadsPerProcess = max(out.ThreadsPerProcess, p.Threads)
	}
	// Named by what the run uses, as pypop's metric sets are (MPI_Metrics,
	// OpenMP_Metrics, MPI_OpenMP_Metrics): an OpenMP program is one on a
	// single thread too, and one without MPI calls is not an MPI run.
	switch mpi := out.Calls > 0; {
	case mpi && a.openMP:
		out.Model = "MPI+OpenMP"
	case mpi && out.ThreadsPerProcess > 1:
		out.Model = "MPI+threads"
	case mpi:
		out.Model = "MPI"
	case a.openMP:
		out.Model = "OpenMP"
	case out.ThreadsPerProcess > 1:
		out.Model = "threads"
	default:
		out.Model = "serial"
	}
	// The threads other than the main one of a process making MPI calls
	// follow it in the ideal replay: its ideal times stand for theirs.
	follows := make([]bool, len(out.PerResource))
	for k, id := range ids {
		m, ok := main[a.process(id)]
		_, mainCalls := resOf[m]
		follows[k] = ok && m != id && mainCalls
	}
	out.UsefulAvg = float64(out.UsefulTotal) / float64(out.Resources)
	switch {
	case a.opt.NoIdeal:
		out.NoIdealReason = "the ideal replay was not asked for"
	case run.NumMessages == 0 && len(run.Members) == 0 && len(run.Resources) > 1:
		out.NoIdealReason = "the trace has no point-to-point messages or collective operations between its MPI calls " +
			"(the format does not record them), so the ideal-network runtime is unknown"
	default:
		<-replayed
		if failed != nil {
			panic(failed)
		}
		if err := a.spill.Err(); err != nil {
			// The calls or waits could not be read back.
			return nil, err
		}
		if errors.Is(idealErr, errUnpaired) {
			out.NoIdealReason = strings.TrimPrefix(idealErr.Error(), "pop: ") +
				", so the ideal-network runtime (serialisation, transfer) is unknown"
			break
		}
		if idealErr != nil {
			return nil, idealErr
		}
		out.HasIdeal, out.IdealRuntime = true, ideal.Runtime
		index := make(map[string][]int, len(out.PerResource))
		for k, r := range out.PerResource {
			index[r.Path] = append(index[r.Path], k)
		}
		for i, r := range run.Resources {
			for _, k := range index[r.Path] {
				out.PerResource[k].IdealEnd = ideal.Ends[i]
			}
		}
		// The bursts the replay keeps, on every resource (those without
		// MPI calls keep their whole time).
		for k, r := range out.PerResource {
			if !follows[k] {
				out.UsefulIdealMax = max(out.UsefulIdealMax, r.Outside)
			}
		}
		for k, r := range out.PerResource {
			if r.IdealEnd < 0 && !follows[k] {
				out.IdealRuntime = max(out.IdealRuntime, r.Outside)
			}
		}
	}
	if err := a.spill.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// siblingThreads adds to ids the threads (containers of type thread,
// with records) of the processes of ids.
func (a *Accumulator) siblingThreads(ids []int32) []int32 {
	procs := map[int32]bool{}
	in := map[int32]bool{}
	for _, id := range ids {
		procs[a.process(id)] = true
		in[id] = true
	}
	for id := range a.conts {
		c := &a.conts[id]
		if id32 := int32(id); !in[id32] && c.seen && a.process(id32) != id32 && procs[a.process(id32)] {
			ids = append(ids, id32)
		}
	}
	return ids
}

// mainThreads returns the main thread of each process of ids (sorted):
// the one longest in MPI calls, the first if none makes any.
func (a *Accumulator) mainThreads(ids []int32, inMPI []trace.Time, resOf map[int32]int) map[int32]int32 {
	main := map[int32]int32{}
	longest := map[int32]trace.Time{}
	for _, id := range ids {
		p := a.process(id)
		var in trace.Time
		if i, ok := resOf[id]; ok {
			in = inMPI[i]
		}
		if _, ok := main[p]; !ok || in > longest[p] {
			main[p], longest[p] = id, in
		}
	}
	return main
}

// union returns the union of intervals, sorted and disjoint.
func union(iv [][2]trace.Time) [][2]trace.Time {
	slices.SortFunc(iv, func(x, y [2]trace.Time) int { return cmp.Compare(x[0], y[0]) })
	out := iv[:0]
	for _, v := range iv {
		if n := len(out); n > 0 && v[0] <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], v[1])
			continue
		}
		out = append(out, v)
	}
	return out
}

// intersect returns the parts of x (sorted, disjoint) inside y (sorted,
// disjoint).
func intersect(x, y [][2]trace.Time) [][2]trace.Time {
	var out [][2]trace.Time
	j := 0
	for _, u := range x {
		for j < len(y) && y[j][1] <= u[0] {
			j++
		}
		for k := j; k < len(y) && y[k][0] < u[1]; k++ {
			if lo, hi := max(u[0], y[k][0]), min(u[1], y[k][1]); hi > lo {
				out = append(out, [2]trace.Time{lo, hi})
			}
		}
	}
	return out
}

// overlap returns the length of the intersection of x and y (sorted,
// disjoint).
func overlap(x, y [][2]trace.Time) trace.Time {
	var total trace.Time
	for _, v := range intersect(x, y) {
		total += v[1] - v[0]
	}
	return total
}

// usefulIntervals returns the intervals of [first, last] outside the
// calls (in time order, not overlapping: mpi.Run's) and the measurement
// intervals, in time order, appended to out.
func usefulIntervals(first, last trace.Time, calls []mpi.Call, measurement [][2]trace.Time, out [][2]trace.Time) [][2]trace.Time {
	slices.SortFunc(measurement, func(x, y [2]trace.Time) int { return cmp.Compare(x[0], y[0]) })
	at := first
	busy := func(lo, hi trace.Time) {
		lo, hi = max(lo, first), min(hi, last)
		if hi <= at {
			return
		}
		if lo > at {
			out = append(out, [2]trace.Time{at, lo})
		}
		at = max(at, hi)
	}
	// The two lists merged by their starts.
	m := 0
	for _, c := range calls {
		for ; m < len(measurement) && measurement[m][0] < c.Enter; m++ {
			busy(measurement[m][0], measurement[m][1])
		}
		busy(c.Enter, c.Leave)
	}
	for ; m < len(measurement); m++ {
		busy(measurement[m][0], measurement[m][1])
	}
	if last > at {
		out = append(out, [2]trace.Time{at, last})
	}
	return out
}

// accumulated adds up, over the intervals (in time order), what an
// accumulated metric (OTF2's ACCUMULATED_START: the count since the
// start) grew by: its value at the interval's end minus at its start,
// the value at t being that of the latest sample at or before t (none: 0).
func accumulated(samples []sample, intervals [][2]trace.Time) float64 {
	if len(samples) == 0 {
		return 0
	}
	slices.SortStableFunc(samples, func(x, y sample) int { return cmp.Compare(x.at, y.at) })
	valueAt := func(t trace.Time) float64 {
		i, _ := slices.BinarySearchFunc(samples, t, func(s sample, t trace.Time) int {
			if s.at <= t {
				return -1
			}
			return 1
		})
		if i == 0 {
			return 0
		}
		return samples[i-1].value
	}
	total := 0.0
	for _, iv := range intervals {
		total += valueAt(iv[1]) - valueAt(iv[0])
	}
	return total
}

func (a *Accumulator) process(id int32) int32 {
	c := a.conts[id]
	if c.parent > 0 && c.typ >= 0 && a.types[c.typ].thread {
		return c.parent
	}
	return id
}

func (a *Accumulator) path(id int32) string {
	return trace.JoinPath(id, "/", func(c int32) (string, int32) { return a.conts[c].name, a.conts[c].parent })
}
