package perfetto

import (
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
//     on the sender and "binder async rcv" on the receiver.
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

// binderSent is what the receipt of a transaction needs of its send.
type binderSent struct{ flags uint8 }

// applyBinder applies a binder event, in time order (applyAtrace).
func (d *decoder) applyBinder(e *atraceEvent) {
	cont := d.conts.thread(0, e.tid)
	if e.phase == binderSend {
		d.binderSent[e.value] = binderSent{flags: e.binder}
		switch {
		case e.binder&binderReply != 0:
			// The server sends the reply: its "binder reply" ends.
			if !d.binderStack(cont).pop(d, e.at) {
				d.skip("binder replies sent by a thread with no open binder reply", 1)
			}
		case e.binder&binderOneway != 0:
			d.binderInstant(cont, "binder transaction async", e.at)
		default:
			st := d.binderStack(cont)
			st.push(slice{start: e.at, end: open, value: d.m.value(st.typ, "binder transaction"), order: st.order})
			st.order++
		}
		return
	}
	sent, ok := d.binderSent[e.value]
	if !ok {
		d.skip("binder transactions received whose sending the trace lacks", 1)
		return
	}
	delete(d.binderSent, e.value)
	switch {
	case sent.flags&binderReply != 0:
		// The caller receives the reply: its "binder transaction" ends.
		if !d.binderStack(cont).pop(d, e.at) {
			d.skip("binder replies received by a thread with no open binder transaction", 1)
		}
	case sent.flags&binderOneway != 0:
		d.binderInstant(cont, "binder async rcv", e.at)
	default:
		st := d.binderStack(cont)
		st.push(slice{start: e.at, end: open, value: d.m.value(st.typ, "binder reply"), order: st.order})
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
