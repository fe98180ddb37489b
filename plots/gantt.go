package plots

import (
	"cmp"
	"image/color"
	"math"
	"path"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/hier"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// GanttOptions choose what the Gantt view shows and how.
type GanttOptions struct {
	Width, Height vg.Length // figure size in points; 0 for 10 x 6 inches
	Format        Format    // PNG (default), SVG or PDF
	Title         string
	// Start and End bound the window; nil for the trace's first and last
	// instants.
	Start, End *trace.Time
	// Resources keeps the rows under the containers named: a name, a path
	// ("host-1/rank-3", as the tables write them) or a glob of either
	// ("rank-*"); a container brings the rows below it. Empty keeps all.
	Resources []string
	// StateTypes restricts the states drawn to these types (all if empty).
	StateTypes []string
	// Colors maps state names to colours (ParseColor), over the trace's.
	Colors map[string]string
	// Cancel, once closed, stops Gantt, which returns
	// trace.ErrComputationCanceled and no figure. Nil: never.
	Cancel <-chan struct{}
}

// GanttRows is the row layout of a Gantt view: the rows drawn, top to
// bottom, as leaf indices of the model's rows (micro.StateRows, the
// overview's rows in the overview's order) and their labels.
type GanttRows struct {
	Rows   *micro.Rows
	Leaves []int32
	Labels []string
}

// LayoutGantt selects the rows of the Gantt view of t the options ask for.
func LayoutGantt(t *trace.Trace, opt GanttOptions) (*GanttRows, error) {
	rows, err := micro.StateRows(t, opt.StateTypes)
	if err != nil {
		return nil, err
	}
	tree := rows.Model.Tree
	keep := make([]bool, tree.Len())
	if len(opt.Resources) == 0 {
		keep[0] = true
	}
	for _, pat := range opt.Resources {
		found := false
		// Node 0 is the root, named "root" in the aggregate table's paths.
		for n := int32(0); n < int32(tree.Len()); n++ {
			if matchNode(tree, n, pat) {
				keep[n], found = true, true
			}
		}
		if !found {
			return nil, errs.Argument("resources", "no container matches %q", pat)
		}
	}
	g := &GanttRows{Rows: rows}
	for l, n := range tree.Leaves {
		for a := n; a >= 0; a = tree.Parent[a] {
			if keep[a] {
				g.Leaves = append(g.Leaves, int32(l))
				break
			}
		}
	}
	if len(g.Leaves) == 0 {
		return nil, errs.Argument("resources", "no resource holds the selected states")
	}
	// Rows are named by their path below the deepest node all share.
	common := tree.Leaves[g.Leaves[0]]
	for _, l := range g.Leaves {
		common = commonAncestor(tree, common, tree.Leaves[l])
	}
	if len(g.Leaves) == 1 {
		common = tree.Parent[common]
	}
	for _, l := range g.Leaves {
		var parts []string
		for n := tree.Leaves[l]; n != common && n > 0; n = tree.Parent[n] {
			parts = append(parts, tree.Names[n])
		}
		for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
			parts[i], parts[j] = parts[j], parts[i]
		}
		g.Labels = append(g.Labels, strings.Join(parts, "/"))
	}
	return g, nil
}

// matchNode tells whether pattern names node n: its name or its path,
// equal or as a glob.
func matchNode(tree *hier.Tree, n int32, pattern string) bool {
	name, p := tree.Names[n], tree.Path(n, "/")
	if pattern == name || pattern == p || pattern == tree.Names[0]+"/"+p {
		return true
	}
	if ok, _ := path.Match(pattern, name); ok {
		return true
	}
	ok, _ := path.Match(pattern, p)
	return ok
}

func commonAncestor(tree *hier.Tree, a, b int32) int32 {
	depth := func(n int32) int {
		d := 0
		for ; n > 0; n = tree.Parent[n] {
			d++
		}
		return d
	}
	da, db := depth(a), depth(b)
	for ; da > db; da-- {
		a = tree.Parent[a]
	}
	for ; db > da; db-- {
		b = tree.Parent[b]
	}
	for a != b {
		a, b = tree.Parent[a], tree.Parent[b]
	}
	return a
}

// Gantt draws the states of t as a Gantt chart: one row per resource (a
// container, or a container and state type when it holds several, the
// rows of the overview in its order), each state a bar over its time
// range in its value's colour. Nested states are drawn inside the states
// they interrupt, as thinner bars the deeper they are, so that a call
// stack reads as a stack. The legend lists the states drawn, the most
// visible first. Bars shorter than a pixel are drawn once per pixel and
// depth, so a dense trace costs the figure's width per row, not its
// number of states.
func Gantt(t *trace.Trace, opt GanttOptions) ([]byte, error) {
	gv, err := newGantt(t, opt)
	if err != nil {
		return nil, err
	}
	img, err := Render(gv.opt.Width, gv.opt.Height, gv.opt.Format, gv.draw)
	if gv.canceled {
		// The drawing stopped short (Plot has no error to return).
		return nil, trace.ErrComputationCanceled
	}
	return img, err
}

func newGantt(t *trace.Trace, opt GanttOptions) (*gantt, error) {
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
	start, end := t.Start, t.End
	if opt.Start != nil {
		start = *opt.Start
	}
	if opt.End != nil {
		end = *opt.End
	}
	if end <= start {
		return nil, errs.Argument("window", "empty time window [%s, %s] s", start, end)
	}
	if err := trace.Stopped(opt.Cancel); err != nil {
		return nil, err
	}
	g, err := LayoutGantt(t, opt)
	if err != nil {
		return nil, err
	}
	if err := trace.Stopped(opt.Cancel); err != nil {
		return nil, err
	}
	m := g.Rows.Model
	colors, err := ResolveColors(m.States, m.Colors, opt.Colors)
	if err != nil {
		return nil, err
	}
	// The states with the most time in the window keep their colours
	// when there are more than a figure colours apart.
	shares := make([]float64, len(m.States))
	for i, s := range t.States.All() {
		if i%trace.StopEvery == 0 {
			if err := trace.Stopped(opt.Cancel); err != nil {
				return nil, err
			}
		}
		if lo, hi := max(s.Start, start), min(s.End, end); hi > lo && g.Rows.Row(&s) >= 0 {
			shares[g.Rows.Category(&s)] += float64(hi - lo)
		}
	}
	keep := map[string]bool{}
	for name := range opt.Colors {
		keep[name] = true
	}
	group := GroupSmallest(m.States, shares, colors, keep)
	return &gantt{t: t, g: g, start: start, end: end, group: group, opt: opt}, nil
}

type gantt struct {
	t          *trace.Trace
	g          *GanttRows
	start, end trace.Time
	group      Grouping // the states' colours, the smallest as "other"
	opt        GanttOptions
	origin     trace.Time
	unit       float64         // seconds per axis unit
	shown      map[int]float64 // area drawn by state (index into group.Names)
	data       vg.Rectangle    // the data area, once drawn (for tests)
	canceled   bool            // the drawing stopped at opt.Cancel
}

// stop tells whether the drawing must stop, at every trace.StopEvery-th
// item i: opt.Cancel is closed.
func (gv *gantt) stop(i int) bool {
	if !gv.canceled && i%trace.StopEvery == 0 && trace.Stopped(gv.opt.Cancel) != nil {
		gv.canceled = true
	}
	return gv.canceled
}

// sort sorts the bars (stable: equal ones keep their order) and tells
// whether the drawing must stop: opt.Cancel closed, looked at every
// trace.StopEvery comparisons of the sort (millions of bars take
// seconds). The comparisons are those of the unstable sort.Slice and
// the stable sort.SliceStable, on the same algorithm: the same order.
func (gv *gantt) sort(bars []ganttBar, compare func(x, y ganttBar) int, stable bool) bool {
	look := trace.Looker{Cancel: gv.opt.Cancel}
	sort := trace.SortFunc[[]ganttBar]
	if stable {
		sort = trace.SortStableFunc[[]ganttBar]
	}
	if !gv.canceled && sort(bars, compare, &look) != nil {
		gv.canceled = true
	}
	return gv.canceled
}

// ganttBarHeight is the height of a bar at nesting depth d, as a fraction
// of the row: 0.86 at the outermost level, 78% of the level above deeper
// down, never under a quarter of the row (from ganttFloorDepth on).
func ganttBarHeight(d int32) float64 {
	return 0.86 * math.Max(0.25, math.Pow(0.78, float64(d)))
}

// ganttFloorDepth is the first depth whose bars are a quarter of the row:
// all deeper bars of a row share one band, where only the deepest state at
// each point shows.
const ganttFloorDepth = 6

func (gv *gantt) draw(c draw.Canvas) {
	plt := plot.New()
	plt.Title.Text = gv.opt.Title
	var label string
	gv.origin = gv.t.Start
	gv.unit, label = TimeAxis(gv.origin, gv.start, gv.end)
	plt.X.Label.Text = label
	plt.X.Min, plt.X.Max = gv.x(gv.start), gv.x(gv.end)
	rows := float64(len(gv.g.Leaves))
	plt.Y.Min, plt.Y.Max = 0, rows
	plt.X.Tick.Marker = zeroTicks{}
	plt.Y.Padding, plt.X.Padding = 0, 0
	plt.Y.Tick.Label.Font = labelFont
	plt.Y.Tick.Marker = gv.rowTicks(c.Size().Y)
	plt.Add(gv)
	right := legendWidth + gap
	area := draw.Crop(c, gap, -right, 0, 0) // a margin so that row labels do not touch the edge
	plt.Draw(area)
	data := plt.DataCanvas(area)
	gv.data = data.Rectangle
	drawStateLegend(c, c.Max.X-legendWidth, data.Max.Y, data.Min.Y, legendWidth-gap, gv.shown, gv.group.Names, gv.group.Colors)
}

// x places an instant on the time axis.
func (gv *gantt) x(t trace.Time) float64 { return (t - gv.origin).Seconds() / gv.unit }

// rowTicks labels every row when the labels fit, else every k-th row.
func (gv *gantt) rowTicks(height vg.Length) plot.Ticker {
	rows := len(gv.g.Leaves)
	fit := max(1, int(height/(labelFont.Size*1.4)))
	step := (rows + fit - 1) / fit
	return plot.TickerFunc(func(min, max float64) []plot.Tick {
		var ticks []plot.Tick
		for i := 0; i < rows; i += step {
			ticks = append(ticks, plot.Tick{Value: float64(rows-i) - 0.5, Label: gv.g.Labels[i]})
		}
		return ticks
	})
}

// Plot implements plot.Plotter: the bars.
func (gv *gantt) Plot(c draw.Canvas, plt *plot.Plot) {
	tx, ty := plt.Transforms(&c)
	g, rows := gv.g, gv.g.Rows
	nRows := len(g.Leaves)
	rowOf := map[int32]int{} // model leaf -> drawn row, top first
	for i, l := range g.Leaves {
		rowOf[l] = i
	}
	// The states to draw, by depth then start, so that inner bars are
	// drawn over outer ones and each row and depth goes left to right.
	var bars []ganttBar
	for i := range gv.t.States.Len() {
		if gv.stop(i) {
			return
		}
		s := gv.t.States.At(i)
		if s.End <= gv.start || s.Start >= gv.end {
			if !(s.Start == s.End && s.Start >= gv.start && s.Start <= gv.end) {
				continue
			}
		}
		leaf := rows.Row(&s)
		if leaf < 0 {
			continue
		}
		r, ok := rowOf[leaf]
		if !ok {
			continue
		}
		bars = append(bars, ganttBar{r, s.Depth, int32(i)})
	}
	if gv.sort(bars, func(x, y ganttBar) int {
		// The states' starts only for bars of one row and depth: cmp.Or
		// would look both up for every comparison.
		if c := cmp.Or(cmp.Compare(x.depth, y.depth), cmp.Compare(x.row, y.row)); c != 0 {
			return c
		}
		return cmp.Compare(gv.t.States.At(int(x.state)).Start, gv.t.States.At(int(y.state)).Start)
	}, false) {
		return
	}
	gv.shown = map[int]float64{}
	px := vg.Length(72.0 / dpi) // one pixel, in points
	fill := func(row int, depth int32, x0, x1 vg.Length, cat int) {
		h := ganttBarHeight(depth)
		mid := float64(nRows-row) - 0.5
		r := vg.Rectangle{Min: vg.Point{X: x0, Y: ty(mid - h/2)}, Max: vg.Point{X: x1, Y: ty(mid + h/2)}}
		c.SetColor(gv.group.Colors.Of(cat))
		c.Fill(r.Path())
		gv.shown[cat] += float64(r.Size().X * r.Size().Y)
	}
	// The bars from ganttFloorDepth down are drawn as their band shows
	// them, the deepest state at each pixel: a call stack a million deep
	// drew a million bars over one another, each the figure's width.
	floor := sort.Search(len(bars), func(i int) bool { return bars[i].depth >= ganttFloorDepth })
	lastRow, lastDepth, lastEnd := -1, int32(-1), vg.Length(math.Inf(-1))
	for i, b := range bars[:floor] {
		if gv.stop(i) {
			return
		}
		s := gv.t.States.At(int(b.state))
		x0, x1 := tx(gv.x(max(s.Start, gv.start))), tx(gv.x(min(s.End, gv.end)))
		if b.row != lastRow || b.depth != lastDepth {
			lastRow, lastDepth, lastEnd = b.row, b.depth, vg.Length(math.Inf(-1))
		}
		if x1-x0 < px {
			// A sliver: one per pixel is enough.
			if x0 < lastEnd {
				continue
			}
			x1 = x0 + px
		}
		lastEnd = max(lastEnd, x1)
		fill(b.row, b.depth, x0, x1, gv.group.Of[rows.Category(&s)])
	}
	gv.drawBand(bars[floor:], tx, c.Min.X, px, fill)
	// Row separators when rows are tall enough to need them.
	if rowPx := float64(c.Size().Y) / float64(nRows) * dpi / 72; rowPx >= 6 {
		sep := draw.LineStyle{Color: color.Gray{Y: 225}, Width: vg.Length(0.4)}
		for i := 1; i < nRows; i++ {
			y := ty(float64(i))
			c.StrokeLine2(sep, c.Min.X, y, c.Max.X, y)
		}
	}
}

// ganttBar is a state drawn as a bar on a row at its nesting depth.
type ganttBar struct {
	row   int
	depth int32
	state int32
}

// drawBand draws the bars of the floor band (depth ganttFloorDepth and
// more, sorted by depth, row and start) as the band shows them: each pixel
// column of a row in the colour of the deepest state over it. A row's
// bars are painted deepest first into the columns still empty, each
// column once (the next empty column is found by path halving), and the
// runs of one colour are filled with fill: the cost follows the states
// and the figure's width, not the states' widths added up.
func (gv *gantt) drawBand(bars []ganttBar, tx func(float64) vg.Length, left, px vg.Length, fill func(row int, depth int32, x0, x1 vg.Length, cat int)) {
	if len(bars) == 0 {
		return
	}
	rows := gv.g.Rows
	if gv.sort(bars, func(x, y ganttBar) int {
		return cmp.Or(cmp.Compare(x.row, y.row), cmp.Compare(y.depth, x.depth))
	}, true) {
		return
	}
	column := func(x vg.Length) int { return int(math.Floor(float64((x - left) / px))) }
	// The columns cover the window and no more: the last one, cut by the
	// window's end, is filled up to it, as a bar ending there is.
	right := tx(gv.x(gv.end))
	width := max(1, int(math.Ceil(float64((right-left)/px))))
	cats := make([]int, width)
	next := make([]int32, width+1) // next[k]: an empty column at k or after
	for lo := 0; lo < len(bars); {
		if gv.stop(0) {
			return
		}
		hi := lo
		for hi < len(bars) && bars[hi].row == bars[lo].row {
			hi++
		}
		for k := range next {
			next[k] = int32(k)
		}
		for k := range cats {
			cats[k] = -1
		}
		empty := func(k int) int {
			for int(next[k]) != k {
				next[k] = next[next[k]]
				k = int(next[k])
			}
			return k
		}
		for _, b := range bars[lo:hi] {
			s := gv.t.States.At(int(b.state))
			k0 := min(width-1, max(0, column(tx(gv.x(max(s.Start, gv.start))))))
			k1 := min(width, max(k0+1, column(tx(gv.x(min(s.End, gv.end)))+px-1e-9)))
			cat := gv.group.Of[rows.Category(&s)]
			for k := empty(k0); k < k1; k = empty(k) {
				cats[k] = cat
				next[k] = int32(k + 1)
			}
		}
		for k := 0; k < width; {
			j := k + 1
			for j < width && cats[j] == cats[k] {
				j++
			}
			if cats[k] >= 0 {
				fill(bars[lo].row, ganttFloorDepth, left+vg.Length(k)*px, min(left+vg.Length(j)*px, right), cats[k])
			}
			k = j
		}
		lo = hi
	}
}
