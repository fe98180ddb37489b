// Package treemap lays hierarchies out as nested rectangles whose areas are
// proportional to values: the squarified treemap of Bruls, Huizing and van
// Wijk (2000), nested over a hierarchy with optional padding, and the
// treemap of an optimal aggregation (Lamarche-Perrin et al. 2014), where
// every aggregate is a rectangle inside those of its ancestors.
//
// Coordinates have y pointing up: a Rect's (X, Y) is its lower-left
// corner. Values must be finite and non-negative; a zero value gets no
// area (a zero-size Rect at the corner of its container), every positive
// value gets exactly its share of the area.
package treemap

import (
	"cmp"
	"math"
	"slices"
	"strconv"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// Rect is an axis-aligned rectangle: lower-left corner (X, Y), width W and
// height H.
type Rect struct{ X, Y, W, H float64 }

// Area returns W*H.
func (r Rect) Area() float64 { return r.W * r.H }

// Aspect returns the aspect ratio max(W/H, H/W), at least 1; +Inf for a
// rectangle of zero width or height.
func (r Rect) Aspect() float64 {
	if r.W <= 0 || r.H <= 0 {
		return math.Inf(1)
	}
	return max(r.W/r.H, r.H/r.W)
}

// Contains reports whether o lies inside r, allowing tol of rounding.
func (r Rect) Contains(o Rect, tol float64) bool {
	return o.X >= r.X-tol && o.Y >= r.Y-tol && o.X+o.W <= r.X+r.W+tol && o.Y+o.H <= r.Y+r.H+tol
}

func (r Rect) check(name string) error {
	for _, v := range [...]float64{r.X, r.Y, r.W, r.H} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return errs.Argument(name, "the rectangle %+v is not finite", r)
		}
	}
	if r.W < 0 || r.H < 0 {
		return errs.Argument(name, "the rectangle %+v has a negative side", r)
	}
	return nil
}

// checkValue rejects what cannot be an area: NaN, infinities, negatives.
func checkValue(v float64, where func() string) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return errs.Argument("values", "%s is %v: values must be finite and non-negative", where(), v)
	}
	return nil
}

// Squarify lays values out in r with the squarified algorithm of Bruls,
// Huizing and van Wijk (2000) and returns the rectangle of each value, in
// the order of values.
//
// Values are taken largest first (ties in index order). Each row is laid
// along the shorter side of the space left, and takes the next value as
// long as that does not make the worst aspect ratio of its rectangles
// worse; then it is fixed against the side of the space left (a column at
// the left when the space is wider than tall, a strip at the top
// otherwise) and the next row starts in what remains. Every positive value
// is placed, whatever the ratios (a row whose ratio reaches exactly 1 goes
// on like any other), and the rectangles tile r exactly: their areas are
// proportional to the values and add up to r's area up to rounding.
//
// Zero values get a zero-size rectangle at r's lower-left corner. A NaN,
// infinite or negative value, or a rectangle that is not finite or has a
// negative side, is an *errs.ArgumentError.
func Squarify(values []float64, r Rect) ([]Rect, error) {
	rects, _, err := SquarifyRows(values, r)
	return rects, err
}

// SquarifyRows is Squarify that also returns the rows, in the order they
// were laid out, each as the indices of its values.
func SquarifyRows(values []float64, r Rect) ([]Rect, [][]int, error) {
	if err := r.check("rect"); err != nil {
		return nil, nil, err
	}
	items := make([]int32, 0, len(values))
	for i, v := range values {
		if err := checkValue(v, func() string { return "value " + strconv.Itoa(i) }); err != nil {
			return nil, nil, err
		}
		if v > 0 {
			items = append(items, int32(i))
		}
	}
	sortItems(items, values)
	rects := make([]Rect, len(values))
	for i := range rects {
		rects[i] = Rect{X: r.X, Y: r.Y}
	}
	var rows [][]int
	var l layouter
	l.layout(items, values, r, rects, func(row []int32) {
		out := make([]int, len(row))
		for k, it := range row {
			out[k] = int(it)
		}
		rows = append(rows, out)
	})
	return rects, rows, nil
}

// sortItems orders items by value, largest first, ties by index. Values
// are copied next to their items first: sorting then reads memory in
// order.
func sortItems(items []int32, values []float64) {
	type keyed struct {
		v float64
		i int32
	}
	k := make([]keyed, len(items))
	for j, it := range items {
		k[j] = keyed{values[it], it}
	}
	slices.SortFunc(k, func(a, b keyed) int {
		switch {
		case a.v > b.v:
			return -1
		case a.v < b.v:
			return 1
		}
		return cmp.Compare(a.i, b.i)
	})
	for j := range k {
		items[j] = k[j].i
	}
}

// layouter holds the scratch space of the squarified layout, reused from
// one group to the next.
type layouter struct {
	suffix []float64
}

// layout places items (indices into values, sorted largest first, all
// positive) in r, writing out[item]. onRow, if not nil, receives each row.
//
// Rows partition the space left exactly: a row's thickness is its share
// of the values still to place times the length of the space left, and
// the last row takes all of it; within a row, the last rectangle ends at
// the row's end. The remaining totals are suffix sums taken smallest
// first, so they stay accurate down to the last, smallest values.
func (l *layouter) layout(items []int32, values []float64, r Rect, out []Rect, onRow func([]int32)) {
	n := len(items)
	if n == 0 {
		return
	}
	if cap(l.suffix) < n+1 {
		l.suffix = make([]float64, n+1)
	}
	suffix := l.suffix[:n+1]
	suffix[n] = 0
	for i := n - 1; i >= 0; i-- {
		suffix[i] = suffix[i+1] + values[items[i]]
	}
	rem := r
	for i := 0; i < n; {
		wide := rem.W >= rem.H
		short, long := rem.H, rem.W
		if !wide {
			short, long = rem.W, rem.H
		}
		// Values to area units for this row: the space left holds exactly
		// what is left to place.
		scale := short * long / suffix[i]
		s2 := short * short
		first := values[items[i]] * scale
		sum := first
		worst := aspectWorst(s2, sum, first, first)
		j := i + 1
		for ; j < n; j++ {
			a := values[items[j]] * scale
			w := aspectWorst(s2, sum+a, first, a)
			if w > worst {
				break
			}
			sum, worst = sum+a, w
		}
		row := items[i:j]
		var rowTotal float64
		for _, it := range row {
			rowTotal += values[it]
		}
		t := long * (rowTotal / suffix[i])
		if j == n || t > long {
			t = long
		}
		// Rectangles along the short side, in order, the last one ending
		// exactly at the row's end.
		pos := 0.0
		for k, it := range row {
			length := short * (values[it] / rowTotal)
			end := pos + length
			if k == len(row)-1 || end > short {
				end = short
			}
			if wide { // a column at the left, from the top down
				out[it] = Rect{X: rem.X, Y: rem.Y + rem.H - end, W: t, H: end - pos}
			} else { // a strip at the top, from the left
				out[it] = Rect{X: rem.X + pos, Y: rem.Y + rem.H - t, W: end - pos, H: t}
			}
			pos = end
		}
		if onRow != nil {
			onRow(row)
		}
		if wide {
			rem.X += t
			rem.W = max(rem.W-t, 0)
		} else {
			rem.H = max(rem.H-t, 0)
		}
		i = j
	}
}

// aspectWorst is the worst aspect ratio of a row of total area sum along a
// side of squared length s2, whose largest and smallest areas are big and
// small: max(s2 big / sum^2, sum^2 / (s2 small)) (Bruls et al.'s worst).
func aspectWorst(s2, sum, big, small float64) float64 {
	sum2 := sum * sum
	return max(s2*big/sum2, sum2/(s2*small))
}

// Split divides r into strips, one per fraction, along its longer side
// (from the left, or from the top when r is taller than wide): strip k is
// fractions[k] of r. Fractions must be finite and non-negative; when they
// add up to less than 1 the rest of r is left over at the end, and when
// they add up to more, they are scaled down to fill r exactly.
func Split(r Rect, fractions []float64) ([]Rect, error) {
	if err := r.check("rect"); err != nil {
		return nil, err
	}
	var total float64
	for i, f := range fractions {
		if err := checkValue(f, func() string { return "fraction " + strconv.Itoa(i) }); err != nil {
			return nil, err
		}
		total += f
	}
	scale := 1.0
	if total > 1 {
		scale = 1 / total
	}
	out := make([]Rect, len(fractions))
	wide := r.W >= r.H
	pos := 0.0
	for k, f := range fractions {
		f *= scale
		if wide {
			out[k] = Rect{X: r.X + pos*r.W, Y: r.Y, W: f * r.W, H: r.H}
		} else {
			out[k] = Rect{X: r.X, Y: r.Y + r.H - (pos+f)*r.H, W: r.W, H: f * r.H}
		}
		pos += f
	}
	return out, nil
}
