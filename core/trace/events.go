package trace

import "iter"

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

// Append adds e after the last one.
func (c *EventColumn) Append(e Event) {
	b, j := c.next()
	b.put(j, e)
}

// At returns the i-th event; it panics if i is out of range.
func (c *EventColumn) At(i int) Event {
	checkIndex(i, c.n)
	return c.blocks[i>>blockBits].get(i & blockMask)
}

// Set replaces the i-th event; it panics if i is out of range.
func (c *EventColumn) Set(i int, e Event) {
	checkIndex(i, c.n)
	c.blocks[i>>blockBits].put(i&blockMask, e)
}

// All yields the events in order, with their index.
func (c *EventColumn) All() iter.Seq2[int, Event] {
	return func(yield func(int, Event) bool) {
		for i := 0; i < c.n; i++ {
			if !yield(i, c.blocks[i>>blockBits].get(i&blockMask)) {
				return
			}
		}
	}
}

// EventsOf returns a column holding events, in their order.
func EventsOf(events ...Event) EventColumn {
	var c EventColumn
	fill(&c, events)
	return c
}
