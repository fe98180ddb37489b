package kaleido_test

import (
	"bytes"
	"errors"
	"image/color"
	"image/png"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/kaleido"
	"github.com/macroscope-hpc/macroscope/plots"
)

// colouredTrace holds one thread running "main" (coloured red by the
// trace), which calls "work" twice (no colour) and "io" once (blue).
func colouredTrace() *trace.Trace {
	t := trace.New("coloured")
	t.DefineType(trace.Type{Name: "Thread", Kind: trace.KindContainer, Parent: trace.None})
	t.DefineType(trace.Type{Name: "Function", Kind: trace.KindState, Parent: 0})
	t.DefineValue(trace.Value{Type: 1, Name: "main", Color: "1 0 0"})
	t.DefineValue(trace.Value{Type: 1, Name: "work"})
	t.DefineValue(trace.Value{Type: 1, Name: "io", Color: "#0000ff"})
	t.CreateContainer(trace.Container{Name: "t0", Type: 0, Parent: 0})
	t.State(trace.State{Container: 1, Type: 1, Value: 0, Start: 0, End: 100})
	t.State(trace.State{Container: 1, Type: 1, Value: 1, Start: 10, End: 20, Depth: 1})
	t.State(trace.State{Container: 1, Type: 1, Value: 1, Start: 30, End: 40, Depth: 1})
	t.State(trace.State{Container: 1, Type: 1, Value: 2, Start: 50, End: 60, Depth: 1})
	t.Finish(0, 100)
	return t
}

func TestProcedureColoursComeFromTheTrace(t *testing.T) {
	tree, err := kaleido.FromTrace(colouredTrace(), kaleido.TraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	names, colours, err := plots.KaleidoscopeLegend(tree, plots.KaleidoscopeByProcedure, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Ranked by number of nodes, ties by name: work (2), io, main, program (1 each).
	want := []string{"work", "io", "main", "program"}
	if len(names) != len(want) {
		t.Fatalf("legend %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("legend %v, want %v", names, want)
		}
	}
	wantColour := []color.RGBA{plots.CategoryColor(0), {0, 0, 255, 255}, {255, 0, 0, 255}, plots.CategoryColor(3)}
	for i, c := range colours {
		if c != wantColour[i] {
			t.Errorf("%s: colour %v, want %v", names[i], c, wantColour[i])
		}
	}
	// An override by name wins over the trace's colour.
	_, colours, err = plots.KaleidoscopeLegend(tree, plots.KaleidoscopeByProcedure, map[string]string{"main": "#00ff00"})
	if err != nil || colours[2] != (color.RGBA{0, 255, 0, 255}) {
		t.Errorf("override: %v, %v", colours, err)
	}
	// The figure paints the root's disc in the root's colour.
	l := layout(t, tree, kaleido.Options{Width: 120})
	b, err := plots.Kaleidoscope(l, plots.KaleidoscopeOptions{View: plots.KaleidoscopeByProcedure, Colors: map[string]string{"program": "#123456"}})
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if got := color.RGBAModel.Convert(img.At(60, 44+60)).(color.RGBA); got != (color.RGBA{0x12, 0x34, 0x56, 255}) {
		t.Errorf("root disc %v, want #123456", got)
	}
}

func TestKaleidoscopeColourErrors(t *testing.T) {
	tree, err := kaleido.FromTrace(colouredTrace(), kaleido.TraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l := layout(t, tree, kaleido.Options{Width: 120})
	for _, c := range []struct {
		view   string
		colors map[string]string
	}{
		{plots.KaleidoscopeByProcedure, map[string]string{"nope": "red"}},
		{plots.KaleidoscopeByPE, map[string]string{"main": "red"}}, // a procedure, not a PE
		{plots.KaleidoscopeByProcedure, map[string]string{"main": "not a colour"}},
		{plots.KaleidoscopeByTime, map[string]string{"main": "red"}},
	} {
		_, err := plots.Kaleidoscope(l, plots.KaleidoscopeOptions{View: c.view, Colors: c.colors})
		var ae *errs.ArgumentError
		if !errors.As(err, &ae) || ae.Name != "colors" {
			t.Errorf("%s %v: error %v, want an argument error on colors", c.view, c.colors, err)
		}
	}
}
