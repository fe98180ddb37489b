package pop

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/mpi"
)

// errUnpaired is why a replay cannot finish: a call waits for partners
// that never come, as in a trace cut out of a longer run (Paraver's
// cutter, a run killed before its end). The other factors do not need
// the replay, so POP reports them without it (Run.NoIdealReason).
var errUnpaired = errors.New("the trace's calls do not pair up")

// DefaultEagerLimit is the size above which a message is sent by
// rendezvous in the ideal replay: Dimemas' -S 32k, which BSC's
// modelfactors.py and pypop run it with.
const DefaultEagerLimit = 32 * 1024

// Ideal is the outcome of the ideal-network replay.
type Ideal struct {
	// Runtime is the replayed run's duration, from the trace's start to
	// the last resource's end.
	Runtime trace.Time
	// Ends holds each resource's end in the replay (from the trace's
	// start), Outside its time outside MPI calls (the CPU bursts the
	// replay keeps, from the trace's start to its last record).
	Ends, Outside []trace.Time
}

// Replay runs the trace again on an ideal network, as Dimemas does with
// the configuration BSC's model factors use (latency 0, unlimited
// bandwidth and links, collectives of no cost): every interval of a
// resource outside MPI calls keeps its measured duration, from the
// trace's start; an MPI call costs nothing but the wait for its
// partners:
//
//   - a call that completes receipts (MPI_Recv, MPI_Wait*, MPI_Sendrecv)
//     ends no earlier than the replayed entry of the calls that sent its
//     messages;
//   - a blocking send of more than eagerLimit bytes (rendezvous) ends no
//     earlier than the replayed entry of the call that receives it;
//     smaller ones are eager;
//   - a collective ends, for all its members, when the last one enters it
//     (whatever its root);
//   - any other call ends where it begins.
//
// The replay advances every resource as far as its partners allow, until
// all have ended; a trace whose waits cannot all be met (calls that pair
// up wrongly) is an error.
func Replay(run *mpi.Run, eagerLimit float64) (*Ideal, error) {
	w := newWaits(eagerLimit, nil)
	for i := range run.Messages {
		m := &run.Messages[i]
		var send, recv mpi.Class
		if m.SendCall >= 0 {
			send = run.Calls[m.From][m.SendCall].Class
		}
		if m.RecvCall >= 0 {
			recv = run.Calls[m.To][m.RecvCall].Class
		}
		w.add(m, send, recv)
	}
	members := make([]int32, len(run.Collectives))
	for i, c := range run.Collectives {
		members[i] = int32(len(c.Members))
	}
	return w.replay(replayInput{start: run.Start, resources: run.Resources, names: run.Names, members: members,
		calls: func(r int) func() (*mpi.Call, bool) { return forward(run.Calls[r]) }})
}

// forward returns the reader of s's elements in order, in place, as a
// spool's Reader gives them: each call the next, false after the last.
func forward[T any](s []T) func() (*T, bool) {
	return func() (*T, bool) {
		if len(s) == 0 {
			return nil, false
		}
		x := &s[0]
		s = s[1:]
		return x, true
	}
}

// replayInput is what the replay reads: the resources, each one's calls
// forwards (a Run's slices, or Blocks' spools) and the collectives'
// numbers of members.
type replayInput struct {
	start     trace.Time
	resources []mpi.Resource
	names     []string
	members   []int32
	calls     func(r int) func() (*mpi.Call, bool)
}

// replayBlocks runs the ideal replay over the calls of blocks.
func (w *waits) replayBlocks(b *mpi.Blocks) (*Ideal, error) {
	return w.replay(replayInput{start: b.Start, resources: b.Resources, names: b.Names, members: b.Members,
		calls: func(r int) func() (*mpi.Call, bool) { return b.Calls[r].Reader().Next }})
}

// waits is what the ideal replay needs of the messages, gathered as they
// are tied to their calls (mpi.Builder.OnMessage) so that they are never
// all held: each wait of a call for a partner's replayed entry is an
// edge, which the partner's resource publishes when it enters the call
// and the waiting resource reads when its call ends. Per resource, the
// edges its calls wait for and those they publish, by call, in spools
// (spilled beyond the spill's memory): they come in the order of the
// calls when the links of each resource come in time order, and are
// then read forwards; else sorted, that resource's in memory.
type waits struct {
	eagerLimit      float64
	spill           *mpi.Spill
	waitOn, publish []edges // by resource
	edges           uint32
	// cancel, once closed, stops the replay (Options.Cancel).
	cancel <-chan struct{}
}

// edges are the edges of a resource's calls, in a spool.
type edges struct {
	spool    mpi.Spool[callEdge]
	last     int32 // the call of the last one
	unsorted bool  // they did not come in the order of the calls
}

func (e *edges) append(x callEdge) {
	if e.spool.Len() > 0 && x.call < e.last {
		e.unsorted = true
	}
	e.last = x.call
	e.spool.Append(x)
}

// reader returns a reader of the edges in the order of the calls.
func (e *edges) reader() func() (*callEdge, bool) {
	if !e.unsorted {
		return e.spool.Reader().Next
	}
	sorted := e.spool.Take()
	slices.SortFunc(sorted, func(x, y callEdge) int { return cmp.Compare(x.call, y.call) })
	return forward(sorted)
}

// callEdge is an edge of a call: the call's index among its resource's
// calls and the edge's number.
type callEdge struct {
	call int32
	edge uint32
}

// newWaits returns the waits of a replay with this eager limit, spilled
// to s (nil: kept in memory).
func newWaits(eagerLimit float64, s *mpi.Spill) *waits {
	return &waits{eagerLimit: eagerLimit, spill: s}
}

// add gathers the edges of message m: the call that completes its
// receipt waits for the entry of the call that sent it; a rendezvous
// send (blocking, more than eagerLimit bytes) for the entry of the call
// that receives it.
func (w *waits) add(m *mpi.Message, send, recv mpi.Class) {
	if m.SendCall < 0 || m.RecvCall < 0 {
		return
	}
	if recv.Completes() {
		w.edge(m.To, m.RecvCall, m.From, m.SendCall)
	}
	if (send == mpi.Send || send == mpi.SendRecv) && m.Size > w.eagerLimit {
		w.edge(m.From, m.SendCall, m.To, m.RecvCall)
	}
}

// edge records that call of res waits for the entry of partner's call
// of partnerRes.
func (w *waits) edge(res, call, partnerRes, partner int32) {
	for need := int(max(res, partnerRes)) + 1; len(w.waitOn) < need; {
		w.waitOn = append(w.waitOn, edges{spool: mpi.NewSpool[callEdge](w.spill)})
		w.publish = append(w.publish, edges{spool: mpi.NewSpool[callEdge](w.spill)})
	}
	w.waitOn[res].append(callEdge{call, w.edges})
	w.publish[partnerRes].append(callEdge{partner, w.edges})
	w.edges++
}

// replay runs the ideal replay (Replay) over the resources' calls in
// turn: each resource's calls are read forwards, once, with the edges
// they wait for and publish; what is held besides is what a partner
// still waits for: the entries published and not yet read; and each
// collective's progress (16 bytes, beside the count of its members the
// run holds). Memory grows with the messages in flight and the
// collectives, not with the calls.
func (w *waits) replay(in replayInput) (*Ideal, error) {
	n := len(in.resources)
	for len(w.waitOn) < n {
		w.waitOn, w.publish = append(w.waitOn, edges{}), append(w.publish, edges{})
	}
	// Each resource's place in the replay.
	type cursor struct {
		next    func() (*mpi.Call, bool)
		call    mpi.Call   // the call it is in, or about to enter
		has     bool       // it has not left its last call
		pos     int32      // the call's index
		entered bool       // it entered the call
		now     trace.Time // its replayed clock
		prev    trace.Time // the measured end of its previous call
		outside trace.Time
		// The edges its calls wait for and publish, read forwards, the
		// next of each (the first of a later call) when has is set.
		waitOn, publish       func() (*callEdge, bool)
		nextWait, nextPublish callEdge
		hasWait, hasPublish   bool
		waits                 []callEdge // those of the call it is in
	}
	// A collective's progress: the members entered, the latest entry.
	type progress struct {
		in     int32
		latest trace.Time
	}
	cur := make([]cursor, n)
	published := map[uint32]trace.Time{} // replayed entries of the partners, until read
	// By collective (the run numbers them, and counts their members):
	// 16 bytes each, where a map of those in progress hashed a number
	// three times per member.
	colls := make([]progress, len(in.members))
	done := 0
	for r := range n {
		cr := &cur[r]
		cr.now, cr.prev, cr.next = in.start, in.start, in.calls(r)
		cr.waitOn, cr.publish = w.waitOn[r].reader(), w.publish[r].reader()
		if e, ok := cr.waitOn(); ok {
			cr.nextWait, cr.hasWait = *e, true
		}
		if e, ok := cr.publish(); ok {
			cr.nextPublish, cr.hasPublish = *e, true
		}
		if c, ok := cr.next(); ok {
			cr.call, cr.has = *c, true
		} else {
			done++
		}
	}
	look := trace.Looker{Cancel: w.cancel}
	for moved := true; moved && done < n; {
		moved = false
		for r := range n {
			cr := &cur[r]
			for cr.has {
				if err := look.Stopped(1); err != nil {
					return nil, err
				}
				j, c := cr.pos, &cr.call
				if !cr.entered {
					burst := c.Enter - cr.prev
					cr.outside += burst
					cr.now += burst
					cr.entered = true
					for cr.hasPublish && cr.nextPublish.call <= j {
						published[cr.nextPublish.edge] = cr.now
						e, ok := cr.publish()
						if ok {
							cr.nextPublish = *e
						}
						cr.hasPublish = ok
					}
					cr.waits = cr.waits[:0]
					for cr.hasWait && cr.nextWait.call <= j {
						cr.waits = append(cr.waits, cr.nextWait)
						e, ok := cr.waitOn()
						if ok {
							cr.nextWait = *e
						}
						cr.hasWait = ok
					}
					if c.Coll >= 0 {
						p := &colls[c.Coll]
						p.in++
						p.latest = max(p.latest, cr.now)
					}
					moved = true
				}
				end, ready := cr.now, true
				for _, e := range cr.waits {
					t, ok := published[e.edge]
					if !ok {
						ready = false
						break
					}
					end = max(end, t)
				}
				if ready && c.Coll >= 0 {
					if p := &colls[c.Coll]; p.in < in.members[c.Coll] {
						ready = false
					} else {
						end = max(end, p.latest)
					}
				}
				if !ready {
					break
				}
				for _, e := range cr.waits {
					delete(published, e.edge)
				}
				cr.now, cr.prev, cr.entered = end, c.Leave, false
				cr.pos++
				moved = true
				if next, ok := cr.next(); ok {
					cr.call = *next
				} else {
					cr.has = false
					done++
				}
			}
		}
	}
	if done < n {
		for r := range n {
			if c := &cur[r].call; cur[r].has {
				return nil, fmt.Errorf("pop: the ideal replay cannot go on: %s waits forever in %s entered at %s "+
					"(its partners never reach the call that would release it: %w)",
					in.resources[r].Path, in.names[c.Name], c.Enter, errUnpaired)
			}
		}
	}
	id := &Ideal{Ends: make([]trace.Time, n), Outside: make([]trace.Time, n)}
	for r := range n {
		tail := max(in.resources[r].Last-cur[r].prev, 0)
		id.Outside[r] = cur[r].outside + tail
		id.Ends[r] = cur[r].now + tail
		id.Runtime = max(id.Runtime, id.Ends[r]-in.start)
	}
	return id, nil
}
