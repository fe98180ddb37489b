package synthmodel

import (
	"fmt"
	"slices"
	"sort"

	"github.com/macroscope-hpc/macroscope/core/hier"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
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
// group per level, adding +Contrast or -Contrast by the parity of the
// group's children:
//
//   - site-0: its super-clusters differ;
//   - site-1/sc-0: its clusters differ;
//   - site-2/sc-0/cluster-0: its machines differ;
//   - site-3/sc-0/cluster-0/machine-0: its processes differ.
//
// A non-zero Seed draws another variant: each process's noise is uniform
// in [-Noise, +Noise], and the four heterogeneous groups are placed at
// random, in four distinct sites (Places tells where). Shares are the same
// in every slice.
type Scenario struct {
	// Fanout gives the number of sites, then super-clusters per site,
	// clusters per super-cluster, machines per cluster and processes per
	// machine.
	Fanout   [5]int
	Slices   int
	Noise    float64
	Contrast float64
	Seed     uint64
}

// Million is the scenario of Lamarche-Perrin et al.: 10 sites, 100 super-clusters, 1,000
// clusters, 10,000 machines and 1,000,000 processes, in one slice.
func Million() Scenario {
	return Scenario{Fanout: [5]int{10, 10, 10, 10, 100}, Slices: 1, Noise: 0.002, Contrast: 0.4}
}

// Wide is a scenario of 50,000 processes (5 sites, then 10 at each level
// below) in the given slices: its leaves, or its nodes, are more than
// three times trace.StopEvery, so a computation over them looks at its
// Cancel channel several times, yet the model builds in a fraction of a
// second. The cancel tests of the treemap and the overview share it.
func Wide(slices int) Scenario {
	return Scenario{Fanout: [5]int{5, 10, 10, 10, 10}, Slices: slices, Noise: 0.002, Contrast: 0.4}
}

// Places returns the indices of the heterogeneous groups: Places()[l][:l+1]
// are the site, super-cluster, cluster and machine indices of the group of
// depth l (0 = a site) whose children differ.
func (s Scenario) Places() [4][4]int {
	var out [4][4]int
	if s.Seed == 0 {
		for l := range out {
			out[l][0] = l
		}
		return out
	}
	rng := splitmix(s.Seed)
	sites := make([]int, s.Fanout[0])
	for i := range sites {
		sites[i] = i
	}
	for l := range out {
		j := l + int(rng.next()%uint64(len(sites)-l)) // partial Fisher-Yates: distinct sites
		sites[l], sites[j] = sites[j], sites[l]
		out[l][0] = sites[l]
		for d := 1; d <= l; d++ {
			out[l][d] = int(rng.next() % uint64(s.Fanout[d]))
		}
	}
	return out
}

// splitmix is the SplitMix64 generator: the same sequence on every
// platform and Go version.
type splitmix uint64

func (r *splitmix) next() uint64 {
	*r += 0x9e3779b97f4a7c15
	z := uint64(*r)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// uniform returns a number uniform in [-1, 1).
func (r *splitmix) uniform() float64 {
	return float64(r.next()>>11)/(1<<52) - 1
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
	places := s.Places()
	rng := splitmix(s.Seed ^ 0x5eed)
	var idx [5]int
	for idx[0] = 0; idx[0] < s.Fanout[0]; idx[0]++ {
		for idx[1] = 0; idx[1] < s.Fanout[1]; idx[1]++ {
			for idx[2] = 0; idx[2] < s.Fanout[2]; idx[2]++ {
				for idx[3] = 0; idx[3] < s.Fanout[3]; idx[3]++ {
					for idx[4] = 0; idx[4] < s.Fanout[4]; idx[4]++ {
						r := 0.5 + s.Noise*sign(idx[4])
						if s.Seed != 0 {
							r = 0.5 + s.Noise*rng.uniform()
						}
						if l := heterogeneousLevel(&places, idx); l >= 0 {
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
func heterogeneousLevel(places *[4][4]int, idx [5]int) int {
	for l := range places {
		if slices.Equal(places[l][:l+1], idx[:l+1]) {
			return l
		}
	}
	return -1
}

// Detailed returns the paths of the aggregates of the cut that details
// exactly the injected heterogeneity: every group on the way to a
// heterogeneous group is split, a heterogeneous group is split into its
// (homogeneous) children, and everything else is aggregated as high as
// possible.
func (s Scenario) Detailed() []string {
	places := s.Places()
	var out []string
	var walk func(path string, idx []int)
	walk = func(path string, idx []int) {
		// The group at idx is split when it is a heterogeneous group or
		// one of their ancestors.
		split := false
		for l := range places {
			split = split || (len(idx) <= l+1 && slices.Equal(places[l][:len(idx)], idx))
		}
		if !split {
			out = append(out, path)
			return
		}
		depth := len(idx)
		for i := 0; i < s.Fanout[depth]; i++ {
			walk(fmt.Sprintf("%s/%s-%d", path, levelNames[depth], i), append(idx, i))
		}
	}
	for i := 0; i < s.Fanout[0]; i++ {
		walk(fmt.Sprintf("%s-%d", levelNames[0], i), []int{i})
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

// LeafParts is the partition of m into its leaves, each over the whole
// window: the largest spatial partition a treemap or a table is asked of.
func LeafParts(m *micro.Model) *aggregate.Partition {
	p := &aggregate.Partition{Parts: make([]aggregate.Part, 0, len(m.Tree.Leaves))}
	for _, leaf := range m.Tree.Leaves {
		p.Parts = append(p.Parts, aggregate.Part{Node: leaf, Last: int32(m.Slices - 1)})
	}
	return p
}

// CellParts is the finest partition of m, a part for each leaf and
// slice: the most aggregates an overview or the moments are asked of.
func CellParts(m *micro.Model) *aggregate.Partition {
	p := &aggregate.Partition{Parts: make([]aggregate.Part, 0, len(m.Tree.Leaves)*m.Slices)}
	for _, leaf := range m.Tree.Leaves {
		for k := range int32(m.Slices) {
			p.Parts = append(p.Parts, aggregate.Part{Node: leaf, First: k, Last: k})
		}
	}
	return p
}
