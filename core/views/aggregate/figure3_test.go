package aggregate

import (
	"fmt"
	"math"
	"sort"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/hier"
)

// figure3 is an artificial trace like Dosimont et al. 2014's Figure 3: 12 resources in
// 3 clusters of 4 (S_A, S_B, S_C), 20 slices, 2 states (rho and 1-rho),
// made of the patterns of Figure 3.d:
//
//	slices 0-1   homogeneous in time, heterogeneous in space
//	slices 2-4   homogeneous in time, heterogeneous in space except S_A
//	slices 5-6   homogeneous in time and, per cluster, in space
//	slice  7     homogeneous
//	slices 8-19  S_A homogeneous in space, not in time (3 phases); S_B
//	             homogeneous; in S_C two resources change once, two stay
func figure3() Input {
	b := hier.NewBuilder("root")
	for c, name := range []string{"A", "B", "C"} {
		cl := b.Add(0, "S_"+name)
		for r := 0; r < 4; r++ {
			b.Add(cl, fmt.Sprintf("s%d", 4*c+r+1))
		}
	}
	tree, _ := b.Build()
	const T = 20
	rho := func(r, t int) float64 {
		c := r / 4
		switch {
		case t <= 1:
			return 0.1 + 0.07*float64(r)
		case t <= 4:
			return [3]float64{0.5, 0.15 + 0.2*float64(r-4), 0.9 - 0.2*float64(r-8)}[c]
		case t <= 6:
			return [3]float64{0.2, 0.6, 0.95}[c]
		case t == 7:
			return 0.4
		case c == 0:
			return [3]float64{0.1, 0.9, 0.5}[(t-8)/4]
		case c == 1:
			return 0.7
		case r <= 9 && t <= 13:
			return 0.3
		case r <= 9:
			return 0.8
		}
		return 0.6
	}
	in := Input{Tree: tree, Slices: T, States: 2, Values: make([]float64, 12*T*2)}
	for r := 0; r < 12; r++ {
		for t := 0; t < T; t++ {
			in.Values[(r*T+t)*2] = rho(r, t)
			in.Values[(r*T+t)*2+1] = 1 - rho(r, t)
		}
	}
	return in
}

// isProduct reports whether parts are the Cartesian product of one cut of
// the hierarchy and one partition of time.
func isProduct(parts []Part) bool {
	byInterval := map[[2]int32][]int32{}
	for _, p := range parts {
		k := [2]int32{p.First, p.Last}
		byInterval[k] = append(byInterval[k], p.Node)
	}
	var first []int32
	for _, nodes := range byInterval {
		sort.Slice(nodes, func(a, b int) bool { return nodes[a] < nodes[b] })
		if first == nil {
			first = nodes
		}
		if fmt.Sprint(nodes) != fmt.Sprint(first) {
			return false
		}
	}
	return true // the parts cover every cell once, so the intervals tile time
}

// bestProduct returns the best pIC over products of a hierarchy cut and a
// time partition: for each cut (hierarchyCuts), the best shared time
// partition by a dynamic program over prefixes.
func bestProduct(st *Spatiotemporal, p float64) float64 {
	in := st.in
	T := in.Slices
	best := math.Inf(-1)
	for _, cut := range hierarchyCuts(in.Tree, 0, 0, T-1) {
		value := func(i, j int) float64 {
			v := 0.0
			for _, pt := range cut {
				g, l := st.PartQuality(pt.Node, i, j)
				v += p*g - (1-p)*l
			}
			return v
		}
		prefix := make([]float64, T+1) // prefix[j]: best over slices 0..j-1
		for j := 1; j <= T; j++ {
			prefix[j] = math.Inf(-1)
			for i := 0; i < j; i++ {
				prefix[j] = math.Max(prefix[j], prefix[i]+value(i, j-1))
			}
		}
		best = math.Max(best, prefix[T])
	}
	return best
}

func TestFigure3SpatiotemporalIsNotSpatialTimesTemporal(t *testing.T) {
	in := figure3()
	st, err := NewSpatiotemporal(in, Options{Normalize: true})
	if err != nil {
		t.Fatal(err)
	}
	levels, err := SignificantExact(st, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The first level is the microscopic view, optimal at p = 0 only.
	if l := levels[0]; l.Partition.NumParts != 240 || l.PHigh != 0 {
		t.Fatalf("the first level has %d aggregates up to p = %v, want the 240 cells up to 0", l.Partition.NumParts, l.PHigh)
	}
	// The next keeps exactly the homogeneous areas whole: the patterns
	// the trace was made of.
	first := levels[1]
	p := (first.PLow + first.PHigh) / 2
	part, err := st.Solve(p)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]int32{}
	for n := 0; n < in.Tree.Len(); n++ {
		names[in.Tree.Names[n]] = int32(n)
	}
	var want []Part
	add := func(name string, i, j int32) { want = append(want, Part{Node: names[name], First: i, Last: j}) }
	for r := 1; r <= 12; r++ {
		add(fmt.Sprintf("s%d", r), 0, 1)
		if r > 4 {
			add(fmt.Sprintf("s%d", r), 2, 4)
		}
	}
	add("S_A", 2, 4)
	for _, c := range []string{"S_A", "S_B", "S_C"} {
		add(c, 5, 6)
	}
	add("root", 7, 7)
	add("S_A", 8, 11)
	add("S_A", 12, 15)
	add("S_A", 16, 19)
	add("S_B", 8, 19)
	for _, r := range []string{"s9", "s10"} {
		add(r, 8, 13)
		add(r, 14, 19)
	}
	add("s11", 8, 19)
	add("s12", 8, 19)
	if key(part.Parts) != key(want) {
		t.Fatalf("at p = %v the optimum is\n%s\nwant\n%s", p, key(part.Parts), key(want))
	}
	if isProduct(part.Parts) {
		t.Fatal("the optimum is a product of a spatial and a temporal partition")
	}
	// No product of a hierarchy cut and a time partition comes close.
	prod := bestProduct(st, p)
	if !(part.Value > prod+1e-6) {
		t.Fatalf("pIC %v, best product %v", part.Value, prod)
	}
	t.Logf("p = %.4g: %d aggregates, pIC %.6g; best product of a spatial and a temporal partition: %.6g", p, len(part.Parts), part.Value, prod)
	// The optimum is not a product at most p where it has several parts.
	products := 0
	for _, l := range levels {
		if isProduct(l.Partition.Parts) {
			products++
		}
	}
	t.Logf("%d of %d levels are products", products, len(levels))
}
