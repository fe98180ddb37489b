package aggregate

import "unsafe"

// Adding a table of qualities to another is the dynamic program's most
// frequent operation after the search itself: a node adds up its
// children's best qualities over every interval, and a sweep adds up the
// lines of the children whose solution it reuses. addTo does it four
// values per instruction where assembly is available (add_amd64.s);
// floating-point addition is exact to the lane, so the results are the
// same bits as addToGeneric's.

// addToGeneric adds src[k] to dst[k] for every k of src.
func addToGeneric(dst, src []float64) {
	dst = dst[:len(src)]
	for i, x := range src {
		dst[i] += x
	}
}

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
