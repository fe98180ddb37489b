package pybind

import (
	"gonum.org/v1/plot/vg"

	"github.com/macroscope-hpc/macroscope/arrowio"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
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

// StartTreemap starts laying out the treemap of the aggregation (Lamarche-Perrin et al. 2014):
// options value ("leaves" or "activity"), width, height, padding, header
// and root (a node path).
//
// It is a Work whose Treemap is the map, so that Ctrl-C stops it.
func (a *Aggregation) StartTreemap(options string) (w *Work, err error) {
	defer guard(&err)
	o := treemapOptions{Width: 1, Height: 1}
	if err := decodeOptions(options, &o); err != nil {
		return nil, err
	}
	opt, err := a.treemapOptions(o)
	if err != nil {
		return nil, err
	}
	var t *Treemap
	w = startWork(func(ctl *aggregate.Control) error {
		opt.Cancel = ctl.Cancel
		tm, err := treemap.OfPartition(a.model.m, a.part, opt)
		if err != nil {
			return err
		}
		t = &Treemap{agg: a, tm: tm}
		return nil
	})
	w.result = func() any { return t }
	return w, nil
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

// StartPlotTreemap starts drawing the treemap figure of the aggregation:
// a Work whose Image is the image file's bytes, so that Ctrl-C stops the
// drawing. Options: width and height (points), format, title, value,
// root, proportions and zooms.
func (a *Aggregation) StartPlotTreemap(options string) (w *Work, err error) {
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
	var img []byte
	w = startWork(func(ctl *aggregate.Control) error {
		drawn, err := plots.Treemap(a.model.m, a.part, plots.TreemapOptions{
			Width: vg.Length(o.Width), Height: vg.Length(o.Height), Format: f, Title: titled(o.Title, a.model.incomplete),
			Value: opt.Value, Root: opt.Root, Proportions: o.Proportions, Zooms: o.Zooms, Colors: colors,
			Keep: named(o.Colors), Cancel: ctl.Cancel,
		})
		img = drawn
		return err
	})
	w.result = func() any { return img }
	return w, nil
}
