package critpath

import (
	"iter"
	"math"

	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/mpi"
)

// messageWaits are the messages' candidate wait states (late sender,
// late receiver), taken from each message's two calls as the message is
// tied to them: by mpi.Builder.OnTied while the calls are in hand, in the
// order of the resources, or from a run's messages in order. The calls a
// candidate falls on are marked (index), which fixes where each wait
// state lands in the result; the candidates are set aside in a spool (in
// the run's spill file beyond its share of memory) with their message's
// rank among the links, so that of a call's longest candidates the first
// in the order of the links wins, as when they were offered in that
// order.
type messageWaits struct {
	// index is, by resource and call, 0 once a candidate falls on the
	// call, else -1 (waitStates numbers the marked ones).
	index [][]int32
	kept  mpi.Spool[messageWait]
}

// messageWait is a message's candidate wait state as it is kept, cut to
// its call: 40 bytes.
type messageWait struct {
	call, cause mpi.CallRef
	wait, at    trace.Time
	// key is twice the message's rank among the links, plus one for a
	// late receiver (offered after the message's late sender).
	key uint32
}

// state returns the wait state c stands for.
func (c *messageWait) state() Wait {
	kind := LateSender
	if c.key&1 != 0 {
		kind = LateReceiver
	}
	return Wait{Call: c.call, Wait: c.wait, Kind: kind, Cause: c.cause, At: c.at}
}

func newMessageWaits(spill *mpi.Spill) *messageWaits {
	return &messageWaits{kept: mpi.NewSpool[messageWait](spill)}
}

// resource makes room for the marks of the calls of resource r, of
// resources, before any message is tied to them.
func (m *messageWaits) resource(resources, r, calls int) {
	if m.index == nil {
		m.index = make([][]int32, resources)
	}
	marks := make([]int32, calls)
	for j := range marks {
		marks[j] = -1
	}
	m.index[r] = marks
}

// tied offers the candidates of the message of rank link among the
// links, sent by call s and received by call r.
func (m *messageWaits) tied(link int32, s, r mpi.TiedCall) {
	key := uint32(link) * 2
	if r.Class.Completes() {
		m.offer(r, s.Ref, min(s.Enter, r.Leave)-r.Enter, s.Enter, key)
	}
	if (s.Class == mpi.Send || s.Class == mpi.SendRecv) && s.Leave > r.Enter {
		m.offer(s, r.Ref, min(r.Enter, s.Leave)-s.Enter, r.Enter, key+1)
	}
}

// offer keeps the candidate on call c, cut to the call, when it waits.
func (m *messageWaits) offer(c mpi.TiedCall, cause mpi.CallRef, wait, at trace.Time, key uint32) {
	if wait = min(wait, c.Leave-c.Enter); wait > 0 {
		m.index[c.Ref.Resource][c.Ref.Call] = 0
		m.kept.Append(messageWait{call: c.Ref, cause: cause, wait: wait, at: at, key: key})
	}
}

// messageWaitsOf returns the candidates of messages (the send and
// receive calls of those tied at both ends, in the order of the links)
// on run's calls, kept in memory.
func messageWaitsOf(run *run, messages iter.Seq2[mpi.CallRef, mpi.CallRef]) *messageWaits {
	m := newMessageWaits(nil)
	for r := range run.Resources {
		m.resource(len(run.Resources), r, run.count(int32(r)))
	}
	rd := run.reader()
	tiedCall := func(ref mpi.CallRef) mpi.TiedCall {
		c := rd.call(ref)
		return mpi.TiedCall{Ref: ref, Enter: c.Enter, Leave: c.Leave, Class: c.Class}
	}
	// Offered in order, the messages' ranks need only not decrease:
	// beyond math.MaxInt32 they stay there.
	link := int32(0)
	for s, r := range messages {
		m.tied(link, tiedCall(s), tiedCall(r))
		link = min(link, math.MaxInt32-1) + 1
	}
	return m
}
