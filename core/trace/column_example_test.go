package trace_test

import (
	"fmt"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// A trace keeps the links a reader hands it in a LinkColumn: read them
// back by index or in order; their keys cost only their bytes, none when
// empty.
func ExampleLinkColumn() {
	t := trace.New()
	t.Link(trace.Link{From: 1, To: 2, Start: 10, End: 25, Key: "msg-1", Size: 4096})
	t.Link(trace.Link{From: 2, To: 1, Start: 30, End: 31, Size: 8})

	fmt.Println(t.Links.Len(), "links")
	for i, l := range t.Links.All() {
		fmt.Printf("%d: %d -> %d, %v ns, key %q, %v bytes\n", i, l.From, l.To, int64(l.End-l.Start), l.Key, l.Size)
	}
	l := t.Links.At(1)
	l.Key = "msg-2"
	t.Links.Set(1, l)
	fmt.Println(t.Links.At(1).Key)
	fmt.Println("one block:", trace.LinkBlockBytes, "bytes, and the keys' 10:", t.Links.Bytes() >= trace.LinkBlockBytes+10)
	// Output:
	// 2 links
	// 0: 1 -> 2, 15 ns, key "msg-1", 4096 bytes
	// 1: 2 -> 1, 1 ns, key "", 8 bytes
	// msg-2
	// one block: 1703936 bytes, and the keys' 10: true
}
