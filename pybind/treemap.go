package pybind

import (
	"gonum.org/v1/plot/vg"

	"github.com/macroscope-hpc/macroscope/arrowio"
	"github.com/macroscope-hpc/macroscope/core/views/treemap"
	"github.com/macroscope-hpc/macroscope/plots"
)

// treemapOptions mirror Aggregation.treemap's keyword arguments.
type treemapOptions struct {
	Value   string  `json:"value"`
	Width   float64 `json:"width"`
	Height  float64 `json:"height"`
	Padding float64 `json:"padding"`
	Header  float64 `json:"header"`
	Root    *string `json:"root"` // path of the node at the top; nil for the whole hierarchy
}

func (a *Aggregation) treemapOptions(o treemapOptions) (treemap.Options, error) {
	v, err := treemap.ParseValue(o.Value)
	if err != nil {
		return treemap.Options{}, err
	}
	opt := treemap.Options{Value: v, Width: o.Width, Height: o.Height, Padding: o.Padding, Header: o.Header}
	if o.Root != nil {
		if opt.Root, err = treemap.NodeByPath(a.model.m.Tree, *o.Root, arrowio.PathSep); err != nil {
			return treemap.Options{}, err
		}
	}
	return opt, nil
}

// Treemap is the treemap of an aggregation laid out in a rectangle.
type Treemap struct {
	agg *Aggregation
	tm  *treemap.Map
}

// Treemap lays out the treemap of the aggregation (Lamarche-Perrin et al. 2014):
// options value ("leaves" or "activity"), width, height, padding, header
// and root (a node path).
func (a *Aggregation) Treemap(options string) (t *Treemap, err error) {
	defer guard(&err)
	o := treemapOptions{Width: 1, Height: 1}
	if err := decodeOptions(options, &o); err != nil {
		return nil, err
	}
	opt, err := a.treemapOptions(o)
	if err != nil {
		return nil, err
	}
	tm, err := treemap.OfPartition(a.model.m, a.part, opt)
	if err != nil {
		return nil, err
	}
	return &Treemap{agg: a, tm: tm}, nil
}

// Info describes the treemap as JSON.
func (t *Treemap) Info() (js string, err error) {
	defer guard(&err)
	aggregates := 0
	for _, c := range t.tm.Cells {
		if c.Aggregated {
			aggregates++
		}
	}
	tree := t.tm.Model.Tree
	return toJSON(map[string]any{
		"value": string(t.tm.Value), "width": t.tm.Bounds.W, "height": t.tm.Bounds.H,
		"rectangles": len(t.tm.Cells), "aggregates": aggregates, "hidden": t.tm.Hidden,
		"root": tree.Path(t.tm.Root, arrowio.PathSep), "first_slice": t.tm.First, "last_slice": t.tm.Last,
		"incomplete": t.agg.model.incomplete,
	})
}

// Table exports the rectangles.
func (t *Treemap) Table(addr uintptr) (err error) {
	defer guard(&err)
	return export(arrowio.TreemapTable(t.tm, cmem), addr)
}

type treemapPlotOptions struct {
	plotOptions
	Value       string  `json:"value"`
	Root        *string `json:"root"`
	Proportions bool    `json:"proportions"`
	Zooms       int     `json:"zooms"`
}

// PlotTreemap draws the treemap figure of the aggregation and returns the
// image file's bytes: options width and height (points), format, title,
// value, root, proportions and zooms.
func (a *Aggregation) PlotTreemap(options string) (img []byte, err error) {
	defer guard(&err)
	o := treemapPlotOptions{plotOptions: plotOptions{Format: "png"}}
	f, err := decodePlotOptions(options, &o, &o.Format)
	if err != nil {
		return nil, err
	}
	opt, err := a.treemapOptions(treemapOptions{Value: o.Value, Root: o.Root})
	if err != nil {
		return nil, err
	}
	colors, err := a.model.colors(o.Colors)
	if err != nil {
		return nil, err
	}
	return plots.Treemap(a.model.m, a.part, plots.TreemapOptions{
		Width: vg.Length(o.Width), Height: vg.Length(o.Height), Format: f, Title: titled(o.Title, a.model.incomplete),
		Value: opt.Value, Root: opt.Root, Proportions: o.Proportions, Zooms: o.Zooms, Colors: colors,
		Keep: named(o.Colors),
	})
}
