package trace

// EventColumn holds a trace's events column-wise, in blocks of 32,768:
// the time as int64 nanoseconds, container, type and value as int32 ids.
// An event costs 20 bytes (Event, the struct the readers hand over, takes
// 24), and the column grows a block at a time and never copies itself to
// grow (see StateColumn).
//
// The zero value is an empty column ready to use; EventsOf builds one from
// a slice.
type EventColumn struct {
	column[Event, eventBlock, *eventBlock]
}

// EventBlockBytes is the memory of one block of an EventColumn.
const EventBlockBytes = blockLen * (8 + 4 + 4 + 4)

type eventBlock struct {
	time                  [blockLen]Time
	container, typ, value [blockLen]int32
}

func (b *eventBlock) get(j int) Event {
	return Event{Container: b.container[j], Type: b.typ[j], Value: b.value[j], Time: b.time[j]}
}

func (b *eventBlock) put(j int, e Event) {
	b.container[j], b.typ[j], b.value[j], b.time[j] = e.Container, e.Type, e.Value, e.Time
}

func (b *eventBlock) bytes() int64 { return EventBlockBytes }

// EventsOf returns a column holding events, in their order.
func EventsOf(events ...Event) EventColumn {
	var c EventColumn
	c.Grow(len(events))
	for _, e := range events {
		c.Append(e)
	}
	return c
}
