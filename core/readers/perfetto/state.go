package perfetto

import "github.com/macroscope-hpc/macroscope/core/trace"

// State tracks (a TrackDescriptor with a StateDescriptor, Perfetto's
// RFC-0023) hold one named state at a time: each TYPE_STATE event on the
// track names the state it is in from the event's time on, until the
// track's next event; an event without a name leaves it in no state.
// Chrome writes them (RenderingPrioritizationState,
// Scheduler.CompositorPriority under a renderer's threads). Each becomes a
// state "State" of the track's container, the last one ending with the
// trace, as a counter's last value holds until then.

// oneState is a container in one state at a time (a state track, a CPU
// running a thread): the state it is in since start, delivered when it
// ends (the next begins, or the trace ends).
type oneState struct {
	cont, typ int32
	value     int32
	start     trace.Time // when the current state began
	on        bool       // in a state since start
	order     int32      // states delivered: the Order of the next
}

// begin enters state value at t (the one before ended).
func (o *oneState) begin(t trace.Time, value int32) { o.value, o.start, o.on = value, t, true }

// end delivers the current state, if any, ended at t.
func (o *oneState) end(sink trace.Sink, t trace.Time) {
	if !o.on {
		return
	}
	sink.State(trace.State{Container: o.cont, Type: o.typ, Value: o.value, Start: o.start, End: t, Order: o.order})
	o.order++
	o.on = false
}

// stateTrack is what a state track is in.
type stateTrack struct {
	oneState
	last trace.Time // the time of the track's last event
}

// stateEvent applies a TYPE_STATE event of track uuid at t; name is the
// state entered, "" for none.
func (d *decoder) stateEvent(uuid uint64, hasTrack bool, t trace.Time, name string) {
	if !hasTrack {
		d.skip("state events without a track", 1)
		return
	}
	if info := d.track(uuid); info == nil || info.kind != trackState {
		d.skip("state events on tracks that are not state tracks", 1)
		return
	}
	st := d.states[uuid]
	if st == nil {
		cont := d.conts.track(uuid)
		st = &stateTrack{oneState: oneState{cont: cont, typ: d.m.typ(trace.KindState, "State", d.m.contType[cont])}, last: t}
		d.states[uuid] = st
		d.stateOrder = append(d.stateOrder, uuid)
	}
	if t < st.last {
		// One sequence writes a track, in time order; a state cannot
		// begin inside the span of states already delivered.
		d.skip("state events earlier than the last event of their track", 1)
		return
	}
	st.last = t
	st.end(d.m.sink, t)
	if name != "" {
		st.begin(t, d.m.value(st.typ, name))
	}
}
