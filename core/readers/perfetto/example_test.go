package perfetto_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/macroscope-hpc/macroscope/core/readers/perfetto"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"google.golang.org/protobuf/encoding/protowire"
)

// message encodes fields given as (number, value) pairs: uint64 values
// as varints, strings and []byte (nested messages) as length-delimited.
func message(fields ...any) []byte {
	var b []byte
	for i := 0; i < len(fields); i += 2 {
		num := protowire.Number(fields[i].(int))
		switch v := fields[i+1].(type) {
		case int:
			b = protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), uint64(v))
		case string:
			b = protowire.AppendString(protowire.AppendTag(b, num, protowire.BytesType), v)
		case []byte:
			b = protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), v)
		}
	}
	return b
}

func ExampleRead() {
	// A thread track (TracePacket.track_descriptor, 60) and two nested
	// slices on it (TracePacket.track_event, 11; timestamp, 8).
	thread := message(1, 7, 2, 8, 5, "worker")                                              // ThreadDescriptor: pid, tid, name
	event := func(typ int, name string) []byte { return message(9, typ, 11, 42, 23, name) } // type, track_uuid, name
	packets := [][]byte{
		message(60, message(1, 42, 4, thread)),
		message(8, 1000, 11, event(1, "load")),
		message(8, 1500, 11, event(1, "parse")),
		message(8, 2500, 11, event(2, "")),
		message(8, 4000, 11, event(2, "")),
	}
	var file []byte
	for _, p := range packets {
		file = append(file, message(1, p)...) // Trace.packet
	}
	dir, _ := os.MkdirTemp("", "perfetto")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "example.pftrace")
	if err := os.WriteFile(path, file, 0o644); err != nil {
		panic(err)
	}

	tr := trace.New(path)
	if err := perfetto.Read(path, tr, trace.ReadOptions{}); err != nil {
		panic(err)
	}
	for _, s := range tr.States.All() {
		fmt.Println(tr.ContainerPath(s.Container, " > "), tr.ValueName(s.Value), s.Start, s.End, "depth", s.Depth)
	}
	// Output:
	// Process 7 > worker 8 parse 0.000001500 0.000002500 depth 1
	// Process 7 > worker 8 load 0.000001000 0.000004000 depth 0
}
