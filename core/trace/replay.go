package trace

// Replay sends a trace held in memory to a sink as a reader would:
// types, values and containers, then the states in the order they were
// read (so the states nested in a state still come before it), the
// variables, the links and the events, the destruction of the containers
// that end before the trace, and Finish. Entities of different kinds are not interleaved in time, but
// each kind keeps its order, so a sink that computes while a reader
// streams (an accumulator) computes the same from a trace already read.
func (t *Trace) Replay(sink Sink) {
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
		sink.State(s)
	}
	for _, v := range t.Variables.All() {
		sink.Variable(v)
	}
	for _, l := range t.Links.All() {
		sink.Link(l)
	}
	for _, e := range t.Events.All() {
		sink.Event(e)
	}
	for i := 1; i < len(t.Containers); i++ {
		if end := t.Containers[i].End; end != Unset && end != t.End {
			sink.DestroyContainer(int32(i), end)
		}
	}
	sink.Finish(t.Start, t.End)
}
