package kaleido

// Point is a position in pixels from the centre, y up.
type Point struct{ X, Y float64 }

// Point returns the position of view position i.
func (l *Layout) Point(i int32) Point { return Point{l.X[i], l.Y[i]} }

// Families calls yield for each family drawn: a drawn, uncondensed parent
// (a view position) and its displayed children in angular order, parents
// in preorder (inner families before their descendants').
func (l *Layout) Families(yield func(parent int32, children []int32) bool) {
	for i := range l.Kept {
		if !l.Drawn[i] || l.Collapsed[i] {
			continue
		}
		if kids := l.ShownChildren(int32(i)); len(kids) > 0 && !yield(int32(i), kids) {
			return
		}
	}
}

// RunPolygon returns the part of the family polygon (the parent, then its
// children in order) that belongs to children[first..last]: the polygon is
// cut from the parent to the midpoint between neighbouring children, so
// the parts of consecutive runs tile it and each run can be painted on its
// own. A single child gives a segment of two points.
func (l *Layout) RunPolygon(parent int32, children []int32, first, last int) []Point {
	p := l.Point(parent)
	if len(children) == 1 {
		return []Point{p, l.Point(children[0])}
	}
	pts := make([]Point, 0, last-first+4)
	pts = append(pts, p)
	if first > 0 {
		pts = append(pts, mid(l.Point(children[first-1]), l.Point(children[first])))
	}
	for _, c := range children[first : last+1] {
		pts = append(pts, l.Point(c))
	}
	if last < len(children)-1 {
		pts = append(pts, mid(l.Point(children[last]), l.Point(children[last+1])))
	}
	return pts
}

func mid(a, b Point) Point { return Point{(a.X + b.X) / 2, (a.Y + b.Y) / 2} }
