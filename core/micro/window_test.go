package micro

import (
	"errors"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// onClock is kinetoLike moved onto a clock far from zero, as Kineto's
// Unix-time microseconds are: it spans [t0, t0 + 10 µs].
func onClock(t *testing.T, t0 trace.Time) *trace.Trace {
	t.Helper()
	tr := kinetoTrace(t)
	moved := trace.New("kineto.json")
	for _, ty := range tr.Types {
		moved.DefineType(ty)
	}
	for _, v := range tr.Values {
		moved.DefineValue(v)
	}
	for id := 1; id < len(tr.Containers); id++ {
		c := tr.Containers[id]
		c.Children = nil
		c.Start += t0
		moved.CreateContainer(c)
	}
	for _, s := range tr.States.All() {
		s.Start, s.End = s.Start+t0, s.End+t0
		moved.State(s)
	}
	moved.Finish(tr.Start+t0, tr.End+t0)
	return moved
}

// TestRelativeWindow: a window counting from the trace's start gives the
// model of the window on the trace's clock, built in memory or while
// streaming (with a right or a wrong guess of the extent, or none); an
// instant of the clock is accepted; a window outside the trace is an
// error, not a model of zeros.
func TestRelativeWindow(t *testing.T) {
	const t0 = 1661203462584766976 // ns
	tr := onClock(t, t0)
	us := func(v int64) *trace.Time { x := trace.Time(v * 1000); return &x }
	at := func(v int64) *trace.Time { x := trace.Time(t0 + v*1000); return &x }
	want, err := Build(tr, Options{Slices: 4, Depth: Innermost, Start: at(2), End: at(8)})
	if err != nil {
		t.Fatal(err)
	}
	if want.Origin != t0 || want.Start != *at(2) {
		t.Fatalf("origin %s, start %s", want.Origin, want.Start)
	}
	// The reads a stream of the window on the clock takes (the in-memory
	// read of traces whose states do not arrive nested included): one
	// more for the extent when it is not guessed right.
	_, base, err := Stream(replay(tr), Options{Slices: 4, Depth: Innermost, Start: at(2), End: at(8)}, trace.ReadOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	wrong := func() (trace.Time, trace.Time, bool) { return 0, 10000, true }
	right := func() (trace.Time, trace.Time, bool) { return tr.Start, tr.End, true }
	for _, c := range []struct {
		name       string
		start, end *trace.Time
	}{
		{"from the start", us(2), us(8)},
		{"on the clock", at(2), at(8)},
	} {
		opt := Options{Slices: 4, Depth: Innermost, Start: c.start, End: c.end, Relative: true}
		got, err := Build(tr, opt)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if err := sameModel(want, got); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		for name, probe := range map[string]Probe{"no guess": nil, "right guess": right, "wrong guess": wrong} {
			got, sum, err := Stream(replay(tr), opt, trace.ReadOptions{}, probe)
			if err != nil {
				t.Fatalf("%s, %s: %v", c.name, name, err)
			}
			if err := sameModel(want, got); err != nil || got.Origin != t0 {
				t.Errorf("%s, %s: %v (origin %s)", c.name, name, err, got.Origin)
			}
			// (A wrong guess costs a read, unless the read into memory
			// that the states' order asks for finds the extent anyway.)
			if passes := base.Passes + map[string]int{"no guess": 1, "right guess": 0, "wrong guess": 1}[name]; sum.Passes != passes &&
				!(name == "wrong guess" && sum.Passes == base.Passes) {
				t.Errorf("%s, %s: %d reads, want %d", c.name, name, sum.Passes, passes)
			}
		}
	}
	for _, w := range [][2]*trace.Time{{us(20), us(30)}, {at(-100), at(-50)}, {us(8), us(2)}} {
		opt := Options{Slices: 4, Depth: Innermost, Start: w[0], End: w[1], Relative: true}
		_, err := Build(tr, opt)
		var ae *errs.ArgumentError
		if !errors.As(err, &ae) || ae.Name != "window" || !strings.Contains(err.Error(), "from the trace's start") {
			t.Errorf("window %s-%s: %v, want an error of the window", w[0], w[1], err)
		}
		if _, _, serr := Stream(replay(tr), opt, trace.ReadOptions{}, right); serr == nil || serr.Error() != err.Error() {
			t.Errorf("window %s-%s: streaming %v, in memory %v", w[0], w[1], serr, err)
		}
	}
}
