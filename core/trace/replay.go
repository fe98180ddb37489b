package trace

// Replay sends a trace held in memory to a sink as a reader would:
// types, values and containers, then the states in the order they were
// read (so the states nested in a state still come before it), the
// variables, the links and the events, the destruction of the containers
// that end before the trace, and Finish. Entities of different kinds are not interleaved in time, but
// each kind keeps its order, so a sink that computes while a reader
// streams (an accumulator) computes the same from a trace already read.
func (t *Trace) Replay(sink Sink) {
	_ = t.ReplayCancel(sink, nil) // a nil channel never stops it
}

// ReplayCancel is Replay stopped by cancel: once it is closed (looked at
// first, then every StopEvery states, variables, links or events), it
// returns ErrComputationCanceled without finishing the sink, whose
// result is then incomplete and must be dropped. A nil cancel never
// stops it.
func (t *Trace) ReplayCancel(sink Sink, cancel <-chan struct{}) error {
	look := Looker{Cancel: cancel}
	if err := look.Stopped(0); err != nil {
		return err
	}
	for _, ty := range t.Types {
		sink.DefineType(ty)
	}
	for _, v := range t.Values {
		sink.DefineValue(v)
	}
	for _, c := range t.Containers[1:] {
		c.Children, c.End = nil, Unset
		sink.CreateContainer(c)
	}
	for _, s := range t.States.All() {
		if err := look.Stopped(1); err != nil {
			return err
		}
		sink.State(s)
	}
	for _, v := range t.Variables.All() {
		if err := look.Stopped(1); err != nil {
			return err
		}
		sink.Variable(v)
	}
	for _, l := range t.Links.All() {
		if err := look.Stopped(1); err != nil {
			return err
		}
		sink.Link(l)
	}
	for _, e := range t.Events.All() {
		if err := look.Stopped(1); err != nil {
			return err
		}
		sink.Event(e)
	}
	for i := 1; i < len(t.Containers); i++ {
		if end := t.Containers[i].End; end != Unset && end != t.End {
			sink.DestroyContainer(int32(i), end)
		}
	}
	sink.Finish(t.Start, t.End)
	return nil
}
