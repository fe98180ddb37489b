package plots

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/topology"
)

// TopologyOptions choose the size, format and texts of a topology figure.
type TopologyOptions struct {
	Width, Height vg.Length // the figure (points); 0: 720 x 620
	Format        Format    // PNG (default) or SVG
	Title         string
	Notes         []string // lines under the title (the window, the metrics)
	// MaxNode is the side of the largest node of a kind, in points; 0
	// picks one from the density of the graph (between 5 and 28).
	MaxNode vg.Length
	// Labels writes the names of aggregated nodes (those of at most
	// MaxLabels nodes when the graph is not collapsed anywhere).
	Labels    bool
	MaxLabels int
	// Cancel, once closed, stops Topology, which returns
	// trace.ErrComputationCanceled and no figure: the drawing looks at it
	// first, then every trace.StopEvery nodes and edges. Nil: never.
	Cancel <-chan struct{}
}

var (
	topoFont      = font.From(plot.DefaultFont, 7)
	topoTitleFont = font.From(plot.DefaultFont, 11)
	topoNoteFont  = font.From(plot.DefaultFont, 8)
)

// kindColors are the outline and fill colours of the node kinds: hosts
// blue, links orange, others in the palette's next colours.
var kindColors = map[string]color.RGBA{
	"HOST":   {31, 100, 180, 255},
	"LINK":   {230, 110, 0, 255},
	"ROUTER": {80, 150, 70, 255},
}

// TopologyKindColor returns the colour of a kind of node; kinds without a
// colour of their own take the palette's, by their rank among kinds.
func TopologyKindColor(kind string, rank int) color.RGBA {
	if c, ok := kindColors[strings.ToUpper(kind)]; ok {
		return c
	}
	return CategoryColor(3 + rank)
}

const (
	topoMargin = 10 // points around the drawing
	topoLegend = 20 // points: the legend band at the bottom
)

// Topology draws the view of a topology (Schnorr, Legrand and Vincent 2012):
// edges as thin grey lines, nodes as squares (hosts), diamonds (links) or
// circles (anything else) of a side proportional to their capacity (the
// largest of each kind at MaxNode), outlined in the colour of their kind
// and filled from the bottom up in proportion to their utilization over
// capacity. Nodes without utilization are filled with a light tint;
// aggregated nodes have a thicker outline and their group's name. The
// drawing keeps the layout's aspect ratio.
func Topology(v *topology.View, opt TopologyOptions) ([]byte, error) {
	if err := CheckSize(opt.Width, opt.Height); err != nil {
		return nil, err
	}
	if opt.Width == 0 {
		opt.Width = 720
	}
	if opt.Height == 0 {
		opt.Height = 620
	}
	if opt.Format == "" {
		opt.Format = PNG
	}
	if opt.MaxLabels == 0 {
		opt.MaxLabels = 60
	}
	for _, n := range v.Nodes {
		if math.IsNaN(n.X) || math.IsNaN(n.Y) {
			return nil, errs.Argument("layout", "node %q has no position: lay the graph out first", n.Path)
		}
	}
	if err := trace.Stopped(opt.Cancel); err != nil {
		return nil, err
	}
	f := &topoFigure{v: v, opt: opt, look: trace.Looker{Cancel: opt.Cancel}}
	img, err := Render(opt.Width, opt.Height, opt.Format, f.draw)
	if f.canceled || trace.Stopped(opt.Cancel) != nil {
		// The drawing stopped short (Render has no error to return), or
		// the image was encoded after the cancel.
		return nil, trace.ErrComputationCanceled
	}
	return img, err
}

type topoFigure struct {
	v   *topology.View
	opt TopologyOptions
	// look counts the nodes and edges drawn, between looks at
	// opt.Cancel; canceled: the drawing stopped at it.
	look     trace.Looker
	canceled bool
}

// stop tells whether the drawing must stop once n more items are drawn.
func (f *topoFigure) stop(n int) bool {
	if f.look.Stopped(n) != nil {
		f.canceled = true
	}
	return f.canceled
}

func (f *topoFigure) draw(c draw.Canvas) {
	v, opt := f.v, f.opt
	top := c.Max.Y - topoMargin
	if opt.Title != "" {
		sty := draw.TextStyle{Color: color.Black, Font: topoTitleFont, Handler: plot.DefaultTextHandler, YAlign: draw.YTop}
		c.FillText(sty, vg.Point{X: c.Min.X + topoMargin, Y: top}, opt.Title)
		top -= topoTitleFont.Size * 1.4
	}
	for _, note := range opt.Notes {
		sty := draw.TextStyle{Color: color.Gray{Y: 80}, Font: topoNoteFont, Handler: plot.DefaultTextHandler, YAlign: draw.YTop}
		c.FillText(sty, vg.Point{X: c.Min.X + topoMargin, Y: top}, note)
		top -= topoNoteFont.Size * 1.4
	}
	area := vg.Rectangle{Min: vg.Point{X: c.Min.X + topoMargin, Y: c.Min.Y + topoMargin + topoLegend}, Max: vg.Point{X: c.Max.X - topoMargin, Y: top - 4}}
	kinds := f.kinds()
	f.legend(c, kinds)
	if len(v.Nodes) == 0 || area.Max.Y <= area.Min.Y {
		return
	}
	maxNode := opt.MaxNode
	if maxNode == 0 {
		side := math.Sqrt(float64((area.Max.X-area.Min.X)*(area.Max.Y-area.Min.Y)) / float64(len(v.Nodes)))
		maxNode = vg.Length(math.Max(5, math.Min(28, 0.9*side)))
	}
	// Fit the positions in the area, same scale on both axes, leaving
	// half a node on every side.
	minX, maxX, minY, maxY := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, n := range v.Nodes {
		minX, maxX = math.Min(minX, n.X), math.Max(maxX, n.X)
		minY, maxY = math.Min(minY, n.Y), math.Max(maxY, n.Y)
	}
	inner := vg.Rectangle{Min: vg.Point{X: area.Min.X + maxNode/2, Y: area.Min.Y + maxNode/2}, Max: vg.Point{X: area.Max.X - maxNode/2, Y: area.Max.Y - maxNode/2}}
	w, h := float64(inner.Max.X-inner.Min.X), float64(inner.Max.Y-inner.Min.Y)
	scale := math.Min(w/math.Max(maxX-minX, 1e-9), h/math.Max(maxY-minY, 1e-9))
	if maxX == minX && maxY == minY {
		scale = 0
	}
	ox := float64(inner.Min.X) + (w-scale*(maxX-minX))/2
	oy := float64(inner.Min.Y) + (h-scale*(maxY-minY))/2
	at := func(n topology.Node) vg.Point {
		return vg.Point{X: vg.Length(ox + scale*(n.X-minX)), Y: vg.Length(oy + scale*(n.Y-minY))}
	}
	edge := draw.LineStyle{Color: color.NRGBA{120, 120, 120, 150}, Width: 0.5}
	if len(v.Edges) > 2000 {
		edge.Width = 0.3
	}
	for _, e := range v.Edges {
		if f.stop(1) {
			return
		}
		a, b := at(v.Nodes[e.From]), at(v.Nodes[e.To])
		c.StrokeLine2(edge, a.X, a.Y, b.X, b.Y)
	}
	// Larger nodes first, so that small ones stay visible on top.
	order := make([]int, len(v.Nodes))
	for i := range order {
		order[i] = i
	}
	if trace.SortStableFunc(order, func(a, b int) int {
		sa, sb := v.Nodes[a].Size, v.Nodes[b].Size
		switch {
		case sa > sb:
			return -1
		case sa < sb:
			return 1
		}
		return 0
	}, &f.look) != nil {
		f.canceled = true
		return
	}
	for _, i := range order {
		if f.stop(1) {
			return
		}
		n := v.Nodes[i]
		f.node(c, at(n), n, maxNode, kinds[n.Kind])
	}
	f.labels(c, at, maxNode)
}

// kinds ranks the kinds of the view in order of first appearance.
func (f *topoFigure) kinds() map[string]int { return kindRanks(f.v) }

// TopologyKindColors returns the colour of each kind of node of the view
// as its figure draws it (TopologyKindColor by rank of first appearance),
// for the explorer: one set of colours.
func TopologyKindColors(v *topology.View) map[string]color.RGBA {
	out := map[string]color.RGBA{}
	for kind, rank := range kindRanks(v) {
		out[kind] = TopologyKindColor(kind, rank)
	}
	return out
}

func kindRanks(v *topology.View) map[string]int {
	kinds := map[string]int{}
	for _, n := range v.Nodes {
		if _, ok := kinds[n.Kind]; !ok {
			kinds[n.Kind] = len(kinds)
		}
	}
	return kinds
}

// outline returns the polygon of a node's shape of side s centred at p.
func outline(shape topology.Shape, p vg.Point, s vg.Length) []vg.Point {
	h := s / 2
	switch shape {
	case topology.Square:
		return []vg.Point{{X: p.X - h, Y: p.Y - h}, {X: p.X + h, Y: p.Y - h}, {X: p.X + h, Y: p.Y + h}, {X: p.X - h, Y: p.Y + h}}
	case topology.Diamond:
		// The diamond of a square's area: diagonals of s sqrt 2.
		d := h * math.Sqrt2
		return []vg.Point{{X: p.X, Y: p.Y - d}, {X: p.X + d, Y: p.Y}, {X: p.X, Y: p.Y + d}, {X: p.X - d, Y: p.Y}}
	}
	// A circle of a square's area, as a polygon (it is clipped to fill).
	r := float64(h) * 2 / math.Sqrt(math.Pi)
	const sides = 24
	pts := make([]vg.Point, sides)
	for i := range pts {
		a := 2 * math.Pi * float64(i) / sides
		pts[i] = vg.Point{X: p.X + vg.Length(r*math.Cos(a)), Y: p.Y + vg.Length(r*math.Sin(a))}
	}
	return pts
}

// below clips a convex polygon to the half plane Y <= y.
func below(pts []vg.Point, y vg.Length) []vg.Point {
	var out []vg.Point
	for i, p := range pts {
		q := pts[(i+1)%len(pts)]
		pin, qin := p.Y <= y, q.Y <= y
		if pin {
			out = append(out, p)
		}
		if pin != qin {
			t := (y - p.Y) / (q.Y - p.Y)
			out = append(out, vg.Point{X: p.X + t*(q.X-p.X), Y: y})
		}
	}
	return out
}

func polygon(pts []vg.Point) vg.Path {
	var path vg.Path
	for i, p := range pts {
		if i == 0 {
			path.Move(p)
		} else {
			path.Line(p)
		}
	}
	path.Close()
	return path
}

// side returns the side of a node's square (the shapes have its area).
// Nodes of a small capacity (a link of little bandwidth beside the
// backbone) keep a visible size, a fifth of the largest and at least 4
// points, so that their outline and their utilization fill still show.
func side(n topology.Node, maxNode vg.Length) vg.Length {
	least := min(maxNode, max(4, maxNode/5))
	if math.IsNaN(n.Size) {
		return least
	}
	return max(vg.Length(n.Size*float64(maxNode)), least)
}

// halfHeight returns how far a node's shape reaches below its centre.
func halfHeight(n topology.Node, maxNode vg.Length) vg.Length {
	s := side(n, maxNode)
	switch n.Shape {
	case topology.Square:
		return s / 2
	case topology.Diamond:
		return s / 2 * math.Sqrt2
	}
	return s / vg.Length(math.Sqrt(math.Pi))
}

func (f *topoFigure) node(c draw.Canvas, p vg.Point, n topology.Node, maxNode vg.Length, rank int) {
	s := side(n, maxNode)
	col := TopologyKindColor(n.Kind, rank)
	pts := outline(n.Shape, p, s)
	c.SetColor(color.White)
	c.Fill(polygon(pts))
	if math.IsNaN(n.Ratio) {
		c.SetColor(color.NRGBA{col.R, col.G, col.B, 60})
		c.Fill(polygon(pts))
	} else if r := math.Min(math.Max(n.Ratio, 0), 1); r > 0 {
		lo, hi := pts[0].Y, pts[0].Y
		for _, q := range pts {
			lo, hi = min(lo, q.Y), max(hi, q.Y)
		}
		if part := below(pts, lo+vg.Length(r)*(hi-lo)); len(part) > 2 {
			c.SetColor(col)
			c.Fill(polygon(part))
		}
	}
	width := vg.Length(0.6)
	if n.Aggregated {
		width = 1.4
	}
	if s < 3 {
		width = 0.3
	}
	c.SetLineStyle(draw.LineStyle{Color: col, Width: width})
	c.Stroke(polygon(pts))
}

// labels names the aggregated nodes (one label per group, on its largest
// node), or every node of a small graph.
func (f *topoFigure) labels(c draw.Canvas, at func(topology.Node) vg.Point, maxNode vg.Length) {
	v := f.v
	sty := draw.TextStyle{Color: color.Gray{Y: 40}, Font: topoFont, Handler: plot.DefaultTextHandler, XAlign: draw.XCenter, YAlign: draw.YTop}
	best := map[string]int{} // group -> its largest node
	var groups []string
	for i, n := range v.Nodes {
		if !n.Aggregated {
			continue
		}
		if j, ok := best[n.Group]; !ok || n.Size > v.Nodes[j].Size {
			if !ok {
				groups = append(groups, n.Group)
			}
			best[n.Group] = i
		}
	}
	if !f.opt.Labels && len(groups) == 0 {
		return
	}
	if len(groups) == 0 {
		if len(v.Nodes) > f.opt.MaxLabels {
			return
		}
		for _, n := range v.Nodes {
			p := at(n)
			c.FillText(sty, vg.Point{X: p.X, Y: p.Y - halfHeight(n, maxNode) - 1}, n.Name)
		}
		return
	}
	if len(groups) > f.opt.MaxLabels {
		return
	}
	for _, g := range groups {
		n := v.Nodes[best[g]]
		p := at(n)
		c.FillText(sty, vg.Point{X: p.X, Y: p.Y - halfHeight(n, maxNode) - 1}, n.Name)
	}
}

// legend explains shapes and colours along the bottom.
func (f *topoFigure) legend(c draw.Canvas, kinds map[string]int) {
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	slices.SortFunc(names, func(a, b string) int { return kinds[a] - kinds[b] })
	sty := draw.TextStyle{Color: color.Black, Font: topoFont, Handler: plot.DefaultTextHandler, YAlign: draw.YCenter}
	x := c.Min.X + topoMargin
	y := c.Min.Y + topoMargin + 4
	for _, k := range names {
		n := topology.Node{Kind: k, Shape: topology.ShapeOf(k), Size: 1, Ratio: 0.5}
		f.node(c, vg.Point{X: x + 5, Y: y}, n, 9, kinds[k])
		x += 14
		label := fmt.Sprintf("%s (%s)", k, n.Shape)
		c.FillText(sty, vg.Point{X: x, Y: y}, label)
		x += sty.Width(label) + 14
	}
	sty.Color = color.Gray{Y: 80}
	c.FillText(sty, vg.Point{X: x, Y: y}, "size: capacity (largest of each kind = full size); fill: utilization / capacity")
}
