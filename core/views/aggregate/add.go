package aggregate

import "unsafe"

// Adding a table of qualities to another is the dynamic program's most
// frequent operation after the search itself: a node adds up its
// children's best qualities over every interval, and a sweep adds up the
// lines of the children whose solution it reuses. sumTo does it four
// values per instruction where assembly is available (add_amd64.s);
// floating-point addition is exact to the lane, so the results are the
// same bits as sumToGeneric's.

// sumToGeneric sets dst[k] to a[k] + b[k] for every k of b; dst may be a.
func sumToGeneric(dst, a, b []float64) {
	dst, a = dst[:len(b)], a[:len(b)]
	for i, x := range b {
		dst[i] = a[i] + x
	}
}

// addTo adds src[k] to dst[k] for every k of src.
func addTo(dst, src []float64) { sumTo(dst, dst, src) }

// lineFloats returns the gains and losses of ls as one slice of floats,
// g then l for each line, sharing their memory.
func lineFloats(ls []line) []float64 {
	if len(ls) == 0 {
		return nil
	}
	return unsafe.Slice(&ls[0].g, 2*len(ls))
}

// intervalSumsGeneric sets sums (triangular index, see triIndex) to the
// sums of v over every interval of T slices, v's values being v[j*stride]
// for j < T: running forward from each start, never as differences,
//
//	sums(i,j) = sums(i,j-1) + v(j)        sums(j,j) = 0 + v(j)
//
// intervalSums does the same, four intervals per instruction where
// assembly is available.
func intervalSumsGeneric(sums, v []float64, stride, T int) {
	for j := 0; j < T; j++ {
		x := v[j*stride]
		col := sums[triIndex(0, j) : triIndex(0, j)+j+1]
		if j > 0 {
			prev := sums[triIndex(0, j-1) : triIndex(0, j-1)+j]
			col := col[:len(prev)]
			for i, a := range prev {
				col[i] = a + x
			}
		}
		col[j] = 0 + x
	}
}
