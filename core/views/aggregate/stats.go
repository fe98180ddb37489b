package aggregate

// MeanValues sets out[x] to the mean value of state x over the cells of
// part p (V_x / |A|): for proportions, the share of the block's time spent
// in x. out must have in.States elements.
func MeanValues(in Input, p Part, out []float64) {
	clear(out)
	t := in.Tree
	if in.isSparse() {
		meanValuesSparse(in, p, out)
	} else {
		for leaf := t.LeafLo[p.Node]; leaf < t.LeafHi[p.Node]; leaf++ {
			for s := p.First; s <= p.Last; s++ {
				row := in.Values[(int(leaf)*in.Slices+int(s))*in.States:][:in.States]
				for x, v := range row {
					out[x] += v
				}
			}
		}
	}
	size := float64(t.NumLeaves(p.Node) * int(p.Last-p.First+1))
	for x := range out {
		out[x] /= size
	}
}

// Mode returns the state with the largest mean value (the first on ties)
// and that value.
func Mode(means []float64) (state int, value float64) {
	for x, v := range means {
		if v > value || x == 0 {
			state, value = x, v
		}
	}
	return state, value
}
