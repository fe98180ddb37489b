package plots

import (
	"image/color"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
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

// TraceStateColors returns the colour of each state of a trace with these
// definitions, by the model's name of the state and by each value's own
// name, as the model of the trace colours its state
// (micro.StateCategories with the default key: values grouped under one
// name share their group's colour): the trace's own colour, else the
// palette's colour of the state's index in the model (ResolveColors).
// override maps states to colours (colors=) by the model's name or by a
// value's own name; one naming neither is an error. Figures that know
// states by name without a model (the moment display) paint with it, so
// that a state looks the same in every view of a trace.
func TraceStateColors(types []trace.Type, values []trace.Value, override map[string]string) (map[string]color.RGBA, error) {
	stateOf, labels, traceColors := micro.StateCategories(types, values, micro.KeyGroup)
	byLabel := map[string]string{}
	isValue := map[string]bool{}
	isLabel := make(map[string]bool, len(labels))
	for _, l := range labels {
		isLabel[l] = true
	}
	for name, spec := range override {
		if isLabel[name] {
			byLabel[name] = spec
		}
	}
	// The default model leaves out the profiler's spans (micro's
	// Options.ProfilerSpans): their states take the palette's colours
	// after the others', so that every other state has its colour in the
	// model's figures.
	order := workFirst(labels, stateOf, values)
	sorted, sortedColors := make([]string, len(labels)), make([]string, len(labels))
	for k, c := range order {
		sorted[k], sortedColors[k] = labels[c], traceColors[c]
	}
	cm, err := ResolveColors(sorted, sortedColors, byLabel)
	if err != nil {
		return nil, err
	}
	out := make(map[string]color.RGBA, len(labels)+len(values))
	for k, c := range order {
		out[labels[c]] = cm[k]
	}
	for i, v := range values {
		if c := stateOf[i]; c >= 0 {
			if _, ok := out[v.Name]; !ok {
				out[v.Name] = out[labels[c]]
			}
			isValue[v.Name] = true
		}
	}
	for name, spec := range override {
		if isLabel[name] {
			continue
		}
		if !isValue[name] {
			return nil, errs.Argument("colors", "no state named %q in the figure", name)
		}
		c, err := overrideColor(name, spec)
		if err != nil {
			return nil, err
		}
		out[name] = c
	}
	return out, nil
}

// workFirst orders the states (labels, of values by stateOf) as the
// default model has them: the states of work first, in their order, then
// those of which every value is a profiler's span (trace.Role.ProfilerSpan).
func workFirst(labels []string, stateOf []int32, values []trace.Value) []int {
	span := make([]bool, len(labels))
	for c := range span {
		span[c] = true
	}
	seen := make([]bool, len(labels))
	for i, v := range values {
		if c := stateOf[i]; c >= 0 {
			seen[c] = true
			if !v.Role.ProfilerSpan() {
				span[c] = false
			}
		}
	}
	order := make([]int, 0, len(labels))
	for _, last := range []bool{false, true} {
		for c := range labels {
			if (span[c] && seen[c]) == last {
				order = append(order, c)
			}
		}
	}
	return order
}

// MomentsStateColors returns the colour of each state of rows, by name,
// in their moment display (ResultFigure, AggregateFigure): named's
// (TraceStateColors) where it names the state, the palette's in order of
// appearance otherwise (StateColors), and the grey of "other" for the
// states drawn together, as Recolor paints them.
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
