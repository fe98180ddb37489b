package otf2

import (
	"reflect"
	"testing"
)

// FuzzUnmarshalMessages: any input decodes or fails cleanly, and what
// decodes encodes back to the same messages.
func FuzzUnmarshalMessages(f *testing.F) {
	m := &messages{ends: map[messageKey]*keyEnds{
		{from: 0, to: 1, comm: 0, tag: 7}: {sends: []messageEnd{{time: 10, size: 8, offset: 100}, {time: 12, size: 9, offset: 130}}},
		{from: 1, to: 0, comm: 2, tag: 300}: {recvs: []messageEnd{{time: -1, size: 4, loc: 0, offset: 64}},
			sends: []messageEnd{{time: 5, size: 1, loc: 1, offset: 8}}},
	}}
	good, _ := m.MarshalBinary()
	empty, _ := (*messages)(nil).MarshalBinary()
	f.Add(good)
	f.Add(empty)
	f.Add(good[:20])
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := unmarshalMessages(data)
		if err != nil {
			return
		}
		again, err := m.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		back, err := unmarshalMessages(again)
		if err != nil {
			t.Fatalf("%v: re-encoded as %v", err, again)
		}
		if !reflect.DeepEqual(back.ends, m.ends) || back.Len() != m.Len() {
			t.Fatalf("decoded %v, then %v", m.ends, back.ends)
		}
	})
}
