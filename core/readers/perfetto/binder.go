package perfetto

import (
	"strconv"

	"github.com/macroscope-hpc/macroscope/core/readers/pbwalk"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Binder transactions, Android's inter-process calls, as the ftrace events
// binder_transaction and binder_transaction_received record them (the
// "binder_driver" atrace category). They become what trace processor makes
// of them (BinderTracker), on the threads that send and receive:
//   - a call expecting a reply: a state "binder transaction" on the calling
//     thread, from its send until the reply is received; on the thread
//     that receives it, a state "binder reply" from its receipt until that
//     thread sends the reply;
//   - a one-way call (flag TF_ONE_WAY): events "binder transaction async"
//     on the sender and "binder async rcv" on the receiver;
//   - a link of type "Binder transaction" from the sender's thread at the
//     send to the receiver's at the receipt, for a call and a one-way call
//     (valued "binder transaction" and "binder transaction async", keyed
//     by the debug id), as trace processor's flows join the sending slice
//     to the receiving one and Perfetto's UI draws them; not for a reply.
//
// The states are of type "Binder transaction", nested on a stack of their
// own per thread. A transaction is known by its debug id; a receipt of a
// transaction the trace does not hold (sent before it began) is counted,
// as trace processor ignores it. Both events are held with atrace's and
// applied in time order: a thread's send and the other thread's receipt
// come in the bundles of different CPUs.

// Phases of binder events among atrace's (atraceEvent.phase).
const (
	binderSend    = 'T' // binder_transaction
	binderReceive = 'R' // binder_transaction_received
)

// Flags of a binder send (atraceEvent.binder).
const (
	binderReply  = 1 << iota // the reply of a transaction
	binderOneway             // TF_ONE_WAY: no reply expected
)

// tfOneWay is the kernel's TF_ONE_WAY flag of a transaction.
const tfOneWay = 0x01

// binderEvent reads a binder_transaction or binder_transaction_received
// event of thread tid at t.
func (d *decoder) binderEvent(t trace.Time, tid int32, f field) error {
	var id int64
	var reply, flags uint64
	if err := pbwalk.Each(f.B, f.Off, func(g field) error {
		switch {
		case g.Num == btDebugID:
			id = int64(g.Int32())
		case g.Num == btReply && f.Num == feBinderTransaction:
			reply = g.U
		case g.Num == btFlags && f.Num == feBinderTransaction:
			flags = g.U
		}
		return nil
	}); err != nil {
		return err
	}
	d.saw(t)
	e := atraceEvent{at: t, tid: tid, phase: binderReceive, value: id}
	if f.Num == feBinderTransaction {
		e.phase = binderSend
		if reply != 0 {
			e.binder |= binderReply
		} else if flags&tfOneWay != 0 {
			e.binder |= binderOneway
		}
	}
	d.atrace = append(d.atrace, e)
	return nil
}

// binderSent is what the receipt of a transaction needs of its send: its
// flags, and where and when it was sent, for the link.
type binderSent struct {
	flags uint8
	cont  int32
	at    trace.Time
}

// binderSteps names what a send (binderSteps[0]) and a receipt
// (binderSteps[1]) make: the two mirror each other.
var binderSteps = [2]struct {
	state, instant, noReply string
}{
	{"binder transaction", "binder transaction async", "binder replies sent by a thread with no open binder reply"},
	{"binder reply", "binder async rcv", "binder replies received by a thread with no open binder transaction"},
}

// applyBinder applies a binder event, in time order (applyAtrace). The
// receipt of a call or of a one-way call is linked from its send, as
// trace processor's flows join them (BinderTracker::TransactionReceived);
// a reply's is not.
func (d *decoder) applyBinder(e *atraceEvent) {
	cont := d.conts.thread(0, e.tid)
	if e.phase == binderSend {
		d.binderSent[e.value] = binderSent{flags: e.binder, cont: cont, at: e.at}
		d.binderStep(cont, e.at, e.binder, 0)
		return
	}
	sent, ok := d.binderSent[e.value]
	if !ok {
		d.skip("binder transactions received whose sending the trace lacks", 1)
		return
	}
	delete(d.binderSent, e.value)
	d.binderStep(cont, e.at, sent.flags, 1)
	if sent.flags&binderReply == 0 {
		name := binderSteps[0].state
		if sent.flags&binderOneway != 0 {
			name = binderSteps[0].instant
		}
		typ := d.m.linkTypeNamed("Binder transaction", d.m.contType[sent.cont], d.m.contType[cont])
		d.m.sink.Link(trace.Link{Container: 0, Type: typ, Value: d.m.value(typ, name), Start: sent.at, End: e.at,
			From: sent.cont, To: cont, Key: strconv.FormatInt(e.value, 10), Size: nan})
	}
}

// binderStep is what a send (side 0) or a receipt (side 1) of a
// transaction of the given flags does on thread cont at t: a reply ends
// the state open there (the server's "binder reply" when it is sent, the
// caller's "binder transaction" when it is received), a one-way call is
// an instant, a call begins a state.
func (d *decoder) binderStep(cont int32, t trace.Time, flags uint8, side int) {
	step := binderSteps[side]
	switch {
	case flags&binderReply != 0:
		if !d.binderStack(cont).pop(d, t) {
			d.skip(step.noReply, 1)
		}
	case flags&binderOneway != 0:
		d.binderInstant(cont, step.instant, t)
	default:
		st := d.binderStack(cont)
		st.push(slice{start: t, end: open, value: d.m.value(st.typ, step.state), order: st.order})
		st.order++
	}
}

// binderStack is the stack of binder states of thread container cont.
func (d *decoder) binderStack(cont int32) *stack {
	st := d.binderStacks[cont]
	if st == nil {
		st = &stack{cont: cont, typ: d.m.typ(trace.KindState, "Binder transaction", d.m.contType[cont])}
		d.binderStacks[cont] = st
		d.binderIDs = append(d.binderIDs, cont)
	}
	return st
}

func (d *decoder) binderInstant(cont int32, name string, t trace.Time) {
	typ := d.m.typ(trace.KindEvent, "Binder", d.m.contType[cont])
	d.m.sink.Event(trace.Event{Container: cont, Type: typ, Value: d.m.value(typ, name), Time: t})
}
