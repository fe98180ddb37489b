package plots

import (
	"fmt"
	"image/color"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/hier"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
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
