package plots

import (
	"fmt"
	"image/color"
	"slices"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/hier"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/moments"
)

// The explorers' colours are the figures': the trace's own colour, the
// palette's for the others (apart from the trace's), the override, and
// "other"'s grey for the states the figure draws together.
func TestModelStateColors(t *testing.T) {
	b := hier.NewBuilder("root")
	const leaves, states = 30, 30
	for i := range leaves {
		b.Add(0, fmt.Sprintf("r%d", i))
	}
	tree, _ := b.Build()
	names := make([]string, states)
	for i := range names {
		names[i] = fmt.Sprintf("s%02d", i)
	}
	values := make([]float64, leaves*states)
	for l := range leaves {
		values[l*states+l] = float64(l+1) / leaves // state l on leaf l: s29 the largest
	}
	traced := make([]string, states)
	traced[29] = "0.6 0.8 0.6" // Pajé's r g b
	m := &micro.Model{Tree: tree, Container: make([]int32, tree.Len()), States: names, Slices: 1,
		Start: 0, End: trace.Second, Values: values, Colors: traced}
	got, grouped, err := ModelStateColors(m, map[string]string{"s00": "red"})
	if err != nil {
		t.Fatal(err)
	}
	if got[29] != (color.RGBA{153, 204, 153, 255}) {
		t.Errorf("s29: %v, want the trace's", got[29])
	}
	if got[0] != (color.RGBA{255, 0, 0, 255}) {
		t.Errorf("s00: %v, want the override (kept apart from \"other\")", got[0])
	}
	// s11..s28 are the next 18 largest: their palette colours; s01..s10 are
	// "other".
	for i := 1; i < 29; i++ {
		want := CategoryColor(i)
		if i <= 10 {
			want = OtherColor
		}
		if got[i] != want || grouped[i] != (i <= 10) {
			t.Errorf("s%02d: %v grouped %v, want %v", i, got[i], grouped[i], want)
		}
	}
	if _, _, err := ModelStateColors(m, map[string]string{"nope": "red"}); err == nil {
		t.Error("an override naming no state is not an error")
	}
}

func ExampleHex() {
	fmt.Println(Hex(color.RGBA{153, 204, 153, 255}), Hex(OtherColor))
	// Output: #99cc99 #969696
}

// One set of colours: the moment display of a trace paints each state in
// the colour the model's figures give it, not in its own order of
// appearance. The trace below defines its values in an order other than
// the one its states appear in, numbers the instances of one of them (one
// state when grouped) and colours one.
func TestMomentsColorsAreTheModels(t *testing.T) {
	tr := trace.New()
	tr.DefineType(trace.Type{Name: "rank", Kind: trace.KindContainer, Parent: trace.None})
	tr.DefineType(trace.Type{Name: "call", Kind: trace.KindState, Parent: 0})
	for _, v := range []trace.Value{
		{Type: 1, Name: "MPI_Recv"}, {Type: 1, Name: "step#1"}, {Type: 1, Name: "compute"},
		{Type: 1, Name: "step#2"}, {Type: 1, Name: "MPI_Send", Color: "0 0 1"},
	} {
		tr.DefineValue(v)
	}
	for r := range 2 {
		tr.CreateContainer(trace.Container{Name: fmt.Sprintf("r%d", r), Type: 0, Parent: 0, End: 10 * trace.Second})
	}
	// In order of appearance: compute, MPI_Send, step#2, MPI_Recv, step#1.
	for i, v := range []int32{2, 4, 3, 0, 1} {
		for c := int32(1); c <= 2; c++ {
			start := trace.Time(i) * 2 * trace.Second
			tr.State(trace.State{Container: c, Type: 1, Value: v, Start: start, End: start + trace.Second, Order: int32(i)})
		}
	}
	tr.Finish(0, 10*trace.Second)

	m, err := micro.Build(tr, micro.Options{Slices: 5})
	if err != nil {
		t.Fatal(err)
	}
	modelColors, _, err := ModelStateColors(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := moments.Compute(tr, moments.Options{ByState: true})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := r.Rows(moments.ByState)
	if err != nil {
		t.Fatal(err)
	}
	named, err := TraceStateColors(r.Types, r.Values, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := MomentsStateColors(rows, named)
	label := map[string]string{"step#1": "step", "step#2": "step"}
	for _, v := range tr.Values {
		want := label[v.Name]
		if want == "" {
			want = v.Name
		}
		i := slices.Index(m.States, want)
		if i < 0 {
			t.Fatalf("the model has no state %q: %q", want, m.States)
		}
		// The moment display names states by group, as the model does.
		if got[want] != modelColors[i] || named[v.Name] != modelColors[i] {
			t.Errorf("%s: the moment display paints %v (by its own name %v), the model's figures %v", v.Name, got[want], named[v.Name], modelColors[i])
		}
	}
	if got["MPI_Send"] != (color.RGBA{0, 0, 255, 255}) {
		t.Errorf("MPI_Send: %v, want the trace's blue", got["MPI_Send"])
	}
	// Overrides name the model's state or a value as written.
	over, err := TraceStateColors(r.Types, r.Values, map[string]string{"step": "black", "compute": "white"})
	if err != nil {
		t.Fatal(err)
	}
	if over["step#1"] != (color.RGBA{0, 0, 0, 255}) || over["step#2"] != over["step#1"] || over["compute"] != (color.RGBA{255, 255, 255, 255}) {
		t.Errorf("overrides: step#1 %v, step#2 %v, compute %v", over["step#1"], over["step#2"], over["compute"])
	}
	if _, err := TraceStateColors(r.Types, r.Values, map[string]string{"nope": "red"}); err == nil {
		t.Error("an override naming no state is not an error")
	}
}
