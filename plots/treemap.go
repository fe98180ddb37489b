package plots

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/hier"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
	"github.com/macroscope-hpc/macroscope/core/views/treemap"
)

// TreemapOptions set the size and look of the treemap of an aggregation.
type TreemapOptions struct {
	Width, Height vg.Length // figure size in points; 0 for 10 x 7.5 inches
	Format        Format    // PNG (default) or SVG
	Title         string
	Value         treemap.Value // what areas measure: treemap.Leaves (default) or treemap.Activity
	Root          int32         // the hierarchy node at the top (0: everything)
	// Proportions divides every aggregate into strips, one per state, as
	// wide as the state's mean proportion, instead of colouring it by its
	// mode state.
	Proportions bool
	// Colors are the states' colours (ResolveColors); nil for the
	// model's own (the trace's colours, else the palette's).
	Colors ColorMap
	// Keep names the states drawn in their colours however many the
	// model has (see OverviewOptions.Keep).
	Keep map[string]bool
	// Zooms is the number of enlarged views, right of the map, of detailed
	// groups too small to read (each also circled on the map); 0 means 3,
	// a negative number none.
	Zooms int
	// Cancel, once closed, stops Treemap, which returns
	// trace.ErrComputationCanceled and no figure. Nil: never.
	Cancel <-chan struct{}
}

// Sizes of the treemap figure, in points.
const (
	tmMargin     = 4
	tmColumn     = 1.75 * vg.Inch // the right column: legend and zooms
	tmTitle      = 18
	tmSmall      = 14 // a group with an aggregate thinner than this is circled and zoomed
	tmSwatch     = 9
	tmLegendLine = 12
)

var (
	tmFont      = font.From(plot.DefaultFont, 7)
	tmSmallFont = font.From(plot.DefaultFont, 5.5)
	tmTitleFont = font.From(plot.DefaultFont, 11)
	tmBorder    = color.RGBA{70, 70, 70, 255}
)

// Treemap draws the treemap of an aggregation (Lamarche-Perrin et al. 2014, section 5):
// every aggregate of the partition is a rectangle whose area is its
// number of resources (or its activity), squarified (Bruls, Huizing and
// van Wijk 2000) inside the framed rectangles of its ancestors, which
// carry their names in a header when there is room. An aggregate has the
// colour of its mode state with the overview's opacity (30 + 225 x the
// mode's proportion, out of 255), or is divided into strips by state
// (Proportions). Aggregates are named when their name fits. Detailed
// groups too small to read are circled, numbered, and shown enlarged in
// the right column under the legend of states.
func Treemap(m *micro.Model, part *aggregate.Partition, opt TreemapOptions) ([]byte, error) {
	if err := CheckSize(opt.Width, opt.Height); err != nil {
		return nil, err
	}
	f, err := newTreemapFigure(m, part, opt)
	if err != nil {
		return nil, err
	}
	opt = f.opt
	img, err := Render(opt.Width, opt.Height, opt.Format, f.draw)
	if f.canceled || trace.Stopped(opt.Cancel) != nil {
		// The drawing stopped short (Render has no error to return), or
		// the image was encoded after the cancel.
		return nil, trace.ErrComputationCanceled
	}
	return img, err
}

// draw draws the figure: title, map, legend and zooms.
func (f *treemapFigure) draw(c draw.Canvas) {
	opt := f.opt
	if opt.Title != "" {
		sty := draw.TextStyle{Color: color.Black, Font: tmTitleFont, Handler: plot.DefaultTextHandler,
			XAlign: draw.XCenter, YAlign: draw.YCenter}
		c.FillText(sty, vg.Point{X: c.Min.X + (c.Max.X-c.Min.X)/2, Y: c.Max.Y - tmTitle/2 - 1}, opt.Title)
	}
	origin := vg.Point{X: c.Min.X + tmMargin, Y: c.Min.Y + tmMargin}
	small := f.drawMap(c, f.tm, origin, true)
	if f.canceled {
		return
	}
	column := vg.Rectangle{
		Min: vg.Point{X: c.Max.X - tmColumn - tmMargin, Y: c.Min.Y + tmMargin},
		Max: vg.Point{X: c.Max.X - tmMargin, Y: c.Max.Y - f.top},
	}
	y := f.drawLegend(c, column)
	f.drawZooms(c, column, y, small, origin)
}

// newTreemapFigure applies the defaults and lays the map out: its lower
// left corner is at (tmMargin, tmMargin) points from the figure's.
func newTreemapFigure(m *micro.Model, part *aggregate.Partition, opt TreemapOptions) (*treemapFigure, error) {
	if opt.Width == 0 {
		opt.Width = 10 * vg.Inch
	}
	if opt.Height == 0 {
		opt.Height = 7.5 * vg.Inch
	}
	if opt.Format == "" {
		opt.Format = PNG
	}
	if opt.Zooms == 0 {
		opt.Zooms = 3
	}
	if opt.Colors == nil { // the trace's colours, else the palette's
		opt.Colors, _ = ResolveColors(m.States, m.Colors, nil)
	}
	top := vg.Length(tmMargin)
	if opt.Title != "" {
		top += tmTitle
	}
	mainW := opt.Width - tmColumn - 3*tmMargin
	mainH := opt.Height - top - tmMargin
	if !(mainW >= 20 && mainH >= 20) {
		return nil, errs.Argument("size", "the figure (%v x %v points) is too small for a treemap", opt.Width, opt.Height)
	}
	tm, err := treemap.OfPartition(m, part, treemap.Options{
		Value: opt.Value, Root: opt.Root, Width: float64(mainW), Height: float64(mainH), Inset: tmInset(m.Tree),
		Cancel: opt.Cancel,
	})
	if err != nil {
		return nil, err
	}
	return &treemapFigure{m: m, part: part, opt: opt, tm: tm, look: trace.Looker{Cancel: opt.Cancel}, top: top, group: ModelGrouping(m, opt.Colors, opt.Keep)}, nil
}

type treemapFigure struct {
	m    *micro.Model
	part *aggregate.Partition
	opt  TreemapOptions
	tm   *treemap.Map
	top  vg.Length // height above the map: margin and title
	// group says which states are drawn in their colours, which as "other".
	group Grouping
	// visual counts the groups drawn whole because their cells would be
	// under a pixel.
	visual int
	// look counts the cells drawn, between looks at opt.Cancel;
	// canceled: the drawing stopped at it (or a zoom's layout did).
	look     trace.Looker
	canceled bool
}

// stop tells whether the drawing must stop: opt.Cancel is closed, looked
// at the first cell, then every trace.StopEvery cells.
func (f *treemapFigure) stop() bool {
	if f.look.Stopped(1) != nil {
		f.canceled = true
	}
	return f.canceled
}

// tmInset leaves room around the children of a group: a thin padding,
// thinner at each level, and a header for the group's name when the group
// is big enough to show it. A node with a single child (a host running
// one process) leaves none: the child stands for both, named after both.
func tmInset(tree *hier.Tree) func(int32, int, treemap.Rect) treemap.Rect {
	return func(node int32, depth int, r treemap.Rect) treemap.Rect {
		if len(tree.Children[node]) == 1 {
			return r
		}
		pad := max(2.5-0.5*float64(depth-1), 1)
		header := 0.0
		if r.W >= 36 && r.H >= 4*float64(tmFont.Size) {
			header = float64(tmFont.Size) + 2
		}
		return treemap.Pad(r, pad, header)
	}
}

func rectAt(origin vg.Point, r treemap.Rect) vg.Rectangle {
	return vg.Rectangle{
		Min: vg.Point{X: origin.X + vg.Length(r.X), Y: origin.Y + vg.Length(r.Y)},
		Max: vg.Point{X: origin.X + vg.Length(r.X+r.W), Y: origin.Y + vg.Length(r.Y+r.H)},
	}
}

// groupShade is the fill of a group frame at a depth below the root of the
// map: darker for outer levels, so that nesting reads at a glance.
func groupShade(depth int) color.Gray {
	return color.Gray{Y: uint8(max(200, 236-12*(3-min(depth, 3))))}
}

// modeColor is the overview's colour of an aggregate: its mode state's,
// with an opacity from the mode's proportion, composed over white.
func modeColor(col color.RGBA, prop float64) color.RGBA {
	a := (30 + 225*math.Min(math.Max(prop, 0), 1)) / 255
	mix := func(c uint8) uint8 { return uint8(math.Round(float64(c)*a + 255*(1-a))) }
	return color.RGBA{mix(col.R), mix(col.G), mix(col.B), 255}
}

// textColor picks black or white, whichever reads better on c.
func textColor(c color.RGBA) color.Color {
	if 0.299*float64(c.R)+0.587*float64(c.G)+0.114*float64(c.B) < 140 {
		return color.White
	}
	return color.Black
}

// fitText returns s, or its longest prefix ending in "…" that is at most
// width wide, or "" if not even one character fits.
func fitText(sty draw.TextStyle, s string, width vg.Length) string {
	if sty.Width(s) <= width {
		return s
	}
	r := []rune(s)
	for n := len(r) - 1; n >= 1; n-- {
		t := string(r[:n]) + "…"
		if sty.Width(t) <= width {
			return t
		}
	}
	return ""
}

// fitDistinct fits names to width as fitText does, but names that would
// then read the same (state names often differ only past their start: GPU
// kernels "void cutlass::Kernel<cutlass_80_…_128x128_32x3_nn_align4>" and
// "…_64x64_32x6_nn_align4>") are shown by what tells them apart: a short
// start, "…", then the part where they differ, so that a legend does not
// print several states under one name.
func fitDistinct(sty draw.TextStyle, names []string, width vg.Length) []string {
	out := make([]string, len(names))
	groups := map[string][]int{}
	for i, n := range names {
		out[i] = fitText(sty, n, width)
		groups[out[i]] = append(groups[out[i]], i)
	}
	for _, g := range groups {
		if len(g) < 2 {
			continue
		}
		// The runes the group's names share at their start and end.
		first := []rune(names[g[0]])
		cp, cs := len(first), len(first)
		for _, i := range g[1:] {
			r := []rune(names[i])
			cp = min(cp, len(r))
			for k := 0; k < cp; k++ {
				if r[k] != first[k] {
					cp = k
					break
				}
			}
			cs = min(cs, len(r))
			for k := 0; k < cs; k++ {
				if r[len(r)-1-k] != first[len(first)-1-k] {
					cs = k
					break
				}
			}
		}
		for _, i := range g {
			r := []rune(names[i])
			lo, hi := cp, max(cp, len(r)-cs)
			diff := string(r[lo:hi])
			if cs > 0 {
				diff += "…"
			}
			out[i] = ""
			for head := min(cp, 16); head >= 4 && out[i] == ""; head-- {
				if t := string(r[:head]) + "…" + diff; sty.Width(t) <= width {
					out[i] = t
				}
			}
			if out[i] == "" {
				out[i] = fitText(sty, string(r[:min(cp, 4)])+"…"+string(r[lo:]), width)
			}
		}
	}
	return out
}

// mapPlan tells how the cells of a map are drawn: a group whose cells
// would be under a pixel on average is drawn whole (its cells are then
// inside), so that the deepest groups that can be seen still are.
type mapPlan struct {
	end    []int  // one past the last descendant of each cell (cells are in preorder)
	whole  []bool // drawn whole, in its own colour
	inside []bool // drawn as part of a group drawn whole
}

func planMap(tm *treemap.Map) mapPlan {
	n := len(tm.Cells)
	pl := mapPlan{end: make([]int, n), whole: make([]bool, n), inside: make([]bool, n)}
	kids := make([]int, n)
	for i := n - 1; i >= 0; i-- {
		pl.end[i] = max(pl.end[i], i+1)
		if p := tm.Cells[i].Parent; p >= 0 {
			pl.end[p] = max(pl.end[p], pl.end[i])
			kids[p]++
		}
	}
	pixel := 72.0 / dpi
	for i := 0; i < n; i++ {
		cell := tm.Cells[i]
		if cell.Group && cell.Parent >= 0 && cell.Area() < float64(kids[i])*pixel*pixel {
			pl.whole[i] = true
			for k := i + 1; k < pl.end[i]; k++ {
				pl.inside[k] = true
			}
			i = pl.end[i] - 1
		}
	}
	return pl
}

// zoomCandidates returns the detailed groups too small to read: groups
// whose children are all plain aggregates, one of them thinner than
// tmSmall. When there are more than twice as many as zooms (at least 6),
// detail is everywhere and none is singled out.
func zoomCandidates(tm *treemap.Map, pl mapPlan, zooms int) []int {
	thinnest := make([]float64, len(tm.Cells))
	plain := make([]bool, len(tm.Cells))
	for i := range tm.Cells {
		thinnest[i], plain[i] = math.Inf(1), true
	}
	for _, cell := range tm.Cells {
		if p := cell.Parent; p >= 0 {
			thinnest[p] = min(thinnest[p], cell.W, cell.H)
			plain[p] = plain[p] && !cell.Group
		}
	}
	var small []int
	for i, cell := range tm.Cells {
		if cell.Group && cell.Parent >= 0 && !pl.inside[i] && plain[i] && thinnest[i] < tmSmall {
			small = append(small, i)
		}
	}
	if len(small) > max(2*zooms, 6) {
		return nil
	}
	return small
}

// drawMap draws the cells of tm with origin at the lower-left corner of
// its bounds. With circle, the zoom candidates are circled, the first
// f.opt.Zooms numbered, and returned.
func (f *treemapFigure) drawMap(c draw.Canvas, tm *treemap.Map, origin vg.Point, circle bool) []int {
	tree := f.m.Tree
	rootDepth := int(tree.Depth[tm.Root])
	labelSty := draw.TextStyle{Font: tmFont, Handler: plot.DefaultTextHandler, XAlign: draw.XCenter, YAlign: draw.YCenter}
	headerSty := draw.TextStyle{Color: color.Black, Font: tmFont, Handler: plot.DefaultTextHandler, YAlign: draw.YCenter}
	frame := draw.LineStyle{Color: tmBorder, Width: 0.6}
	edge := draw.LineStyle{Color: color.White, Width: 0.4}
	pixel := vg.Length(72.0 / dpi)
	pl := planMap(tm)
	for i := 0; i < len(tm.Cells); i++ {
		if f.stop() {
			return nil
		}
		cell := tm.Cells[i]
		r := rectAt(origin, cell.Rect)
		w, h := r.Max.X-r.Min.X, r.Max.Y-r.Min.Y
		depth := int(tree.Depth[cell.Node]) - rootDepth
		if pl.whole[i] {
			// Its cells would be under a pixel: drawn whole, in its
			// own colour, marked with a diagonal when big enough to see.
			f.drawBlock(c, tm, i, r, labelSty)
			if w >= 6*pixel && h >= 6*pixel {
				c.StrokeLine2(draw.LineStyle{Color: tmBorder, Width: 0.5}, r.Min.X, r.Min.Y, r.Max.X, r.Max.Y)
			}
			f.visual++
			i = pl.end[i] - 1
			continue
		}
		if cell.Group {
			if depth == 0 || len(tree.Children[cell.Node]) == 1 {
				continue // its children fill it
			}
			c.SetColor(groupShade(depth))
			c.Fill(r.Path())
			if w >= 2*pixel && h >= 2*pixel {
				c.StrokeLines(frame, rectLines(r)...)
			}
			if w >= 36 && h >= 4*tmFont.Size {
				name := fitText(headerSty, tree.Names[cell.Node], w-6)
				c.FillText(headerSty, vg.Point{X: r.Min.X + 3, Y: r.Max.Y - 1 - tmFont.Size/2 - 1}, name)
			}
			continue
		}
		f.drawBlock(c, tm, i, r, labelSty)
		if w >= 4*pixel && h >= 4*pixel {
			c.StrokeLines(edge, rectLines(r)...)
		}
	}
	if !circle {
		return nil
	}
	small := zoomCandidates(tm, pl, f.opt.Zooms)
	mark := draw.LineStyle{Color: color.Black, Width: 1, Dashes: []vg.Length{3, 2}}
	numSty := draw.TextStyle{Color: color.Black, Font: tmFont, Handler: plot.DefaultTextHandler, XAlign: draw.XRight, YAlign: draw.YBottom}
	for k, i := range small {
		r := rectAt(origin, tm.Cells[i].Rect)
		ctr, rad := circleAround(r)
		var p vg.Path
		p.Move(vg.Point{X: ctr.X + rad, Y: ctr.Y})
		p.Arc(ctr, rad, 0, 2*math.Pi)
		p.Close()
		c.SetLineStyle(mark)
		c.Stroke(p)
		if k < f.opt.Zooms {
			label := fmt.Sprint(k + 1)
			at := vg.Point{X: max(ctr.X-rad*0.7, c.Min.X+numSty.Width(label)+2), Y: min(ctr.Y+rad*0.7, c.Max.Y-tmFont.Size-1)}
			box := vg.Rectangle{Min: vg.Point{X: at.X - numSty.Width(label) - 2, Y: at.Y}, Max: vg.Point{X: at.X + 1, Y: at.Y + tmFont.Size + 1}}
			c.SetColor(color.White)
			c.Fill(box.Path())
			c.FillText(numSty, vg.Point{X: at.X, Y: at.Y + 0.5}, label)
		}
	}
	return small
}

// drawBlock fills cell i at r in its mode colour (or with a strip per
// state) and names it when the name fits.
func (f *treemapFigure) drawBlock(c draw.Canvas, tm *treemap.Map, i int, r vg.Rectangle, labelSty draw.TextStyle) {
	cell := tm.Cells[i]
	w, h := r.Max.X-r.Min.X, r.Max.Y-r.Min.Y
	c.SetColor(color.White)
	c.Fill(r.Path())
	fill := color.RGBA{255, 255, 255, 255}
	// The states drawn: "other" holds the share of the states it groups.
	means := f.group.Fold(tm.CellMeans(i), make([]float64, len(f.group.Names)))
	mode, share := aggregate.Mode(means)
	if f.opt.Proportions {
		strips, _ := treemap.Split(treemap.Rect{X: float64(r.Min.X), Y: float64(r.Min.Y), W: float64(w), H: float64(h)}, means)
		for x, s := range strips {
			if s.W > 0 && s.H > 0 {
				c.SetColor(f.group.Colors.Of(x))
				c.Fill(rectAt(vg.Point{}, s).Path())
			}
		}
		fill = f.group.Colors.Of(mode)
	} else if share > 0 {
		fill = modeColor(f.group.Colors.Of(mode), share)
		c.SetColor(fill)
		c.Fill(r.Path())
	}
	name := chainName(f.m.Tree, cell.Node)
	if cell.Node == tm.Root {
		name = f.m.Tree.Names[cell.Node]
	}
	for _, fnt := range []font.Font{tmFont, tmSmallFont} {
		labelSty.Font = fnt
		if h < fnt.Size+2 {
			continue
		}
		if s := fitText(labelSty, name, w-3); s != "" && (s == name || len([]rune(s)) >= 4) {
			labelSty.Color = textColor(fill)
			if f.opt.Proportions {
				labelSty.Color = color.Black
			}
			c.FillText(labelSty, vg.Point{X: (r.Min.X + r.Max.X) / 2, Y: (r.Min.Y + r.Max.Y) / 2}, s)
			return
		}
	}
}

// circleAround returns a circle around r, at least 9 points in radius.
func circleAround(r vg.Rectangle) (vg.Point, vg.Length) {
	ctr := vg.Point{X: (r.Min.X + r.Max.X) / 2, Y: (r.Min.Y + r.Max.Y) / 2}
	w, h := r.Max.X-r.Min.X, r.Max.Y-r.Min.Y
	rad := vg.Length(math.Hypot(float64(w), float64(h))/2) + 3
	return ctr, max(rad, 9)
}

// drawLegend draws the states and what areas and colours mean at the top
// of the column; it returns the y below it.
func (f *treemapFigure) drawLegend(c draw.Canvas, col vg.Rectangle) vg.Length {
	sty := draw.TextStyle{Color: color.Black, Font: tmFont, Handler: plot.DefaultTextHandler, YAlign: draw.YCenter}
	y := col.Max.Y - tmLegendLine/2
	line := func(s string) {
		c.FillText(sty, vg.Point{X: col.Min.X, Y: y}, fitText(sty, s, col.Max.X-col.Min.X))
		y -= tmLegendLine
	}
	// The states the map shows (drawn by area), the most visible first;
	// those that do not fit are counted on a "+N more" line.
	shown := map[int]float64{}
	means := make([]float64, len(f.group.Names))
	for i, cell := range f.tm.Cells {
		if !cell.Aggregated || cell.Group {
			continue
		}
		f.group.Fold(f.tm.CellMeans(i), means)
		if f.opt.Proportions {
			for x, v := range means {
				if v > 0 {
					shown[x] += v * cell.W * cell.H
				}
			}
		} else if mode, share := aggregate.Mode(means); share > 0 {
			shown[mode] += cell.W * cell.H
		}
	}
	states := make([]int, 0, len(shown))
	for x := range shown {
		states = append(states, x)
	}
	sort.Slice(states, func(a, b int) bool {
		sa, sb := shown[states[a]], shown[states[b]]
		return sa > sb || (sa == sb && states[a] < states[b])
	})
	fit := max(1, int((y-col.Min.Y)/tmLegendLine)-8) // room for the lines below
	if len(states) > fit {
		fit--
	}
	for k, x := range states {
		if k == fit {
			line(fmt.Sprintf("+%d more", len(states)-fit))
			break
		}
		c.SetColor(f.group.Colors.Of(x))
		c.Fill(vg.Rectangle{Min: vg.Point{X: col.Min.X, Y: y - tmSwatch/2}, Max: vg.Point{X: col.Min.X + tmSwatch, Y: y + tmSwatch/2}}.Path())
		c.FillText(sty, vg.Point{X: col.Min.X + tmSwatch + 4, Y: y}, fitText(sty, f.group.Names[x], col.Max.X-col.Min.X-tmSwatch-4))
		y -= tmLegendLine
	}
	y -= tmLegendLine / 2
	nodes, parts := 0, 0
	for _, cell := range f.tm.Cells {
		if cell.Aggregated {
			nodes++
		}
	}
	root := f.tm.Root
	for _, p := range f.part.Parts {
		if p.Node >= root && p.Node < f.m.Tree.End[root] {
			parts++
		}
	}
	switch f.tm.Value {
	case treemap.Activity:
		line("area: time in states")
	default:
		line("area: resources")
	}
	if f.opt.Proportions {
		line("strips: share of each state")
	} else {
		line("colour: most frequent state,")
		line("  opacity: its share")
	}
	if nodes == parts {
		line(fmt.Sprintf("%d aggregates shown", parts))
	} else { // aggregates of a node over several time ranges
		line(fmt.Sprintf("%d aggregated nodes shown,", nodes))
		line(fmt.Sprintf("  %d aggregates in time", parts))
	}
	if f.visual > 0 {
		line("diagonal: group drawn whole,")
		line("  its aggregates under a pixel")
	}
	if f.tm.Hidden > 0 {
		line(fmt.Sprintf("%d without activity", f.tm.Hidden))
	}
	return y
}

// drawZooms draws, under the legend, enlarged treemaps of the circled
// groups, each joined to its circle by a line.
func (f *treemapFigure) drawZooms(c draw.Canvas, col vg.Rectangle, y vg.Length, small []int, origin vg.Point) {
	tree := f.m.Tree
	titleSty := draw.TextStyle{Color: color.Black, Font: tmFont, Handler: plot.DefaultTextHandler, YAlign: draw.YCenter}
	link := draw.LineStyle{Color: color.Gray{Y: 140}, Width: 0.5, Dashes: []vg.Length{2, 2}}
	side := col.Max.X - col.Min.X
	for k, i := range small {
		if k >= f.opt.Zooms {
			break
		}
		y -= tmLegendLine / 2
		box := min(side, y-col.Min.Y-2.5*tmLegendLine)
		if box < 40 {
			break
		}
		cell := f.tm.Cells[i]
		parts := 0
		for _, p := range f.part.Parts {
			if p.Node >= cell.Node && p.Node < tree.End[cell.Node] {
				parts++
			}
		}
		title := fmt.Sprintf("%d: %s", k+1, tree.Path(cell.Node, "/"))
		c.FillText(titleSty, vg.Point{X: col.Min.X, Y: y}, fitText(titleSty, title, side))
		y -= tmLegendLine
		c.FillText(titleSty, vg.Point{X: col.Min.X, Y: y}, fmt.Sprintf("   %d aggregates", parts))
		y -= tmLegendLine / 2
		zoom, err := treemap.OfPartition(f.m, f.part, treemap.Options{
			Value: f.opt.Value, Root: cell.Node, Width: float64(side), Height: float64(box), Inset: tmInset(f.m.Tree),
			Cancel: f.opt.Cancel,
		})
		if errors.Is(err, trace.ErrComputationCanceled) {
			f.canceled = true
			return
		}
		if err != nil {
			continue
		}
		zo := vg.Point{X: col.Min.X, Y: y - box}
		if f.drawMap(c, zoom, zo, false); f.canceled {
			return
		}
		c.StrokeLines(draw.LineStyle{Color: tmBorder, Width: 0.8}, rectLines(vg.Rectangle{Min: zo, Max: vg.Point{X: zo.X + side, Y: y}})...)
		ctr, rad := circleAround(rectAt(origin, cell.Rect))
		to := vg.Point{X: zo.X, Y: y - box/2}
		d := math.Hypot(float64(to.X-ctr.X), float64(to.Y-ctr.Y))
		if d > float64(rad) {
			from := vg.Point{X: ctr.X + (to.X-ctr.X)*rad/vg.Length(d), Y: ctr.Y + (to.Y-ctr.Y)*rad/vg.Length(d)}
			c.StrokeLine2(link, from.X, from.Y, to.X, to.Y)
		}
		y -= box
	}
}
