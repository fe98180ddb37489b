package pbwalk_test

import (
	"fmt"

	"github.com/macroscope-hpc/macroscope/core/readers/pbwalk"
	"google.golang.org/protobuf/encoding/protowire"
)

// A reader walks a message's fields, reads the ones it models and walks
// into nested messages at their offset, so that an error deep inside the
// input names its byte.
func Example() {
	// message Event { int64 ts = 1; Track track = 2; }
	// message Track { string name = 1; }
	track := protowire.AppendTag(nil, 1, protowire.BytesType)
	track = protowire.AppendString(track, "main")
	event := protowire.AppendTag(nil, 1, protowire.VarintType)
	event = protowire.AppendVarint(event, 1500)
	event = protowire.AppendTag(event, 2, protowire.BytesType)
	event = protowire.AppendBytes(event, track)
	event = protowire.AppendTag(event, 99, protowire.Fixed32Type) // unknown: skipped
	event = protowire.AppendFixed32(event, 7)

	err := pbwalk.Each(event, 0, func(f pbwalk.Field) error {
		switch {
		case f.Num == 1 && f.IsVarint():
			fmt.Println("ts", f.Int64())
		case f.Num == 2 && f.IsBytes():
			return pbwalk.Each(f.B, f.Off, func(g pbwalk.Field) error {
				if g.Num == 1 && g.IsBytes() {
					fmt.Printf("track %q at byte %d\n", g.String(), g.Off)
				}
				return nil
			})
		}
		return nil
	})
	fmt.Println("error:", err)

	// The same event cut short: its track announces more than is left.
	err = pbwalk.Each(event[:7], 0, func(pbwalk.Field) error { return nil })
	c := err.(*pbwalk.Corrupt)
	fmt.Printf("byte %d: %v\n", c.Off, c)
	// Output:
	// ts 1500
	// track "main" at byte 7
	// error: <nil>
	// byte 3: malformed field 2: it announces 6 bytes, past the end of its message (2 bytes left): the file is cut or corrupt
}
