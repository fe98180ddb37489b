package mpi_test

import (
	"fmt"
	"os"

	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/mpi"
)

// Blocks gathers the message passing a resource at a time: each
// resource's calls come back from a spool, read forwards as often as
// needed, and the messages are handed over as they are tied to them:
// with their two calls' times as soon as both are known, then in the
// order of the links.
func ExampleBuilder_Blocks() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	spill := &mpi.Spill{Dir: dir}
	defer spill.Close()
	b := mpi.NewBuilder()
	b.SpillTo(spill)
	b.SpillCalls = true
	b.OnMessage = func(m *mpi.Message, send, recv mpi.Class) {
		fmt.Printf("message %d -> %d: call %d (%v) to call %d (%v)\n", m.From, m.To, m.SendCall, send, m.RecvCall, recv)
	}
	// The calls of each message tied at both ends, once both are known.
	b.OnTied = func(link int32, send, recv mpi.TiedCall) {
		fmt.Printf("link %d: sent in [%d, %d], received in [%d, %d]\n", link, send.Enter, send.Leave, recv.Enter, recv.Leave)
	}
	// Each resource's calls, once set aside, while still in memory: the
	// time in calls, without reading the spool back.
	b.OnCalls = func(blocks *mpi.Blocks, r int, calls []mpi.Call) {
		var in trace.Time
		for _, c := range calls {
			in += c.Leave - c.Enter
		}
		fmt.Printf("rank %s: %d calls, %d in them\n", blocks.Resources[r].Path, len(calls), in)
	}
	// Two ranks: rank 0 computes, then sends; rank 1 receives.
	b.DefineType(trace.Type{Name: "rank", Kind: trace.KindContainer, Parent: trace.None, Start: trace.None, End: trace.None})
	b.DefineType(trace.Type{Name: "STATE", Kind: trace.KindState, Parent: 0, Start: trace.None, End: trace.None})
	b.DefineValue(trace.Value{Type: 1, Name: "MPI_Send"})
	b.DefineValue(trace.Value{Type: 1, Name: "MPI_Recv"})
	b.DefineValue(trace.Value{Type: 1, Name: "compute"})
	b.CreateContainer(trace.Container{Name: "0", Type: 0, Parent: 0, Start: 0, End: trace.Unset})
	b.CreateContainer(trace.Container{Name: "1", Type: 0, Parent: 0, Start: 0, End: trace.Unset})
	b.State(trace.State{Container: 1, Type: 1, Value: 2, Start: 0, End: 5})
	b.State(trace.State{Container: 1, Type: 1, Value: 0, Start: 5, End: 6})
	b.State(trace.State{Container: 2, Type: 1, Value: 1, Start: 1, End: 7})
	b.Link(trace.Link{From: 1, To: 2, Start: 5, End: 7, Size: 8})
	b.Finish(0, 8)
	blocks, err := b.Blocks()
	if err != nil {
		fmt.Println(err)
		return
	}
	for r, res := range blocks.Resources {
		calls := blocks.Calls[r].Reader()
		for c, ok := calls.Next(); ok; c, ok = calls.Next() {
			fmt.Printf("rank %s: %s [%d, %d]\n", res.Path, blocks.Names[c.Name], c.Enter, c.Leave)
		}
	}
	fmt.Println(blocks.NumCalls, "calls,", blocks.NumMessages, "message")
	// Output:
	// rank 0: 1 calls, 1 in them
	// rank 1: 1 calls, 6 in them
	// link 0: sent in [5, 6], received in [1, 7]
	// message 0 -> 1: call 0 (send) to call 0 (receive)
	// rank 0: MPI_Send [5, 6]
	// rank 1: MPI_Recv [1, 7]
	// 2 calls, 1 message
}
