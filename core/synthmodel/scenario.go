package synthmodel

import (
	"fmt"
	"slices"
	"sort"

	"github.com/macroscope-hpc/macroscope/core/aggregate"
	"github.com/macroscope-hpc/macroscope/core/hier"
	"github.com/macroscope-hpc/macroscope/core/micro"
)

// Scenario is the large-scale validation of Lamarche-Perrin et al. (section 5.3):
// processes grouped by machine, cluster, super-cluster and site, with two
// states (VS0, VS1). Every process spends a share r of its time in VS0 and
// 1-r in VS1, with
//
//	r = 1/2 + Noise * (+1 for even process indices, -1 for odd ones)
//
// the same pattern in every machine, so that machines, clusters and
// super-clusters are alike, except where heterogeneity is injected, one
// place per level, adding +Contrast or -Contrast by the parity of the
// children of:
//
//   - site-0: its super-clusters differ;
//   - site-1/sc-0: its clusters differ;
//   - site-2/sc-0/cluster-0: its machines differ;
//   - site-3/sc-0/cluster-0/machine-0: its processes differ.
//
// Shares are the same in every slice.
type Scenario struct {
	// Fanout gives the number of sites, then super-clusters per site,
	// clusters per super-cluster, machines per cluster and processes per
	// machine.
	Fanout   [5]int
	Slices   int
	Noise    float64
	Contrast float64
}

// Million is the scenario of Lamarche-Perrin et al.: 10 sites, 100 super-clusters, 1,000
// clusters, 10,000 machines and 1,000,000 processes, in one slice.
func Million() Scenario {
	return Scenario{Fanout: [5]int{10, 10, 10, 10, 100}, Slices: 1, Noise: 0.002, Contrast: 0.4}
}

var levelNames = [5]string{"site", "sc", "cluster", "machine", "proc"}

func (s Scenario) check() error {
	if s.Fanout[0] < 4 {
		return fmt.Errorf("synthmodel: the scenario needs at least 4 sites, got %d", s.Fanout[0])
	}
	for l, f := range s.Fanout[1:] {
		if f < 2 {
			return fmt.Errorf("synthmodel: the scenario needs at least 2 children per %s, got %d", levelNames[l], f)
		}
	}
	if s.Slices < 1 {
		return fmt.Errorf("synthmodel: %d slices", s.Slices)
	}
	if !(s.Noise >= 0 && s.Contrast >= 0 && s.Noise+s.Contrast <= 0.5) {
		return fmt.Errorf("synthmodel: noise %v and contrast %v must be non-negative and add up to at most 1/2", s.Noise, s.Contrast)
	}
	return nil
}

// Processes returns the number of processes (leaves).
func (s Scenario) Processes() int {
	n := 1
	for _, f := range s.Fanout {
		n *= f
	}
	return n
}

// Model builds the scenario's microscopic model.
func (s Scenario) Model() (*micro.Model, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	tree := balanced(s.Fanout[:], func(depth, i int) string { return fmt.Sprintf("%s-%d", levelNames[depth], i) })
	values := make([]float64, s.Processes()*s.Slices*2)
	sign := func(i int) float64 {
		if i%2 == 0 {
			return 1
		}
		return -1
	}
	leaf := 0
	var idx [5]int
	for idx[0] = 0; idx[0] < s.Fanout[0]; idx[0]++ {
		for idx[1] = 0; idx[1] < s.Fanout[1]; idx[1]++ {
			for idx[2] = 0; idx[2] < s.Fanout[2]; idx[2]++ {
				for idx[3] = 0; idx[3] < s.Fanout[3]; idx[3]++ {
					for idx[4] = 0; idx[4] < s.Fanout[4]; idx[4]++ {
						r := 0.5 + s.Noise*sign(idx[4])
						if l := s.heterogeneousLevel(idx); l >= 0 {
							r += s.Contrast * sign(idx[l+1])
						}
						for t := 0; t < s.Slices; t++ {
							values[(leaf*s.Slices+t)*2] = r
							values[(leaf*s.Slices+t)*2+1] = 1 - r
						}
						leaf++
					}
				}
			}
		}
	}
	return newModel(tree, []string{"VS0", "VS1"}, s.Slices, values), nil
}

// heterogeneousLevel returns the depth (0 = site) of the heterogeneous
// group the process at idx belongs to, or -1.
func (s Scenario) heterogeneousLevel(idx [5]int) int {
	site := idx[0]
	if site > 3 {
		return -1
	}
	for l := 1; l <= site; l++ {
		if idx[l] != 0 {
			return -1
		}
	}
	return site
}

// Detailed returns the paths of the aggregates of the cut that details
// exactly the injected heterogeneity: every group on the way to a
// heterogeneous group is split, a heterogeneous group is split into its
// (homogeneous) children, and everything else is aggregated as high as
// possible.
func (s Scenario) Detailed() []string {
	var out []string
	var walk func(path string, idx []int, depth int)
	walk = func(path string, idx []int, depth int) {
		site := idx[0]
		// The group at idx is on the way to (or is) site's heterogeneous
		// group when every index below the site is 0 and it is not deeper.
		onPath := site <= 3 && depth-1 <= site
		for _, i := range idx[1:] {
			onPath = onPath && i == 0
		}
		if !onPath {
			out = append(out, path)
			return
		}
		for i := 0; i < s.Fanout[depth]; i++ {
			walk(fmt.Sprintf("%s/%s-%d", path, levelNames[depth], i), append(idx, i), depth+1)
		}
	}
	for i := 0; i < s.Fanout[0]; i++ {
		walk(fmt.Sprintf("%s-%d", levelNames[0], i), []int{i}, 1)
	}
	return out
}

// DetailedCut builds the scenario's model and returns it with the optimal
// spatial cut (normalised measures) that details exactly the injected
// heterogeneity, the cut Detailed names, found among every optimal cut as p
// goes from 0 to 1. It fails if no optimal cut is that one.
func (s Scenario) DetailedCut() (*micro.Model, *aggregate.Partition, error) {
	m, err := s.Model()
	if err != nil {
		return nil, nil, err
	}
	e, err := aggregate.NewSpatial(Input(m), aggregate.Options{Normalize: true})
	if err != nil {
		return nil, nil, err
	}
	levels, err := aggregate.SignificantCompact(e, 0)
	if err != nil {
		return nil, nil, err
	}
	want := s.Detailed()
	sort.Strings(want)
	for _, l := range levels {
		if l.Partition.NumParts != len(want) {
			continue
		}
		part, err := e.Solve((l.PLow + l.PHigh) / 2)
		if err != nil {
			return nil, nil, err
		}
		got := make([]string, len(part.Parts))
		for i, p := range part.Parts {
			got[i] = m.Tree.Path(p.Node, "/")
		}
		sort.Strings(got)
		if slices.Equal(got, want) {
			return m, part, nil
		}
	}
	return nil, nil, fmt.Errorf("no optimal spatial cut details exactly the heterogeneity of %d processes", s.Processes())
}

// Paths returns the path of every node of the scenario's tree, as Detailed
// names them.
func Paths(t *hier.Tree) []string {
	out := make([]string, t.Len())
	for n := range out {
		out[n] = t.Path(int32(n), "/")
	}
	return out
}
