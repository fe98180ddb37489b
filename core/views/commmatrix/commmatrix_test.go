package commmatrix

import (
	"errors"
	"math"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// machine: node n1 holding processes p1 (threads t1, t2) and p2 (thread
// t3), node n2 holding p3 (thread t4).
func sample() *trace.Trace {
	tr := trace.New("x")
	for _, ty := range []trace.Type{
		{Name: "node", Kind: trace.KindContainer, Parent: trace.None},
		{Name: "process", Kind: trace.KindContainer, Parent: 0},
		{Name: "thread", Kind: trace.KindContainer, Parent: 1},
		{Name: "msg", Kind: trace.KindLink, Parent: trace.None, Start: 2, End: 2},
		{Name: "launch", Kind: trace.KindLink, Parent: trace.None, Start: 2, End: 2},
	} {
		tr.DefineType(ty)
	}
	tr.DefineValue(trace.Value{Type: 3, Name: "v"})
	for _, c := range []trace.Container{
		{Name: "n1", Type: 0, Parent: 0}, {Name: "p1", Type: 1, Parent: 1}, {Name: "t1", Type: 2, Parent: 2},
		{Name: "t2", Type: 2, Parent: 2}, {Name: "p2", Type: 1, Parent: 1}, {Name: "t3", Type: 2, Parent: 5},
		{Name: "n2", Type: 0, Parent: 0}, {Name: "p3", Type: 1, Parent: 7}, {Name: "t4", Type: 2, Parent: 8},
	} {
		tr.CreateContainer(c)
	}
	link := func(typ, from, to int32, size float64) {
		tr.Link(trace.Link{Type: typ, From: from, To: to, Start: 1, End: 2, Size: size})
	}
	link(3, 3, 4, 10)         // t1 -> t2: within p1
	link(3, 3, 6, 20)         // t1 -> t3: p1 -> p2
	link(3, 4, 6, math.NaN()) // t2 -> t3: p1 -> p2, size unknown
	link(3, 6, 9, 5)          // t3 -> t4: p2 -> p3, n1 -> n2
	link(4, 3, 9, math.NaN()) // a launch
	tr.Finish(0, 3)
	return tr
}

func TestLevels(t *testing.T) {
	tr := sample()
	r, err := Compute(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Row{
		{"launch", "n1/p1", "n2/p3", 1, 0, 0, math.NaN(), math.NaN()},
		{"msg", "n1/p1", "n1/p1", 1, 10, 1, 10, 10},
		{"msg", "n1/p1", "n1/p2", 2, 20, 1, 20, 20},
		{"msg", "n1/p2", "n2/p3", 1, 5, 1, 5, 5},
	}
	check(t, r.Rows, want)

	r, err = Compute(tr, Options{Level: "node", LinkTypes: []string{"msg"}})
	if err != nil {
		t.Fatal(err)
	}
	check(t, r.Rows, []Row{{"msg", "n1", "n1", 3, 30, 2, 10, 20}, {"msg", "n1", "n2", 1, 5, 1, 5, 5}})

	r, err = Compute(tr, Options{Level: "container", LinkTypes: []string{"msg"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Rows) != 4 || r.Rows[0].Source != "n1/p1/t1" || r.Rows[0].Destination != "n1/p1/t2" {
		t.Errorf("by container: %+v", r.Rows)
	}

	for _, opt := range []Options{{Level: "rack"}, {LinkTypes: []string{"MPI message"}}} {
		var ae *errs.ArgumentError
		if _, err := Compute(tr, opt); !errors.As(err, &ae) {
			t.Errorf("%+v: error %v, want an argument error", opt, err)
		}
	}
}

func check(t *testing.T, got, want []Row) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("rows %+v, want %+v", got, want)
	}
	for i := range got {
		g, w := got[i], want[i]
		same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
		if g.Type != w.Type || g.Source != w.Source || g.Destination != w.Destination || g.Count != w.Count ||
			g.Bytes != w.Bytes || g.Sized != w.Sized || !same(g.Min, w.Min) || !same(g.Max, w.Max) {
			t.Errorf("row %d: %+v, want %+v", i, g, w)
		}
	}
}
