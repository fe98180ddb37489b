package plots

import (
	"image/color"

	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/views/moments"
)

// One set of colours: the explorers paint each state in the colour the
// static figures give it, computed here once, so that a state looks the
// same in every view of a notebook.

// ModelStateColors returns the colour of each state of m (parallel to
// m.States) in the model's figures, the overview and the treemap: the
// user's override (by name), the trace's own colour (Pajé's entity
// values, Paraver's .pcf), the palette's (ResolveColors), and the grey of
// "other" for the states a figure of the model draws together
// (ModelGrouping), which grouped reports.
func ModelStateColors(m *micro.Model, override map[string]string) (colors []color.RGBA, grouped []bool, err error) {
	cm, err := ResolveColors(m.States, m.Colors, override)
	if err != nil {
		return nil, nil, err
	}
	keep := make(map[string]bool, len(override))
	for name := range override {
		keep[name] = true
	}
	g := ModelGrouping(m, cm, keep)
	colors, grouped = make([]color.RGBA, len(m.States)), make([]bool, len(m.States))
	for i := range colors {
		colors[i], grouped[i] = g.Colors.Of(g.Of[i]), g.Of[i] != i
	}
	return colors, grouped, nil
}

// MomentsStateColors returns the colour of each state of rows, by name,
// in their moment display (ResultFigure, AggregateFigure): the palette's
// in order of appearance (StateColors), the grey of "other" for the
// states drawn together, and named's (the trace's colours and the user's
// overrides, NamedColors) for the others, as Recolor paints them.
func MomentsStateColors(rows []moments.Row, named map[string]color.RGBA) map[string]color.RGBA {
	colors, legend := StateColors(rows)
	for _, e := range legend {
		if c, ok := named[e.Label]; ok {
			colors[e.Label] = c
		}
	}
	return colors
}

// Hex writes a colour as "#rrggbb".
func Hex(c color.RGBA) string {
	const digits = "0123456789abcdef"
	b := []byte{'#', 0, 0, 0, 0, 0, 0}
	for i, v := range []uint8{c.R, c.G, c.B} {
		b[1+2*i], b[2+2*i] = digits[v>>4], digits[v&15]
	}
	return string(b)
}
