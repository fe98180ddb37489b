package plots

import (
	"fmt"
	"image/color"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/image/colornames"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// ColorMap gives each category of a figure (a state, by its index in
// the model's or the figure's list of names) its colour: the override the
// user asked for by name first (colors=), then the colour the trace
// defines (Pajé's PajeDefineEntityValue Color, Paraver's .pcf), then the
// palette's colour of its index, so that a state keeps its colour across
// the figures of a model.
type ColorMap []color.RGBA

// ResolveColors resolves the colours of names: traceColors (parallel to
// names, "" or nil for none) are the trace's, override maps names to
// colours written as ParseColor reads them. An override naming no state
// is an error (a typo would otherwise go unnoticed).
func ResolveColors(names, traceColors []string, override map[string]string) (ColorMap, error) {
	out := make(ColorMap, len(names))
	index := make(map[string]int, len(names))
	for i, n := range names {
		index[n] = i
	}
	var taken [][3]float64 // OKLab of the colours the palette must not repeat
	near := func(c color.RGBA) bool { return nearAny(OKLab(c), taken) }
	given := make([]bool, len(names))
	// The user's colours first: a state the user paints red makes the
	// palette skip its own red for the others, as the trace's colours do
	// (a figure with two reds says nothing about either). In name order,
	// so that of two unknown names the error names the same one each run.
	for _, name := range slices.Sorted(maps.Keys(override)) {
		spec := override[name]
		i, ok := index[name]
		if !ok {
			return nil, errs.Argument("colors", "no state named %q in the figure", name)
		}
		c, err := overrideColor(name, spec)
		if err != nil {
			return nil, err
		}
		out[i], given[i] = c, true
		taken = append(taken, OKLab(c))
	}
	// Then the trace's colours, each once (DistinctTraceColors).
	traceColors = DistinctTraceColors(traceColors)
	for i := range names {
		if given[i] || i >= len(traceColors) || traceColors[i] == "" {
			continue
		}
		if c, err := ParseColor(traceColors[i]); err == nil {
			out[i], given[i] = c, true
			taken = append(taken, OKLab(c))
		}
	}
	// Then the palette: the colour of the state's index (the palette's
	// colours are apart from each other), unless it looks like one of the
	// colours given; then the next palette colour past the model's states
	// that does not (past the palette's size, colours repeat anyway).
	spare := len(names)
	for i := range names {
		if given[i] {
			continue
		}
		out[i] = CategoryColor(i)
		if len(taken) == 0 || !near(out[i]) || len(names) >= paletteSize {
			continue
		}
		for ; spare < paletteSize; spare++ {
			if c := CategoryColor(spare); !near(c) {
				out[i] = c
				taken = append(taken, OKLab(c)) // taken: later states avoid it too
				spare++
				break
			}
		}
	}
	return out, nil
}

// overrideColor reads the colour colors= gives state name.
func overrideColor(name, spec string) (color.RGBA, error) {
	c, err := ParseColor(spec)
	if err != nil {
		return color.RGBA{}, errs.Argument("colors", "state %q: %v", name, err)
	}
	return c, nil
}

// nearDuplicate is the OKLab distance under which two colours of a
// figure count as the same: twice OKLab's just-noticeable difference
// (about 0.02), and about half the distance between the palette's two
// closest colours among its first 100 (0.071), so that the palette's own
// colours never count as duplicates of each other.
const nearDuplicate = 0.04

// nearAny reports whether the OKLab colour l is a near duplicate of one
// of set.
func nearAny(l [3]float64, set [][3]float64) bool {
	for _, u := range set {
		if okDistance(l, u) < nearDuplicate {
			return true
		}
	}
	return false
}

// DistinctTraceColors returns traceColors without the colours that are
// near duplicates of an earlier one (made ""), and without unreadable
// ones. Traces repeat colours (SimGrid draws PMPI_Init, PMPI_Reduce and
// PMPI_Finalize all "0 1 0"): the state defined first keeps the colour,
// the others take palette colours (ResolveColors), or a figure could not
// tell those states apart. Figures that list their states in another
// order (the kaleidoscope, by frequency) call it first on the names in
// their source's order, so that one state keeps the trace's colour
// whatever the figure's order.
func DistinctTraceColors(traceColors []string) []string {
	out := make([]string, len(traceColors))
	var kept [][3]float64
	for i, spec := range traceColors {
		c, err := ParseColor(spec)
		if spec == "" || err != nil {
			continue
		}
		if l := OKLab(c); !nearAny(l, kept) {
			out[i] = spec
			kept = append(kept, l)
		}
	}
	return out
}

// Of returns the colour of category i; a nil ColorMap is the palette.
func (s ColorMap) Of(i int) color.RGBA {
	if i >= 0 && i < len(s) {
		return s[i]
	}
	return CategoryColor(i)
}

// tab10 is matplotlib's default colour cycle, so that "tab:blue" and "C0"
// mean what they mean there.
var tab10 = []struct {
	name string
	c    color.RGBA
}{
	{"blue", color.RGBA{31, 119, 180, 255}}, {"orange", color.RGBA{255, 127, 14, 255}},
	{"green", color.RGBA{44, 160, 44, 255}}, {"red", color.RGBA{214, 39, 40, 255}},
	{"purple", color.RGBA{148, 103, 189, 255}}, {"brown", color.RGBA{140, 86, 75, 255}},
	{"pink", color.RGBA{227, 119, 194, 255}}, {"gray", color.RGBA{127, 127, 127, 255}},
	{"olive", color.RGBA{188, 189, 34, 255}}, {"cyan", color.RGBA{23, 190, 207, 255}},
}

// ParseColor reads a colour as users and traces write them: "#rrggbb",
// "#rgb" (and "#rrggbbaa", alpha ignored), a CSS/SVG colour name ("red",
// "steelblue"), matplotlib's "tab:blue" and "C0".."C9", or three numbers
// "r g b" (or "r,g,b") in [0, 1] as Pajé writes them, or in [0, 255] when
// one exceeds 1.
func ParseColor(s string) (color.RGBA, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if strings.HasPrefix(t, "#") {
		h := t[1:]
		if len(h) == 3 {
			h = string([]byte{h[0], h[0], h[1], h[1], h[2], h[2]})
		}
		if len(h) == 8 {
			h = h[:6]
		}
		if v, err := strconv.ParseUint(h, 16, 32); err == nil && len(h) == 6 {
			return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 255}, nil
		}
		return color.RGBA{}, fmt.Errorf("%q is not a #rrggbb colour", s)
	}
	if name, ok := strings.CutPrefix(t, "tab:"); ok {
		for _, c := range tab10 {
			if c.name == name || (name == "grey" && c.name == "gray") {
				return c.c, nil
			}
		}
	}
	if len(t) == 2 && t[0] == 'c' && t[1] >= '0' && t[1] <= '9' {
		return tab10[t[1]-'0'].c, nil
	}
	if c, ok := colornames.Map[strings.ReplaceAll(t, " ", "")]; ok {
		return c, nil
	}
	fields := strings.FieldsFunc(t, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' })
	if len(fields) == 3 {
		var v [3]float64
		scale := 255.0
		for k, f := range fields {
			x, err := strconv.ParseFloat(f, 64)
			if err != nil || x < 0 || math.IsNaN(x) {
				return color.RGBA{}, fmt.Errorf("%q is not a colour", s)
			}
			v[k] = x
		}
		if v[0] > 1 || v[1] > 1 || v[2] > 1 {
			scale = 1
		}
		var out [3]uint8
		for k := range v {
			x := math.Round(v[k] * scale)
			if x > 255 {
				return color.RGBA{}, fmt.Errorf("%q: component %g is out of range", s, v[k])
			}
			out[k] = uint8(x)
		}
		return color.RGBA{out[0], out[1], out[2], 255}, nil
	}
	return color.RGBA{}, fmt.Errorf("%q is not a colour (#rrggbb, a colour name, or \"r g b\")", s)
}
