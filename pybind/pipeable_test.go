package pybind

import (
	"testing"

	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/critpath"
	"github.com/macroscope-hpc/macroscope/core/views/pop"
)

// The analyses read through a trace.Pipe must lose nothing behind it; a
// sink with an optional interface (the trace keeps its records' args, the
// model's accumulator defers) is read directly.
func TestPipeable(t *testing.T) {
	acc, err := micro.NewAccumulator(micro.Options{Slices: 4}, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		sink trace.Sink
		want bool
	}{
		{"critical path", critpath.New(critpath.Options{}), true},
		{"POP", pop.New(pop.Options{}), true},
		{"trace", trace.New(), false},
		{"model", acc, false},
	} {
		if got := pipeable(c.sink); got != c.want {
			t.Errorf("%s: pipeable %v, want %v", c.name, got, c.want)
		}
	}
}
