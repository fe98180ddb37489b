package trace

import "testing"

func TestArgsSparseColumns(t *testing.T) {
	tr := New()
	var _ ArgsSink = tr
	if tr.KeepsArgs() {
		t.Error("a new trace keeps arguments")
	}
	tr.State(State{})
	tr.State(State{})
	tr.Args(KindState, 1, `{"a":1}`)
	tr.Event(Event{})
	tr.Args(KindEvent, 0, `{}`)
	tr.Args(KindLink, 0, `{"dropped":true}`)
	if len(tr.StateArgs) != 2 || tr.StateArgs[0] != "" || tr.StateArgs[1] != `{"a":1}` {
		t.Errorf("StateArgs = %q", tr.StateArgs)
	}
	for _, c := range []struct {
		kind  Kind
		index int
		want  string
	}{{KindState, 0, ""}, {KindState, 1, `{"a":1}`}, {KindState, 7, ""}, {KindEvent, 0, "{}"}, {KindLink, 0, ""}, {KindEvent, -1, ""}} {
		if got := tr.ArgsOf(c.kind, c.index); got != c.want {
			t.Errorf("ArgsOf(%v, %d) = %q, want %q", c.kind, c.index, got, c.want)
		}
	}
}
