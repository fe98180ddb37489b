package trace

import (
	"fmt"
	"slices"
	"sync/atomic"
)

// Pipe is a Sink that passes every call it receives, in the same order,
// to another sink on a goroutine of its own, a batch of calls at a time:
// a reader that decodes and orders its records on one goroutine (the
// merge of an OTF2 archive's locations) then shares a second core with
// the sink's work, where the two took turns on one. The sink sees the
// same calls with the same arguments as it would have directly, and is
// only ever called from one goroutine at a time. The Pipe implements
// none of the optional interfaces (ArgsSink, StreamSink, DeferSink):
// a sink that has one gets no call of theirs through it.
//
// Memory is bounded: pipeBatches batches of pipeBatchLen calls at most,
// the reader waiting for the sink when they are all full.
//
// Wait must be called once the reader is done (whether it finished the
// trace or stopped early): it returns when the sink has received every
// call. A panic of the sink is raised again on the reader's goroutine, at
// its next batch or in Finish or Wait, so that a reader's guard sees it
// where it saw it before; the calls after it are dropped.
type Pipe struct {
	sink Sink
	cur  *pipeBatch
	full chan *pipeBatch // to the sink's goroutine
	free chan *pipeBatch // back from it, emptied
	done chan struct{}   // closed when the sink's goroutine ends
	// failed is the sink's panic, set by its goroutine.
	failed atomic.Pointer[pipePanic]
	// waited is set once the sink's goroutine has been told to end.
	waited bool
}

type pipePanic struct{ value any }

// pipeBatchLen is the number of calls of a batch: enough that the hand
// over of a batch (two channel operations, perhaps a goroutine woken) is
// small beside its calls, few enough that a batch of states (40 bytes
// each) stays in the second level cache the sink reads it from.
const pipeBatchLen = 2048

// pipeBatches is the number of batches: one filled by the reader, one
// read by the sink, one ready between them for either to go on without
// waiting for the other.
const pipeBatches = 3

type pipeOp uint8

const (
	opType pipeOp = iota
	opValue
	opContainer
	opDestroy
	opState
	opVariable
	opLink
	opEvent
	opFinish
)

// pipeBatch holds calls in order: ops says which call came n-th, its
// arguments are the next of the slice of its kind.
type pipeBatch struct {
	ops        []pipeOp
	states     []State
	links      []Link
	events     []Event
	variables  []Variable
	types      []Type
	values     []Value
	containers []Container
	destroys   []pipeDestroy
	start, end Time // Finish's
}

type pipeDestroy struct {
	id int32
	at Time
}

// NewPipe starts the goroutine that passes calls to sink.
func NewPipe(sink Sink) *Pipe {
	p := &Pipe{
		sink: sink,
		full: make(chan *pipeBatch, pipeBatches),
		free: make(chan *pipeBatch, pipeBatches),
		done: make(chan struct{}),
	}
	p.cur = newPipeBatch()
	for range pipeBatches - 1 {
		p.free <- newPipeBatch()
	}
	go p.run()
	return p
}

func newPipeBatch() *pipeBatch {
	return &pipeBatch{ops: make([]pipeOp, 0, pipeBatchLen)}
}

// run is the sink's goroutine.
func (p *Pipe) run() {
	defer close(p.done)
	for b := range p.full {
		if p.failed.Load() == nil {
			p.replay(b)
		}
		b.reset()
		p.free <- b
	}
}

// replay makes b's calls, noting a panic of the sink's.
func (p *Pipe) replay(b *pipeBatch) {
	defer func() {
		if v := recover(); v != nil {
			p.failed.Store(&pipePanic{v})
		}
	}()
	var s, l, e, v, t, val, c, d int
	sink := p.sink
	for _, op := range b.ops {
		switch op {
		case opState:
			sink.State(b.states[s])
			s++
		case opLink:
			sink.Link(b.links[l])
			l++
		case opEvent:
			sink.Event(b.events[e])
			e++
		case opVariable:
			sink.Variable(b.variables[v])
			v++
		case opType:
			sink.DefineType(b.types[t])
			t++
		case opValue:
			sink.DefineValue(b.values[val])
			val++
		case opContainer:
			sink.CreateContainer(b.containers[c])
			c++
		case opDestroy:
			sink.DestroyContainer(b.destroys[d].id, b.destroys[d].at)
			d++
		case opFinish:
			sink.Finish(b.start, b.end)
		}
	}
}

// reset empties b for new calls, dropping its references to strings.
func (b *pipeBatch) reset() {
	b.ops = b.ops[:0]
	b.states = b.states[:0]
	b.events = b.events[:0]
	b.variables = b.variables[:0]
	clear(b.links)
	b.links = b.links[:0]
	clear(b.types)
	b.types = b.types[:0]
	clear(b.values)
	b.values = b.values[:0]
	clear(b.containers)
	b.containers = b.containers[:0]
	b.destroys = b.destroys[:0]
}

// added sends the current batch to the sink once it is full.
func (p *Pipe) added() {
	if len(p.cur.ops) >= pipeBatchLen {
		p.send()
	}
}

// send hands the current batch to the sink's goroutine and takes an
// empty one, raising the sink's panic if it has had one.
func (p *Pipe) send() {
	if p.waited {
		panic("trace: a call to a Pipe after Finish or Wait")
	}
	p.full <- p.cur
	p.cur = <-p.free
	p.raise()
}

func (p *Pipe) raise() {
	if f := p.failed.Load(); f != nil {
		panic(f.value)
	}
}

// Wait sends the calls not yet sent, waits for the sink to have received
// them all and ends the sink's goroutine; it raises the sink's panic if it
// had one. Calls to the Pipe after Wait panic; Wait itself may be called
// again.
func (p *Pipe) Wait() {
	if !p.waited {
		p.waited = true
		p.full <- p.cur
		p.cur = nil
		close(p.full)
		<-p.done
	}
	p.raise()
}

// DefineType implements Sink.
func (p *Pipe) DefineType(t Type) {
	p.cur.ops = append(p.cur.ops, opType)
	p.cur.types = append(p.cur.types, t)
	p.added()
}

// DefineValue implements Sink.
func (p *Pipe) DefineValue(v Value) {
	p.cur.ops = append(p.cur.ops, opValue)
	p.cur.values = append(p.cur.values, v)
	p.added()
}

// CreateContainer implements Sink. The container's children are copied:
// the reader may go on filling its slice.
func (p *Pipe) CreateContainer(c Container) {
	c.Children = slices.Clone(c.Children)
	p.cur.ops = append(p.cur.ops, opContainer)
	p.cur.containers = append(p.cur.containers, c)
	p.added()
}

// DestroyContainer implements Sink.
func (p *Pipe) DestroyContainer(id int32, at Time) {
	p.cur.ops = append(p.cur.ops, opDestroy)
	p.cur.destroys = append(p.cur.destroys, pipeDestroy{id, at})
	p.added()
}

// State implements Sink.
func (p *Pipe) State(s State) {
	b := p.cur
	b.ops = append(b.ops, opState)
	b.states = append(b.states, s)
	if len(b.ops) >= pipeBatchLen {
		p.send()
	}
}

// Variable implements Sink.
func (p *Pipe) Variable(v Variable) {
	p.cur.ops = append(p.cur.ops, opVariable)
	p.cur.variables = append(p.cur.variables, v)
	p.added()
}

// Link implements Sink.
func (p *Pipe) Link(l Link) {
	p.cur.ops = append(p.cur.ops, opLink)
	p.cur.links = append(p.cur.links, l)
	p.added()
}

// Event implements Sink.
func (p *Pipe) Event(e Event) {
	b := p.cur
	b.ops = append(b.ops, opEvent)
	b.events = append(b.events, e)
	if len(b.ops) >= pipeBatchLen {
		p.send()
	}
}

// Finish implements Sink: it returns once the sink has received every
// call, Finish last, so that what the sink computed can be read.
func (p *Pipe) Finish(start, end Time) {
	if p.waited {
		panic(fmt.Sprintf("trace: Finish(%d, %d) on a Pipe after Finish or Wait", start, end))
	}
	p.cur.ops = append(p.cur.ops, opFinish)
	p.cur.start, p.cur.end = start, end
	p.Wait()
}
