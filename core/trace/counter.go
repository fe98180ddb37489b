package trace

// Counter is a Sink that counts what it receives and keeps nothing: the
// cost of reading alone, or a summary of a trace without holding it.
type Counter struct {
	Types, Values, Containers, States, Variables, Links, Events int
	Start, End                                                  Time // as Finish gave them
}

func (c *Counter) DefineType(Type)              { c.Types++ }
func (c *Counter) DefineValue(Value)            { c.Values++ }
func (c *Counter) CreateContainer(Container)    { c.Containers++ }
func (c *Counter) DestroyContainer(int32, Time) {}
func (c *Counter) State(State)                  { c.States++ }
func (c *Counter) Variable(Variable)            { c.Variables++ }
func (c *Counter) Link(Link)                    { c.Links++ }
func (c *Counter) Event(Event)                  { c.Events++ }
func (c *Counter) Finish(start, end Time)       { c.Start, c.End = start, end }
