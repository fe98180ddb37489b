package trace

import (
	"reflect"
	"testing"
)

// TestStateColumnRoundTrip checks that a column gives back the states it
// was given, across blocks, with depths a byte holds and depths kept
// aside (negative, 255 and beyond), and that Set replaces one.
func TestStateColumnRoundTrip(t *testing.T) {
	n := 2*stateBlockLen + 7
	want := make([]State, n)
	depths := []int32{0, 1, 254, 255, 256, 1 << 20, -1, 3}
	for i := range want {
		want[i] = State{Container: int32(i % 1000), Type: int32(i % 7), Value: int32(i%11) - 1,
			Start: Time(i) * 1000, End: Time(i)*1000 + Time(i%13), Depth: depths[i%len(depths)], Order: int32(i / 3)}
	}
	c := StatesOf(want...)
	if c.Len() != n {
		t.Fatalf("%d states, want %d", c.Len(), n)
	}
	if got := c.Slice(); !reflect.DeepEqual(got, want) {
		t.Fatal("Slice differs from the states appended")
	}
	for i, s := range c.All() {
		if s != want[i] {
			t.Fatalf("All: state %d is %+v, want %+v", i, s, want[i])
		}
	}
	if got, blocks := c.Bytes(), int64(3*StateBlockBytes); got < blocks || got > blocks+int64(n/2*48)+1024 {
		t.Errorf("Bytes %d, want the 3 blocks (%d) and the deep depths", got, blocks)
	}
	// Set: a deep depth replaced by a shallow one and the reverse.
	for _, i := range []int{4, stateBlockLen, n - 1} {
		s := c.At(i)
		s.Depth, s.End = 1000-s.Depth, s.End+1
		c.Set(i, s)
		if got := c.At(i); got != s {
			t.Errorf("Set(%d): At gives %+v, want %+v", i, got, s)
		}
	}
	if got := c.At(1); got != want[1] {
		t.Errorf("Set changed another state: %+v", got)
	}
	for _, i := range []int{-1, n} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("At(%d) did not panic", i)
				}
			}()
			c.At(i)
		}()
	}
}

// TestTraceStatesAppend checks that a Trace keeps the states a reader
// hands it in their order.
func TestTraceStatesAppend(t *testing.T) {
	tr := New()
	for i := range 5 {
		tr.State(State{Start: Time(i), End: Time(i + 1), Depth: int32(i)})
	}
	if tr.States.Len() != 5 || tr.States.At(4).Depth != 4 || tr.States.At(2).Start != 2 {
		t.Errorf("states %+v", tr.States.Slice())
	}
}
