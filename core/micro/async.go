package micro

import (
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// async is a trace.Sink that hands the calls it receives, in batches, to
// another sink on a goroutine of its own, in the same order: the reader's
// goroutine goes on reading while the accumulator works on another core.
type async struct {
	sink  trace.Sink
	batch []op
	full  chan []op // batches to apply
	free  chan []op // applied batches, to reuse
	done  chan struct{}
	fault any // a panic of sink, raised again by close
}

// opKind says which call an op records.
type opKind uint8

const (
	opState opKind = iota
	opVariable
	opEvent
	opLink
	opDefineType
	opDefineValue
	opCreate
	opDestroy
	opFinish
)

// op is one call; rare calls keep their argument in x.
type op struct {
	kind          opKind
	depth, order  int32
	c, typ, value int32
	start, end    trace.Time
	f             float64
	x             any
}

const (
	asyncBatch    = 4096
	asyncInFlight = 4
)

// newAsync starts the goroutine that applies the calls to sink; close
// must be called, even after an error.
func newAsync(sink trace.Sink) *async {
	a := &async{sink: sink, full: make(chan []op, asyncInFlight), free: make(chan []op, asyncInFlight+1), done: make(chan struct{})}
	a.batch = make([]op, 0, asyncBatch)
	go a.apply()
	return a
}

func (a *async) apply() {
	defer close(a.done)
	defer func() {
		if p := recover(); p != nil {
			a.fault = p
			for range a.full { // let the reader finish
			}
		}
	}()
	for b := range a.full {
		for i := range b {
			o := &b[i]
			switch o.kind {
			case opState:
				a.sink.State(trace.State{Container: o.c, Type: o.typ, Value: o.value, Start: o.start, End: o.end, Depth: o.depth, Order: o.order})
			case opVariable:
				a.sink.Variable(trace.Variable{Container: o.c, Type: o.typ, Start: o.start, End: o.end, Value: o.f})
			case opEvent:
				a.sink.Event(trace.Event{Container: o.c, Type: o.typ, Value: o.value, Time: o.start})
			case opLink:
				a.sink.Link(o.x.(trace.Link))
			case opDefineType:
				a.sink.DefineType(o.x.(trace.Type))
			case opDefineValue:
				a.sink.DefineValue(o.x.(trace.Value))
			case opCreate:
				a.sink.CreateContainer(o.x.(trace.Container))
			case opDestroy:
				a.sink.DestroyContainer(o.c, o.start)
			case opFinish:
				a.sink.Finish(o.start, o.end)
			}
			o.x = nil
		}
		select {
		case a.free <- b[:0]:
		default:
		}
	}
}

// push records o, handing the batch over when it is full.
func (a *async) push(o op) {
	a.batch = append(a.batch, o)
	if len(a.batch) == cap(a.batch) {
		a.flush()
	}
}

func (a *async) flush() {
	if len(a.batch) == 0 {
		return
	}
	a.full <- a.batch
	select {
	case b := <-a.free:
		a.batch = b
	default:
		a.batch = make([]op, 0, asyncBatch)
	}
}

// close hands over what is left and waits until every call is applied.
func (a *async) close() {
	a.flush()
	close(a.full)
	<-a.done
	if a.fault != nil {
		panic(a.fault)
	}
}

func (a *async) DefineType(t trace.Type)   { a.push(op{kind: opDefineType, x: t}) }
func (a *async) DefineValue(v trace.Value) { a.push(op{kind: opDefineValue, x: v}) }
func (a *async) CreateContainer(c trace.Container) {
	a.push(op{kind: opCreate, x: c})
}
func (a *async) DestroyContainer(id int32, at trace.Time) {
	a.push(op{kind: opDestroy, c: id, start: at})
}
func (a *async) State(s trace.State) {
	a.push(op{kind: opState, c: s.Container, typ: s.Type, value: s.Value, start: s.Start, end: s.End, depth: s.Depth, order: s.Order})
}
func (a *async) Variable(v trace.Variable) {
	a.push(op{kind: opVariable, c: v.Container, typ: v.Type, start: v.Start, end: v.End, f: v.Value})
}
func (a *async) Event(e trace.Event) {
	a.push(op{kind: opEvent, c: e.Container, typ: e.Type, value: e.Value, start: e.Time})
}
func (a *async) Link(l trace.Link)            { a.push(op{kind: opLink, x: l}) }
func (a *async) Finish(start, end trace.Time) { a.push(op{kind: opFinish, start: start, end: end}) }
