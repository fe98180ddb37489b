package readertest

import (
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestContract: a reader's calls that keep the contract pass, and each
// kind of violation is named.
func TestContract(t *testing.T) {
	good := func(c *Contract) {
		c.DefineType(trace.Type{Name: "P", Kind: trace.KindContainer, Parent: trace.None})
		c.DefineType(trace.Type{Name: "S", Kind: trace.KindState, Parent: 0})
		c.DefineValue(trace.Value{Type: 1, Name: "a"})
		c.CreateContainer(trace.Container{Name: "p", Type: 0, Parent: 0})
		c.State(trace.State{Container: 1, Type: 1, Value: 0, Start: 1, End: 2})
	}
	c := NewContract(trace.New())
	good(c)
	c.Finish(0, 2)
	if c.Err() != nil || !c.Finished() {
		t.Fatalf("a valid read: %v, finished %v", c.Err(), c.Finished())
	}
	for _, bad := range []struct {
		call func(c *Contract)
		want string
	}{
		{func(c *Contract) { c.State(trace.State{Container: 2, Type: 1}) }, "State: container 2 undefined (2 containers)"},
		{func(c *Contract) { c.State(trace.State{Container: 1, Type: 0}) }, "State: type 0 is a Container type, want State"},
		{func(c *Contract) { c.State(trace.State{Container: 1, Type: 1, Value: 1}) }, "State: value 1 undefined (1 values)"},
		{func(c *Contract) { c.State(trace.State{Container: 1, Type: 1, Start: 3, End: 2}) }, "State: ends at 2 before it starts at 3"},
		{func(c *Contract) { c.DefineValue(trace.Value{Type: 5}) }, "DefineValue: type 5 undefined (2 types)"},
		{func(c *Contract) { c.CreateContainer(trace.Container{Type: 1, Parent: 0}) }, "CreateContainer: type 1 is a State type"},
		{func(c *Contract) { c.DestroyContainer(0, 1) }, "DestroyContainer: the root"},
		{func(c *Contract) { c.Finish(0, 1); c.Event(trace.Event{}) }, "Event after Finish"},
	} {
		c := NewContract(nil)
		good(c)
		bad.call(c)
		if c.Err() == nil || !strings.Contains(c.Err().Error(), bad.want) {
			t.Errorf("got %v, want %q", c.Err(), bad.want)
		}
	}
}
