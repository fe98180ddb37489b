// Package critpath finds the critical path of a message-passing run with
// Scalasca's semantics (Böhme et al., "Identifying the root causes of
// wait states in large-scale parallel applications", ICPP 2010, and
// "Scalable critical-path based performance analysis", IPDPS 2012; as
// implemented in Scalasca 2.6, src/scout/generator/CriticalPath.pattern):
// the longest chain of computation and communication without waiting
// that leads to the end of the run.
//
// Wait states come first (MPI.pattern), from the MPI calls, messages and
// collective operations of the mpi package:
//
//   - late sender: a call completing a receipt (MPI_Recv, MPI_Wait*,
//     MPI_Sendrecv) entered before the send began waits min(send's entry,
//     its own leave) - its entry; for several messages, the latest sender
//     counts;
//   - late receiver: a blocking send still running when the receiver
//     posted its receive waits min(receive's entry, its own leave) - its
//     entry;
//   - collectives: every member of an all-to-all operation (and of any
//     whose root the trace does not name) waits for the last to enter; the
//     others of a one-to-all operation for its root; the root of an
//     all-to-one operation for the last of the others; rank n of a scan
//     for the last of ranks 0..n-1; each wait clipped to the call.
//
// The path is then walked backwards (a backward replay): from the
// resource that enters MPI_Finalize last (or, without MPI_Finalize, whose
// last record is the trace's), at that instant, back along the resource
// until a call that waited; the waiting is not on the path, which goes on
// at the resource that caused the wait, at the instant the wait ended
// (the sender's send, the receiver's receive, the last entrant's entry).
// The walk ends at MPI_Init's end (or the trace's start), as Scalasca's
// does: MPI_Init and MPI_Finalize are left out, a tool's start-up and
// shut-down rather than the program's.
//
// The path is a list of segments, each a stretch of one resource, which
// tile [start, end]; each segment's time is attributed to what the
// resource was doing (the MPI call, else the innermost state, else "(no
// state)"), and Scalasca's critical-path imbalance of a state is its time
// on the path minus its mean time per resource, when positive.
package critpath

import (
	"fmt"
	"iter"
	"slices"
	"sync"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/mpi"
)

// WaitKind says why a call waited.
type WaitKind uint8

// The kinds of wait states.
const (
	NoWait WaitKind = iota
	LateSender
	LateReceiver
	Collective
)

var waitNames = [...]string{"", "late sender", "late receiver", "collective"}

func (k WaitKind) String() string { return waitNames[k] }

// Wait is a wait state: a call that waited for another resource.
type Wait struct {
	Call mpi.CallRef
	// Wait is how long it waited, from the call's entry.
	Wait trace.Time
	Kind WaitKind
	// Cause is the call of the resource it waited for, and At the instant
	// the wait ended there (its entry, or its send).
	Cause mpi.CallRef
	At    trace.Time
}

// Segment is a stretch of the critical path on one resource.
type Segment struct {
	Resource   int32 // index in Result.Resources
	Start, End trace.Time
	// Via says how the path arrived here going forward in time: "start"
	// for the first segment, else the kind of wait it ended (the path
	// came from From's resource, which this one waited for).
	Via  string
	From int32 // the previous segment's resource, -1 for the first
	// Role is the role its reader gave the value of the event Name
	// (trace.RoleCommunicationKernel: an NCCL kernel, for BoundBy).
	Role trace.Role
	// Name is, on a GPU or task path, the event the segment's time is
	// attributed to ("" for none); Via is then the kind of edge
	// (EdgeCompute...) and From the resource the edge came from when it
	// joins two, else -1.
	Name string
}

// Result is the critical path of a run.
type Result struct {
	// Semantics says how the path was found: Scalasca (a message-passing
	// run), HTA (CPU calls, launches and GPU operations) or Dependencies
	// (states joined by flows).
	Semantics  string
	Resources  []string // paths of the resources
	Segments   []Segment
	Waits      []Wait
	Start, End trace.Time // the path's extent
	// Names are the call names of Waits' calls (Run.Names).
	Names []string
	// Attribution is what the path's time was spent on: computed by an
	// Accumulator (Compute), nil from FromRun, which sees the MPI calls
	// only.
	Attribution *Attribution
	// run holds the run's calls, for the waits' table (CallOf, through
	// callOf under callMu) and the delay costs; the wait states of
	// resource r are Waits[waitFrom[r]:waitFrom[r+1]], in call order (not
	// an index per call: 4 bytes each).
	run      *run
	callMu   sync.Mutex
	callOf   *callReader
	waitFrom []int32
	// What every resource did (from an Accumulator), for the delay costs,
	// computed on demand (DelayCosts) once.
	acts       []activity
	spill      *mpi.Spill // the file of the spooled calls and acts
	callName   []int32
	stateNames []string
	// delays, once delaysDone; delaysMu orders DelayCosts and Close.
	delays     *Delays
	delaysDone bool
	delaysMu   sync.Mutex
	// Without a run (GPU and task paths): the trace's start and each
	// resource's extent.
	traceStart trace.Time
	spans      [][2]trace.Time
}

// DelayCosts returns the delay costs of the wait states (see Delays),
// computed on the first call; nil for a Result of FromRun, which knows
// only the MPI calls, after Close, or when what each resource did could
// not be read back from the temporary file it was spilled to (Err).
func (r *Result) DelayCosts() *Delays {
	d, _ := r.DelayCostsCancel(nil) // a nil channel never stops them
	return d
}

// DelayCostsCancel is DelayCosts stopped by cancel: once it is closed
// (looked at first, then every trace.StopEvery wait states), it returns
// trace.ErrComputationCanceled and keeps nothing, so that a later call
// computes them again. A nil cancel never stops it.
func (r *Result) DelayCostsCancel(cancel <-chan struct{}) (*Delays, error) {
	if r.acts == nil {
		return nil, nil
	}
	r.delaysMu.Lock()
	defer r.delaysMu.Unlock()
	if r.delaysDone {
		return r.delays, nil
	}
	if r.spill.Err() == nil {
		d, err := delayCosts(r, r.acts, r.callName, r.stateNames, cancel)
		if err != nil {
			return nil, err
		}
		if r.spill.Err() == nil {
			r.delays = d
		}
	}
	r.delaysDone = true
	return r.delays, nil
}

// Err returns the error that kept DelayCosts from being computed, or made
// CallOf return a zero call: the calls or what each resource did (kept
// in a temporary file beyond the memory Options.SpillMemory gives) could
// not be read back.
func (r *Result) Err() error { return r.spill.Err() }

// Close releases the temporary file that holds, beyond
// Options.SpillMemory, the MPI calls (for CallOf) and what each resource
// did (for the delay costs) of a Result from an Accumulator. DelayCosts
// returns nil after it, unless computed before, and CallOf must not be
// called. Without Close the file goes when the Result is garbage
// collected (it has no name on disk meanwhile, where the system allows
// it). It may be called more than once.
func (r *Result) Close() error {
	r.delaysMu.Lock()
	r.delaysDone = true
	r.delaysMu.Unlock()
	return r.spill.Close()
}

// Options tune the analysis.
type Options struct {
	// WholeRun keeps MPI_Init and MPI_Finalize on the path: it runs from
	// the trace's start to its end.
	WholeRun bool
	// SpillDir and SpillMemory say where the states, messages and
	// collectives' events kept while a trace streams go beyond
	// SpillMemory bytes (mpi.Spill: "" is the system's temporary
	// directory, 0 mpi.DefaultSpillMemory, negative never).
	SpillDir    string
	SpillMemory int64
	// Cancel, once closed, stops Compute (while it replays the trace)
	// and Result (in its passes over the calls and the walk of the path),
	// which return trace.ErrComputationCanceled and no result. Nil: never.
	Cancel <-chan struct{}
}

// FromRun finds the critical path of a run's MPI calls.
func FromRun(run *mpi.Run, opt Options) (*Result, error) {
	r := fromMPIRun(run)
	return fromRun(r, messageWaitsOf(r, tiedMessages(run)), opt)
}

// tiedMessages returns the send and receive calls of the run's messages
// tied at both ends, in the order of run.Messages.
func tiedMessages(run *mpi.Run) iter.Seq2[mpi.CallRef, mpi.CallRef] {
	return func(yield func(send, recv mpi.CallRef) bool) {
		for _, m := range run.Messages {
			if m.SendCall < 0 || m.RecvCall < 0 {
				continue
			}
			if !yield(mpi.CallRef{Resource: m.From, Call: m.SendCall}, mpi.CallRef{Resource: m.To, Call: m.RecvCall}) {
				return
			}
		}
	}
}

// fromRun finds the critical path of a run whose messages are given by
// their candidate wait states (messages): the Accumulator keeps only
// those, not run.Messages.
func fromRun(run *run, messages *messageWaits, opt Options) (*Result, error) {
	if len(run.Resources) == 0 {
		// Outside the analysis's scope is a fact of the data (status 1,
		// the file named), not bad usage.
		return nil, errs.Empty("", "the critical path does not apply to this trace: it needs MPI calls, and none of the states or events of this "+
			"trace are MPI calls (states named MPI_* or PMPI_*, Extrae's events 50000001-50000005)")
	}
	if len(run.Resources) > 1 && run.NumMessages == 0 && len(run.Collectives) == 0 {
		return nil, errs.Empty("", "the critical path does not apply to this trace: it needs matched messages or collective operations between "+
			"the MPI calls, and this trace has none (the format does not record them; Extrae's Paraver, Score-P's OTF2 and SMPI's Pajé traces do)")
	}
	look := trace.Looker{Cancel: opt.Cancel}
	if err := look.Stopped(0); err != nil {
		return nil, err
	}
	rd := run.reader()
	waits, byCall := waitStates(run, rd, messages)
	if err := look.Stopped(len(waits)); err != nil {
		return nil, err
	}
	run.synced = synchronisedCollectives(run, rd)
	run.memberTimes = nil // read once
	r := &Result{Semantics: Scalasca, Names: run.Names, run: run, callOf: run.reader(), waitFrom: waitOffsets(waits, len(run.Resources))}
	ops := operations(run)
	for _, res := range run.Resources {
		r.Resources = append(r.Resources, res.Path)
	}
	r.Waits = waits

	// Where the walk begins and ends.
	res, at := int32(-1), trace.Time(0)
	for i, rr := range run.Resources {
		t := rr.Last
		if !opt.WholeRun {
			if f := run.lastFinalizeOf(rd, ops, int32(i)); f >= 0 {
				t = rd.call(mpi.CallRef{Resource: int32(i), Call: f}).Enter
			}
		}
		if res < 0 || t > at {
			res, at = int32(i), t
		}
	}
	r.End = at
	// cursor[r]: calls of r below this index may still be visited.
	cursor := make([]int, len(run.Resources))
	for i := range cursor {
		cursor[i] = run.count(int32(i))
	}
	var segs []Segment
	for {
		j := min(cursor[res], rd.firstEntered(res, at)) - 1
		jumped := false
		for ; j >= 0; j-- {
			if err := look.Stopped(1); err != nil {
				return nil, err
			}
			c := rd.call(mpi.CallRef{Resource: res, Call: int32(j)})
			if !opt.WholeRun && ops[c.Name] == "init" && c.Leave <= at {
				break // the walk ends at MPI_Init's end
			}
			i := byCall[res][j]
			if i < 0 {
				continue
			}
			w := waits[i]
			cut := c.Enter + w.Wait
			if cut > at {
				continue
			}
			segs = append(segs, Segment{Resource: res, Start: cut, End: at, Via: w.Kind.String(), From: w.Cause.Resource})
			cursor[res] = j
			res, at = w.Cause.Resource, w.At
			jumped = true
			break
		}
		if !jumped {
			start := run.Start
			if j >= 0 {
				start = rd.call(mpi.CallRef{Resource: res, Call: int32(j)}).Leave // MPI_Init's end
			}
			segs = append(segs, Segment{Resource: res, Start: min(start, at), End: at, Via: "start", From: -1})
			break
		}
	}
	slices.Reverse(segs)
	r.Segments = segs
	r.Start = segs[0].Start
	if !rd.ok {
		return nil, errCallsUnread
	}
	return r, nil
}

// waitOffsets returns where the wait states of each resource begin in
// waits (in the order of the resources and their calls), and their end.
func waitOffsets(waits []Wait, resources int) []int32 {
	from := make([]int32, resources+1)
	for _, w := range waits {
		from[w.Call.Resource+1]++
	}
	for r := range resources {
		from[r+1] += from[r]
	}
	return from
}

// waitsAfter returns the index in Waits of the first wait state of
// resource res on a call after call after, and the end of res's. hint
// is where the previous answer for res was (any index: it is clamped),
// and becomes this one: the delay costs ask about nearby calls of each
// resource in turn, so the search gallops out from it rather than
// halving all of res's wait states each time.
func (r *Result) waitsAfter(res, after int32, hint *int32) (first, end int32) {
	from, end := r.waitFrom[res], r.waitFrom[res+1]
	// The answer is the least i in [from, end] with past(i).
	past := func(i int32) bool { return i == end || r.Waits[i].Call.Call > after }
	first = gallop(from, end, *hint, past)
	*hint = first
	return first, end
}

// operations returns the MPI operation of each call name of the run
// (mpi.Operation).
func operations(run *run) []string {
	ops := make([]string, len(run.Names))
	for i, n := range run.Names {
		ops[i], _ = mpi.Operation(n)
	}
	return ops
}

// lastNamed returns the index of the last call of resource r that is the
// operation op, or -1.
func lastNamed(run *run, rd *callReader, ops []string, r int32, op string) int32 {
	for j := int32(run.count(r)) - 1; j >= 0; j-- {
		if ops[rd.call(mpi.CallRef{Resource: r, Call: j}).Name] == op {
			return j
		}
	}
	return -1
}

// errCallsUnread is the error of a path whose calls could not be read
// back from the spill file (its Err says why).
var errCallsUnread = fmt.Errorf("critpath: the MPI calls could not be read back from the temporary file")

// WaitStates finds the wait states of a run (see the package
// documentation), at most one per call (its longest), in the order of the
// resources and their calls.
func WaitStates(run *mpi.Run) []Wait {
	r := fromMPIRun(run)
	w, _ := waitStates(r, r.reader(), messageWaitsOf(r, tiedMessages(run)))
	return w
}

// waitStates returns the wait states, and for every call of every
// resource the index of its wait state, -1 for none; messages holds the
// messages' candidates, and marks the calls they fall on.
//
// Each call keeps the first of its longest candidates, the messages' in
// the order of the links before the collectives' in theirs. The calls
// that get a wait state are marked first, which fixes where each lands
// in the result (by resource and call): the messages' candidates were
// set aside in a spool (in the run's spill file beyond its share of
// memory) as they marked their calls, and are read back into their
// place; the collectives' are made twice from their members' times, to
// mark their calls, then to take their place. Only the result is held
// beside a chunk of the spool.
func waitStates(run *run, rd *callReader, messages *messageWaits) ([]Wait, [][]int32) {
	index := messages.index
	var buf []callTimes
	timesOf := func(m []mpi.CallRef, off int) []callTimes { return run.membersTimes(rd, m, off, &buf) }
	// collectives calls offer with every collective's candidate wait
	// state, cut to its call.
	collectives := func(offer func(Wait)) {
		off := 0
		for _, coll := range run.Collectives {
			m := coll.Members
			t := timesOf(m, off)
			off += len(m)
			latest := func(skip int) int {
				k := -1
				for i := range m {
					if i != skip && (k < 0 || t[i].enter > t[k].enter) {
						k = i
					}
				}
				return k
			}
			wait := func(x, cause int) {
				if cause < 0 || x == cause {
					return
				}
				at := t[cause].enter
				offer(Wait{Call: m[x], Wait: min(at-t[x].enter, t[x].leave-t[x].enter), Kind: Collective, Cause: m[cause], At: at})
			}
			root := int(coll.Root)
			switch {
			case coll.Class == mpi.OneToAll && root >= 0:
				for i := range m {
					wait(i, root)
				}
			case coll.Class == mpi.AllToOne && root >= 0:
				wait(root, latest(root))
			case coll.Class == mpi.Scan:
				k := -1
				for i := range m {
					wait(i, k)
					if k < 0 || t[i].enter > t[k].enter {
						k = i
					}
				}
			default:
				l := latest(-1)
				for i := range m {
					wait(i, l)
				}
			}
		}
	}
	collectives(func(w Wait) {
		if w.Wait > 0 {
			index[w.Call.Resource][w.Call.Call] = 0
		}
	})
	n := int32(0)
	for r := range index {
		for j, i := range index[r] {
			if i >= 0 {
				index[r][j] = n
				n++
			}
		}
	}
	// A slot's Wait is 0 until a candidate fills it (the candidates kept
	// wait more than 0). Of a call's messages' candidates the first in
	// the order of the links (the least key) wins a tie, then a
	// collective's only by waiting longer: they came after.
	out := make([]Wait, n)
	keys := make([]uint32, n)
	messages.kept.Drain(func(c *messageWait) {
		i := index[c.call.Resource][c.call.Call]
		if o := &out[i]; c.wait > o.Wait || c.wait == o.Wait && c.key < keys[i] {
			*o, keys[i] = c.state(), c.key
		}
	})
	// The collectives' candidates again, from their members' times in
	// memory: cheaper than setting them aside in the file and reading
	// them back.
	collectives(func(w Wait) {
		if w.Wait <= 0 {
			return
		}
		if o := &out[index[w.Call.Resource][w.Call.Call]]; w.Wait > o.Wait {
			*o = w
		}
	})
	return out, index
}

// Length is the path's duration, its segments added up.
func (r *Result) Length() trace.Time {
	var n trace.Time
	for _, s := range r.Segments {
		n += s.End - s.Start
	}
	return n
}

// String lists the segments, for tests and debugging.
func (r *Result) String() string {
	s := ""
	for _, seg := range r.Segments {
		s += fmt.Sprintf("%s [%s, %s] %s\n", r.Resources[seg.Resource], seg.Start, seg.End, seg.Via)
	}
	return s
}

// CallOf returns the call a reference names (a copy: the calls of a
// Result from an Accumulator are read back from a temporary file).
func (r *Result) CallOf(ref mpi.CallRef) *mpi.Call {
	r.callMu.Lock()
	defer r.callMu.Unlock()
	c := *r.callOf.call(ref)
	return &c
}

// WaitCalls yields each wait state, in the order of Waits, with the call
// it is on: a table of the wait states reads their calls in one go, in
// the order of the calls (CallOf locks and copies once per call). The
// call is valid until the next step, and the loop must not call CallOf
// or WaitCalls (it holds their lock). A call whose chunk could not be
// read back is the zero call (Err says why).
func (r *Result) WaitCalls() iter.Seq2[*Wait, *mpi.Call] {
	return func(yield func(*Wait, *mpi.Call) bool) {
		r.callMu.Lock()
		defer r.callMu.Unlock()
		for i := range r.Waits {
			if !yield(&r.Waits[i], r.callOf.call(r.Waits[i].Call)) {
				return
			}
		}
	}
}

// TraceStart returns the trace's first instant.
func (r *Result) TraceStart() trace.Time {
	if r.run == nil {
		return r.traceStart
	}
	return r.run.Start
}

// Spans returns each resource's first and last instants.
func (r *Result) Spans() [][2]trace.Time {
	if r.run == nil {
		return slices.Clone(r.spans)
	}
	out := make([][2]trace.Time, len(r.run.Resources))
	for i, res := range r.run.Resources {
		out[i] = [2]trace.Time{res.First, res.Last}
	}
	return out
}
