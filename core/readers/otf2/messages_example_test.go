package otf2_test

import (
	"fmt"
	"path/filepath"

	"github.com/macroscope-hpc/macroscope/core/readers/otf2"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// keeper is a trace in memory that keeps the messages its location groups
// leave unmatched.
type keeper struct {
	*trace.Trace
	msgs *otf2.Messages
}

func (k *keeper) KeepMessages(m *otf2.Messages) { k.msgs = m }

// The location groups of an archive read apart (in other processes, say)
// leave the messages between them unmatched: each part ships its ends
// encoded, the ends add up, and MatchMessages makes the links the read of
// the whole archive makes.
func ExampleMatchMessages() {
	// Two location groups; location 0 sends a message to location 1.
	path := filepath.Join("..", "..", "partition", "testdata", "otf2-beyond", "traces.otf2")
	groups, err := otf2.LocationGroups(path)
	if err != nil {
		panic(err)
	}
	var all *otf2.Messages
	for _, g := range groups {
		part := &keeper{Trace: trace.New(path)}
		if err := otf2.ReadGroups(path, []uint32{g}, part, trace.ReadOptions{}); err != nil {
			panic(err)
		}
		data, err := part.msgs.MarshalBinary() // what a worker sends back
		if err != nil {
			panic(err)
		}
		kept, err := otf2.UnmarshalMessages(data)
		if err != nil {
			panic(err)
		}
		fmt.Printf("group %d: %d message end(s), %d bytes\n", g, kept.Len(), len(data))
		if all == nil {
			all = kept
		} else {
			all.Add(kept)
		}
	}
	matched := trace.New(path)
	if err := otf2.MatchMessages(path, []*otf2.Messages{all}, matched, 0, 150, trace.ReadOptions{}); err != nil {
		panic(err)
	}
	name := func(c int32) string {
		return matched.Containers[matched.Containers[c].Parent].Name + "/" + matched.Containers[c].Name
	}
	for _, l := range matched.Links.All() {
		fmt.Printf("link %s -> %s, %d-%d ns, %g bytes\n", name(l.From), name(l.To), l.Start, l.End, l.Size)
	}
	// Output:
	// group 0: 1 message end(s), 18 bytes
	// group 1: 1 message end(s), 18 bytes
	// link P0/thread -> P1/thread, 30-40 ns, 8 bytes
}
