package otf2_test

import (
	"fmt"
	"path/filepath"

	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/readers/otf2"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// keeper is a trace in memory that keeps the ends of the messages its
// location groups leave unmatched.
type keeper struct {
	*trace.Trace
	ends ingest.Ends
}

func (k *keeper) KeepEnds(e ingest.Ends) { k.ends = e }

// The location groups of an archive read apart (in other processes, say)
// leave the messages between them unmatched: each part ships its ends
// encoded, the ends add up, and the format pairs them into the links the
// read of the whole archive makes.
func ExampleFormat_parts() {
	// Two location groups; location 0 sends a message to location 1.
	path := filepath.Join("..", "..", "partition", "testdata", "otf2-beyond", "traces.otf2")
	parts, err := otf2.Format.Parts.Cut(path, 2)
	if err != nil {
		panic(err)
	}
	var all ingest.Ends
	for _, p := range parts {
		opt, err := otf2.Format.Check(p.Options)
		if err != nil {
			panic(err)
		}
		src, err := otf2.Format.Open(path, opt)
		if err != nil {
			panic(err)
		}
		part := &keeper{Trace: trace.New(path)}
		if err := src.Read(part, trace.ReadOptions{}); err != nil {
			panic(err)
		}
		data, err := part.ends.MarshalBinary() // what a worker sends back
		if err != nil {
			panic(err)
		}
		kept, err := otf2.Format.Parts.UnmarshalEnds(data)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: %d message end(s), %d bytes\n", p.Label, kept.Len(), len(data))
		if all == nil {
			all = kept
		} else {
			all.Add(kept)
		}
	}
	matched := trace.New(path)
	if err := otf2.Format.Parts.PairEnds(path, []ingest.Ends{all}, matched, 0, 150, trace.ReadOptions{}); err != nil {
		panic(err)
	}
	name := func(c int32) string {
		return matched.Containers[matched.Containers[c].Parent].Name + "/" + matched.Containers[c].Name
	}
	for _, l := range matched.Links.All() {
		fmt.Printf("link %s -> %s, %d-%d ns, %g bytes\n", name(l.From), name(l.To), l.Start, l.End, l.Size)
	}
	// Output:
	// location group 0: 1 message end(s), 18 bytes
	// location group 1: 1 message end(s), 18 bytes
	// link P0/thread -> P1/thread, 30-40 ns, 8 bytes
}
