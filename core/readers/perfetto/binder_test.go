package perfetto

import "testing"

// TestBinder covers binder transactions as trace processor's
// BinderTracker pairs them: a call (debug id 1) from thread 5 to thread
// 7 is "binder transaction" on 5 until the reply (id 2) is received and
// "binder reply" on 7 until 7 sends it; a one-way call (id 3) is an
// event on each side; a receipt whose send the trace lacks (id 9) is
// counted. The call and the one-way call are links from their send to
// their receipt, as trace processor's flows join the sending slice to the
// receiving one; the reply is not. The send of the call and its receipt
// sit in the bundles of different CPUs, the receipt's first in the file.
func TestBinder(t *testing.T) {
	send := func(at, tid, id, reply, flags uint64) []byte {
		return sub(2, vint(1, at), vint(2, tid), sub(50, vint(1, id), vint(5, reply), vint(7, flags)))
	}
	recv := func(at, tid, id uint64) []byte {
		return sub(2, vint(1, at), vint(2, tid), sub(51, vint(1, id)))
	}
	data := traceOf(
		pkt(sub(1, vint(1, 1), recv(120, 7, 1), send(300, 7, 2, 1, 0), recv(330, 9, 9))),
		pkt(sub(1, vint(1, 0), send(100, 5, 1, 0, 0), recv(320, 5, 2), send(400, 5, 3, 0, 0x11))),
		pkt(sub(1, vint(1, 1), recv(410, 7, 3))),
		pkt(ts(500), sub(35)),
	)
	tr, notes := mustRead(t, data)
	checkRender(t, tr, `
		container Thread 5 Thread alias=5
		container Thread 7 Thread alias=7
		container Thread 9 Thread alias=9
		state Thread 7 Binder transaction "binder reply" 120 300 d0 o0
		state Thread 5 Binder transaction "binder transaction" 100 320 d0 o0
		event Thread 5 Binder "binder transaction async" 400
		event Thread 7 Binder "binder async rcv" 410
		link Binder transaction "binder transaction" Thread 5 -> Thread 7 100 120 key=1
		link Binder transaction "binder transaction async" Thread 5 -> Thread 7 400 410 key=3
		span 100 500
	`)
	checkTypes(t, tr)
	checkNotes(t, notes,
		"skipped 1 packets of kind trace_stats",
		"skipped 1 binder transactions received whose sending the trace lacks")
}
