package mpi

import (
	"sort"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Run is the message passing of a trace: the MPI calls of each resource
// in time order, the point-to-point messages tied to the calls that sent
// and received them, and the collective operations tied to the calls of
// their members.
type Run struct {
	Resources []Resource
	Calls     [][]Call // by resource, in the order they were entered
	Messages  []Message
	// NumMessages counts the messages, also those handed to
	// Builder.OnMessage rather than kept in Messages.
	NumMessages int
	Collectives []Collective
	// Names are the calls' names as the trace writes them ("MPI_Send",
	// "PMPI_Send"), Comms the communicators' ("" when the trace does not
	// say: Call.Comm 0).
	Names, Comms []string
	Start, End   trace.Time // the trace's first and last instants
}

// Resource is a container that makes MPI calls: a rank, or a thread of
// one.
type Resource struct {
	Container int32
	Path      string // the container's path, names joined by "/"
	// Process is the container of the process the resource belongs to:
	// the resource itself, or its parent when it is a thread.
	Process int32
	// First and Last are the first and last instants of the resource's
	// states and events.
	First, Last trace.Time
}

// Call is one MPI call of a resource.
type Call struct {
	Enter, Leave trace.Time
	Name         int32 // index in Run.Names
	Comm         int32 // index in Run.Comms; 0 when unknown
	// Coll is the index of the collective operation the call takes part
	// in (Run.Collectives), or -1.
	Coll  int32
	Class Class
	// Root marks the root of a rooted collective, when the trace says
	// (Extrae's event 50100003).
	Root bool
	// Depth is the nesting depth of the state the call comes from (0 for
	// Extrae's events): it orders calls entered at one instant.
	Depth int16
}

// Message is a point-to-point message, from the link that records it.
type Message struct {
	From, To   int32      // resources
	Send, Recv trace.Time // the link's start and end
	Size       float64    // bytes; NaN when the trace does not say
	// SendCall is the index, among the sender's calls, of the call that
	// sent the message (the one the send time falls in); RecvCall that
	// of the receiver's call that completed its receipt (the one the
	// receive time falls in, else the next receive-completing call).
	// Either is -1 when no call fits.
	SendCall, RecvCall int32
}

// Collective is one instance of a collective operation: the k-th call of
// each member on one communicator.
type Collective struct {
	Name    int32 // the call name (Run.Names)
	Comm    int32 // Run.Comms
	Class   Class
	Members []CallRef // by resource
	// Root is the index in Members of the root, -1 when unknown or not
	// rooted.
	Root int32
}

// CallRef names a call: its resource and its index among the resource's
// calls.
type CallRef struct{ Resource, Call int32 }

// Call returns the call r names.
func (run *Run) Call(r CallRef) *Call { return &run.Calls[r.Resource][r.Call] }

// Name returns the name of call c.
func (run *Run) Name(c *Call) string { return run.Names[c.Name] }

// NumCalls returns the number of calls of all resources.
func (run *Run) NumCalls() int {
	n := 0
	for _, cs := range run.Calls {
		n += len(cs)
	}
	return n
}

// Processes returns the number of distinct processes of the resources.
func (run *Run) Processes() int {
	seen := map[int32]bool{}
	for _, r := range run.Resources {
		seen[r.Process] = true
	}
	return len(seen)
}

// lastEntered returns the index of the last call of calls entered at or
// before t, -1 if none. hint, when not negative, is the answer for an
// earlier instant: the search then goes forward from it, a step or two
// when instants come in order.
func lastEntered(calls []Call, t trace.Time, hint int32) int32 {
	if hint >= 0 && int(hint) < len(calls) && calls[hint].Enter <= t {
		for k := 0; k < 4; k++ {
			if int(hint)+1 == len(calls) || calls[hint+1].Enter > t {
				return hint
			}
			hint++
		}
	}
	lo, hi := 0, len(calls) // calls[:lo] entered at or before t, calls[hi:] after
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if calls[m].Enter <= t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return int32(lo - 1)
}

// containingFrom returns the index of the call of calls that holds
// instant t (Enter <= t <= Leave), preferring among several (calls that
// touch at t) the last one that want accepts; -1 if none holds t. i is
// the last call entered at or before t (lastEntered).
func containingFrom(calls []Call, i int32, t trace.Time, want func(Class) bool) int32 {
	best := int32(-1)
	for j := i; j >= 0 && calls[j].Leave >= t; j-- {
		if best < 0 {
			best = j
		}
		if want(calls[j].Class) {
			return j
		}
		if calls[j].Enter < t {
			break
		}
	}
	return best
}

// nextCompleting returns the index of the first call of calls entered at
// or after t that completes receipts, or -1.
func nextCompleting(calls []Call, t trace.Time) int32 {
	for j := sort.Search(len(calls), func(i int) bool { return calls[i].Enter >= t }); j < len(calls); j++ {
		if calls[j].Class.Completes() {
			return int32(j)
		}
	}
	return -1
}

func sends(c Class) bool { return c == Send || c == SendRecv || c == Local }
