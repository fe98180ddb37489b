package plots

import (
	"fmt"
	"image/color"
	"maps"
	"math"
	"slices"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/macroscope-hpc/macroscope/core/hier"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
)

// OverviewOptions set the size and look of the overview figure.
type OverviewOptions struct {
	Width, Height vg.Length // figure size in points (1/72 in); 0 for defaults
	Format        Format    // PNG (default) or SVG
	Title         string
	// PixelThreshold: a split node whose children would be drawn thinner
	// than this many pixels is drawn as one visual aggregate. 0 means 1.
	PixelThreshold float64
	// Colors are the states' colours (ResolveColors); nil for the
	// model's own (the trace's colours, else the palette's).
	Colors ColorMap
	// Keep names the states drawn in their colours even when the model
	// has more than a figure colours apart (those the user gave a
	// colour); the smallest others are drawn as "other" (GroupSmallest).
	Keep map[string]bool
	// Cancel, once closed, stops Overview, which returns
	// trace.ErrComputationCanceled and no figure. Nil: never.
	Cancel <-chan struct{}
}

// Overview draws the spatiotemporal overview of Dosimont et al. 2014 (section IV): one
// row per resource, grouped by the hierarchy; each aggregate a rectangle
// over its time range and its node's rows, in the colour of its mode state
// with an opacity that grows with the mode's proportion (Ocelotl's alpha =
// 30 + 225 min(proportion, 1) out of 255). Nodes too thin to show their
// children are drawn as visual aggregates: one block per time range their
// children share, marked with a diagonal when the children are cut in time
// at the same places and a cross when they are not.
func Overview(m *micro.Model, in aggregate.Input, p *aggregate.Partition, opt OverviewOptions) ([]byte, error) {
	if err := CheckSize(opt.Width, opt.Height); err != nil {
		return nil, err
	}
	if opt.Width == 0 {
		opt.Width = 10 * vg.Inch
	}
	if opt.Height == 0 {
		opt.Height = 6 * vg.Inch
	}
	if opt.Format == "" {
		opt.Format = PNG
	}
	if opt.PixelThreshold <= 0 {
		opt.PixelThreshold = 1
	}
	if opt.Colors == nil { // the trace's colours, else the palette's
		opt.Colors, _ = ResolveColors(m.States, m.Colors, nil)
	}
	if err := trace.Stopped(opt.Cancel); err != nil {
		return nil, err
	}
	ov := &overview{m: m, in: in, p: p, opt: opt}
	img, err := Render(opt.Width, opt.Height, opt.Format, ov.draw)
	if ov.canceled || trace.Stopped(opt.Cancel) != nil {
		// The drawing stopped short (Render has no error to return), or
		// the image was encoded after the cancel.
		return nil, trace.ErrComputationCanceled
	}
	return img, err
}

type overview struct {
	m   *micro.Model
	in  aggregate.Input
	p   *aggregate.Partition
	opt OverviewOptions
	// group says which states are drawn in their colours, which as "other".
	group Grouping
	// origin is the instant the time axis counts from (TimeOrigin).
	origin trace.Time
	unit   float64 // seconds per unit of the time axis (TimeAxis)
	// shown is the area (square points) drawn in each state's colour (by
	// index into group.Names): the legend lists these states only, the
	// most visible first.
	shown map[int]float64
	// data is the data area, once drawn (for tests).
	data vg.Rectangle
	// canceled: the drawing stopped at opt.Cancel.
	canceled bool
}

// stop tells whether the drawing must stop at item i of a loop: opt.Cancel
// is closed, looked at every trace.StopEvery items.
func (ov *overview) stop(i int) bool {
	if !ov.canceled && i%trace.StopEvery == 0 && trace.Stopped(ov.opt.Cancel) != nil {
		ov.canceled = true
	}
	return ov.canceled
}

const (
	legendWidth = 1.6 * vg.Inch
	stripWidth  = 12 // points: room for a rotated label
	gap         = 4
)

var labelFont = font.From(plot.DefaultFont, 8)

func (ov *overview) draw(c draw.Canvas) {
	m := ov.m
	if ov.group.Of == nil {
		ov.group = ModelGrouping(m, ov.opt.Colors, ov.opt.Keep)
	}
	rows := float64(m.NumLeaves())
	levels := len(ov.groupLevels())
	plt := plot.New()
	plt.Title.Text = ov.opt.Title
	// Traces on absolute clocks (Unix epoch, Kineto) read in seconds into
	// the window, with the origin said in the label.
	origin := m.Origin
	unit, label := TimeAxis(origin, m.Start, m.End)
	ov.origin, ov.unit = origin, unit
	plt.X.Label.Text = label
	plt.X.Min, plt.X.Max = (m.Start-origin).Seconds()/unit, (m.End-origin).Seconds()/unit
	plt.Y.Min, plt.Y.Max = 0, rows
	plt.X.Tick.Marker = zeroTicks{}
	plt.Y.Tick.Marker = ov.groupTicks(c.Size().Y)
	plt.Y.Tick.Label.Font = labelFont
	plt.Y.Padding, plt.X.Padding = 0, 0
	plt.Add(ov)
	right := legendWidth + vg.Length(levels)*stripWidth + gap
	area := draw.Crop(c, gap, -right, 0, 0) // a margin so that row labels do not touch the edge
	plt.Draw(area)
	if ov.canceled {
		return
	}
	data := plt.DataCanvas(area)
	ov.data = data.Rectangle
	drawSteps(c, data.Rectangle, m)
	ov.drawStrips(data, levels)
	ov.drawLegend(c, data, right-vg.Length(levels)*stripWidth-gap)
}

// groupLevels returns the depths drawn as strips right of the rows: the
// levels above the row labels where some node groups several resources.
// Levels of single-resource nodes (a host running one process) are named
// in the row labels instead.
func (ov *overview) groupLevels() []int32 {
	tree := ov.m.Tree
	grouping := map[int32]bool{}
	for n := int32(1); n < int32(tree.Len()); n++ {
		if tree.NumLeaves(n) > 1 {
			grouping[tree.Depth[n]] = true
		}
	}
	var out []int32
	for d := int32(1); grouping[d]; d++ {
		out = append(out, d)
	}
	return out
}

// Plot implements plot.Plotter: the aggregates.
func (ov *overview) Plot(c draw.Canvas, plt *plot.Plot) {
	m, tree := ov.m, ov.m.Tree
	tx, ty := plt.Transforms(&c)
	rows := float64(m.NumLeaves())
	// Pixels per row: sizes are in points, PNG has dpi/72 pixels per point.
	rowPx := float64(c.Size().Y) / rows * dpi / 72
	bounds := make([]float64, m.Slices+1)
	for k := range bounds {
		bounds[k] = (m.SliceStart(k) - ov.origin).Seconds() / ov.unit
	}
	rect := func(n int32, first, last int) vg.Rectangle {
		return vg.Rectangle{
			Min: vg.Point{X: tx(bounds[first]), Y: ty(rows - float64(tree.LeafHi[n]))},
			Max: vg.Point{X: tx(bounds[last+1]), Y: ty(rows - float64(tree.LeafLo[n]))},
		}
	}
	means := make([]float64, len(m.States))
	drawn := make([]float64, len(ov.group.Names))
	ov.shown = map[int]float64{}
	fill := func(n int32, first, last int) vg.Rectangle {
		aggregate.MeanValues(ov.in, aggregate.Part{Node: n, First: int32(first), Last: int32(last)}, means)
		// The mode among the states drawn: "other" holds the time of the
		// states it groups.
		x, v := aggregate.Mode(ov.group.Fold(means, drawn))
		r := rect(n, first, last)
		if v == 0 { // no state at all: leave the background
			return r
		}
		col := ov.group.Colors.Of(x)
		c.SetColor(color.NRGBA{col.R, col.G, col.B, uint8(30 + 225*math.Min(v, 1))})
		c.Fill(r.Path())
		ov.shown[x] += float64(r.Size().X) * float64(r.Size().Y)
		return r
	}
	edge := draw.LineStyle{Color: color.RGBA{255, 255, 255, 255}, Width: vg.Length(0.4)}
	mark := draw.LineStyle{Color: color.RGBA{40, 40, 40, 255}, Width: vg.Length(0.5)}
	visual := ov.visualAggregates(rowPx)
	for i, pt := range ov.p.Parts {
		if ov.stop(i) {
			return
		}
		if v := visual[ancestorIn(tree, pt.Node, visual)]; v != nil {
			continue // drawn with its visual aggregate
		}
		r := fill(pt.Node, int(pt.First), int(pt.Last))
		if r.Size().Y*dpi/72 >= 4 && r.Size().X*dpi/72 >= 4 {
			c.StrokeLines(edge, rectLines(r)...)
		}
	}
	// In the order of the nodes: their edges overlap their neighbours',
	// and a map's order would change the picture from run to run.
	for i, n := range slices.Sorted(maps.Keys(visual)) {
		if ov.stop(i) {
			return
		}
		va := visual[n]
		for b := 0; b+1 < len(va.cuts); b++ {
			r := fill(n, va.cuts[b], va.cuts[b+1]-1)
			c.StrokeLines(edge, rectLines(r)...)
			if r.Size().X*dpi/72 < 3 || r.Size().Y*dpi/72 < 3 {
				continue
			}
			c.StrokeLine2(mark, r.Min.X, r.Min.Y, r.Max.X, r.Max.Y)
			if !va.sameCuts {
				c.StrokeLine2(mark, r.Min.X, r.Max.Y, r.Max.X, r.Min.Y)
			}
		}
	}
}

func rectLines(r vg.Rectangle) [][]vg.Point {
	return [][]vg.Point{{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}, r.Min}}
}

// visualAggregate is a node drawn as a block per shared time range.
type visualAggregate struct {
	cuts     []int // slice boundaries shared by all parts below, 0 and Slices included
	sameCuts bool  // every child subtree has exactly these cuts
}

// visualAggregates finds the highest nodes that are split in the partition
// while one of their children would be thinner than the pixel threshold.
func (ov *overview) visualAggregates(rowPx float64) map[int32]*visualAggregate {
	tree := ov.m.Tree
	split := make([]bool, tree.Len()) // node has parts strictly below it
	for i, pt := range ov.p.Parts {
		if ov.stop(i) {
			return nil
		}
		for n := tree.Parent[pt.Node]; n >= 0; n = tree.Parent[n] {
			split[n] = true
		}
	}
	out := map[int32]*visualAggregate{}
	var walk func(n int32)
	walk = func(n int32) {
		if !split[n] {
			return
		}
		for _, c := range tree.Children[n] {
			if float64(tree.NumLeaves(c))*rowPx < ov.opt.PixelThreshold {
				out[n] = ov.sharedCuts(n)
				return
			}
		}
		for _, c := range tree.Children[n] {
			walk(c)
		}
	}
	walk(0)
	return out
}

// sharedCuts returns the time boundaries every leaf row under n has, and
// whether all rows have the same boundaries.
func (ov *overview) sharedCuts(n int32) *visualAggregate {
	tree := ov.m.Tree
	perLeaf := map[int32]map[int]bool{}
	for i, pt := range ov.p.Parts {
		if ov.stop(i) {
			break // the drawing stops at the next look
		}
		if pt.Node < n || pt.Node >= tree.End[n] {
			continue
		}
		for l := tree.LeafLo[pt.Node]; l < tree.LeafHi[pt.Node]; l++ {
			if perLeaf[l] == nil {
				perLeaf[l] = map[int]bool{}
			}
			perLeaf[l][int(pt.First)] = true
		}
	}
	count := map[int]int{}
	for _, cuts := range perLeaf {
		for c := range cuts {
			count[c]++
		}
	}
	leaves := tree.NumLeaves(n)
	va := &visualAggregate{sameCuts: true}
	for c, k := range count {
		if k == leaves {
			va.cuts = append(va.cuts, c)
		} else {
			va.sameCuts = false
		}
	}
	va.cuts = append(va.cuts, ov.m.Slices)
	sort.Ints(va.cuts)
	return va
}

// ancestorIn returns the nearest ancestor of n (or n) that is a key of
// set, or -1.
func ancestorIn(tree *hier.Tree, n int32, set map[int32]*visualAggregate) int32 {
	for ; n >= 0; n = tree.Parent[n] {
		if _, ok := set[n]; ok {
			return n
		}
	}
	return -1
}

// groupTicks labels the rows by the deepest hierarchy level whose nodes
// all fit, one label per node at its centre, with ticks at boundaries.
func (ov *overview) groupTicks(height vg.Length) plot.Ticker {
	tree := ov.m.Tree
	rows := float64(ov.m.NumLeaves())
	maxLabels := int(height / (labelFont.Size * 1.3))
	byDepth := map[int32][]int32{}
	for n := int32(1); n < int32(tree.Len()); n++ {
		byDepth[tree.Depth[n]] = append(byDepth[tree.Depth[n]], n)
	}
	var chosen []int32
	for d := int32(1); len(byDepth[d]) > 0; d++ {
		if len(byDepth[d]) > maxLabels {
			break
		}
		chosen = byDepth[d]
	}
	return plot.TickerFunc(func(min, max float64) []plot.Tick {
		var ticks []plot.Tick
		for _, n := range chosen {
			mid := rows - float64(tree.LeafLo[n]+tree.LeafHi[n])/2
			ticks = append(ticks, plot.Tick{Value: mid, Label: chainName(tree, n)})
			ticks = append(ticks, plot.Tick{Value: rows - float64(tree.LeafLo[n])})
		}
		if len(chosen) == 0 {
			ticks = append(ticks, plot.Tick{Value: rows / 2, Label: fmt.Sprintf("%d resources", int(rows))})
		}
		return ticks
	})
}

// chainName names node n by the nodes above it that hold the same
// resources (a host and its only process: "host-3/rank-3"), so that the
// labels of one level tell the levels collapsed into it.
func chainName(tree *hier.Tree, n int32) string {
	name := tree.Names[n]
	for p := tree.Parent[n]; p > 0 && len(tree.Children[p]) == 1; p = tree.Parent[p] {
		name = tree.Names[p] + "/" + name
	}
	return name
}

// drawStrips draws, right of the data area, one strip per grouping level
// (groupLevels) with alternating shades per node and the node's name
// written along it where it fits, so groups read at a glance.
func (ov *overview) drawStrips(data draw.Canvas, levels int) {
	tree := ov.m.Tree
	rows := float64(ov.m.NumLeaves())
	h := data.Max.Y - data.Min.Y
	y := func(leaf int32) vg.Length { return data.Max.Y - h*vg.Length(float64(leaf)/rows) }
	shades := []color.Color{color.Gray{215}, color.Gray{175}}
	sty := draw.TextStyle{Color: color.Black, Font: labelFont, Handler: plot.DefaultTextHandler,
		Rotation: -math.Pi / 2, XAlign: draw.XCenter, YAlign: draw.YCenter}
	column := map[int32]int{}
	for i, d := range ov.groupLevels() {
		column[d] = i
	}
	seen := map[int32]int{}
	for n := int32(1); n < int32(tree.Len()); n++ {
		d := tree.Depth[n]
		col, ok := column[d]
		if !ok {
			continue
		}
		x0 := data.Max.X + gap + vg.Length(col)*stripWidth
		r := vg.Rectangle{Min: vg.Point{X: x0, Y: y(tree.LeafHi[n])}, Max: vg.Point{X: x0 + stripWidth - 0.5, Y: y(tree.LeafLo[n])}}
		data.SetColor(shades[seen[d]%2])
		seen[d]++
		data.Fill(r.Path())
		name := chainName(tree, n)
		if sty.Width(name)+4 <= r.Max.Y-r.Min.Y {
			data.FillText(sty, vg.Point{X: (r.Min.X + r.Max.X) / 2, Y: (r.Min.Y + r.Max.Y) / 2}, name)
		}
	}
}

// drawLegend lists the states shown with their colours.
func (ov *overview) drawLegend(c, data draw.Canvas, width vg.Length) {
	drawStateLegend(c, c.Max.X-width+gap, data.Max.Y, data.Min.Y, width-gap, ov.shown, ov.group.Names, ov.group.Colors)
}
