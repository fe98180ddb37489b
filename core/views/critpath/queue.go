package critpath

import "github.com/macroscope-hpc/macroscope/core/trace"

// The reader of a trace calls its sink on one goroutine, which then
// decodes the trace and keeps what the critical path needs in turn: the
// builder's bookkeeping and the spooling of every state were about a
// sixth of that goroutine's time, with the machine's other cores mostly
// idle. The Accumulator's sink methods therefore only note each call in a
// batch; a full batch is applied, in order, on a goroutine of its own
// while the next is filled. One batch is applied at a time, each after
// the one before (the calls reach the accumulator in the order they were
// made, as if made directly), and no goroutine outlives a batch: a read
// that stops leaves nothing running once the batch being applied is done.

// batchLen is the number of sink calls a batch notes before it is
// applied (about 1.3 MB of states); a variable so that tests can make
// small traces take many. Batches of 4,096 calls took 1.03x the CPU time
// of the calls applied as made, on the 12 M archive under load (the
// goroutines handing over 3,000 batches); of 32,768, 0.90x (the reader's
// loop and the accumulator's each run longer in their caches).
var batchLen = 32768

// callKind is the sink method a batch's call is of.
type callKind uint8

const (
	callState callKind = iota
	callLink
	callEvent
	callOther // a definition, container or the end (rare): a closure
)

// batch is a run of sink calls in order: kinds says which, and each
// kind's arguments follow one another in their own slice.
type batch struct {
	kinds  []callKind
	states []trace.State
	links  []trace.Link
	events []trace.Event
	others []func()
}

func (b *batch) reset() {
	b.kinds, b.states, b.links, b.events = b.kinds[:0], b.states[:0], b.links[:0], b.events[:0]
	clear(b.others)
	b.others = b.others[:0]
}

// apply makes the calls of b on a.
func (b *batch) apply(a *Accumulator) {
	var s, l, e, o int
	for _, k := range b.kinds {
		switch k {
		case callState:
			a.state(b.states[s])
			s++
		case callLink:
			a.link(b.links[l])
			l++
		case callEvent:
			a.event(b.events[e])
			e++
		default:
			b.others[o]()
			o++
		}
	}
}

// queue is the batch being filled and the one being applied.
type queue struct {
	filling, applying *batch
	// applied is closed once applying has been applied; nil when no
	// batch has been handed over yet.
	applied chan struct{}
	// panicked is what applying a batch panicked with: raised again on
	// the goroutine that calls the sink (which reads it after applied).
	panicked any
}

// note adds a call of kind to the batch being filled, whose arguments
// the caller has appended, and hands the batch over once full.
func (a *Accumulator) note(k callKind) {
	q := &a.queue
	q.filling.kinds = append(q.filling.kinds, k)
	if len(q.filling.kinds) == batchLen {
		a.handOver()
	}
}

// handOver waits for the batch being applied, then applies the batch
// being filled on a goroutine of its own, and fills the other.
func (a *Accumulator) handOver() {
	q := &a.queue
	a.wait()
	q.filling, q.applying = q.applying, q.filling
	q.filling.reset()
	done := make(chan struct{})
	q.applied = done
	b := q.applying
	go func() {
		defer close(done)
		// Nothing recovers a panic on this goroutine: it is handed back.
		defer func() { q.panicked = recover() }()
		b.apply(a)
	}()
}

// wait waits for the batch being applied, if any, and raises again what
// it panicked with.
func (a *Accumulator) wait() {
	q := &a.queue
	if q.applied == nil {
		return
	}
	<-q.applied
	q.applied = nil
	if p := q.panicked; p != nil {
		q.panicked = nil
		panic(p)
	}
}

// flush applies every call noted, and returns once they are applied.
func (a *Accumulator) flush() {
	if len(a.queue.filling.kinds) > 0 {
		a.handOver()
	}
	a.wait()
}

// settle waits for the batch being applied, if any, and drops the calls
// noted since: the read ended without its result (Close), so that
// nothing applies them to a closed spill file. What a batch panicked with
// is dropped too: the read has failed already.
func (a *Accumulator) settle() {
	q := &a.queue
	if q.applied != nil {
		<-q.applied
		q.applied, q.panicked = nil, nil
	}
	q.filling.reset()
}
