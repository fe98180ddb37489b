package compare

import (
	"math"
	"sort"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
)

// Row is a footprint of the differences table: a resource node (of
// Set.Resources) over slices First..Last, for every run.
type Row struct {
	Node        int32
	First, Last int32
	// Split tells that the optimal partition keeps the runs apart there:
	// with the run under each resource, each run has parts of its own;
	// with the runs at the top, their parts differ.
	Split bool
}

// PartitionRows returns the rows of a partition of the set's model: the
// common refinement of the runs' footprints (where every run's parts
// agree, the part itself; where the runs were kept apart, the pieces
// their parts cut each other into), in the order of the resource
// hierarchy, then time.
func (s *Set) PartitionRows(p *aggregate.Partition) []Row {
	R, L := len(s.Runs), len(s.Resources.Leaves)
	type piece struct {
		node        int32 // resource node
		first, last int32
		own         bool // a part of this run alone
		part        int32
	}
	lists := make([][]piece, R*L) // by (leaf, run)
	for i, pt := range p.Parts {
		node, run := s.NodeResource[pt.Node], s.NodeRun[pt.Node]
		pc := piece{node, pt.First, pt.Last, run >= 0, int32(i)}
		lo, hi := s.Resources.LeafLo[node], s.Resources.LeafHi[node]
		for l := lo; l < hi; l++ {
			if run >= 0 {
				lists[int(l)*R+int(run)] = append(lists[int(l)*R+int(run)], pc)
				continue
			}
			for r := 0; r < R; r++ {
				lists[int(l)*R+r] = append(lists[int(l)*R+r], pc)
			}
		}
	}
	var rows []Row
	cursor := make([]int, R)
	for l := 0; l < L; l++ {
		runs := lists[l*R : (l+1)*R]
		for r := range runs {
			sort.Slice(runs[r], func(i, j int) bool { return runs[r][i].first < runs[r][j].first })
			cursor[r] = 0
		}
		for t := int32(0); t < int32(s.Slices); {
			deep := int32(-1)
			end := int32(s.Slices - 1)
			split, same := false, true
			var firstPart int32 = -1
			for r := range runs {
				for cursor[r] < len(runs[r]) && runs[r][cursor[r]].last < t {
					cursor[r]++
				}
				pc := runs[r][cursor[r]]
				if deep < 0 || s.Resources.Depth[pc.node] > s.Resources.Depth[deep] {
					deep = pc.node
				}
				end = min(end, pc.last)
				split = split || pc.own
				if firstPart < 0 {
					firstPart = pc.part
				} else if pc.part != firstPart {
					same = false
				}
			}
			if s.Placement == AtTop {
				split = !same
			}
			if s.Resources.LeafLo[deep] == int32(l) {
				rows = append(rows, Row{Node: deep, First: t, Last: end, Split: split})
			}
			t = end + 1
		}
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].Node != rows[j].Node {
			return rows[i].Node < rows[j].Node
		}
		return rows[i].First < rows[j].First
	})
	return rows
}

// Phase is a range of slices, First..Last inclusive.
type Phase struct{ First, Last int32 }

// NodeRows returns a row for every node of the resource hierarchy over
// each phase (the whole window when phases is empty), in preorder.
func (s *Set) NodeRows(phases []Phase) ([]Row, error) {
	if len(phases) == 0 {
		phases = []Phase{{0, int32(s.Slices - 1)}}
	}
	for _, ph := range phases {
		if ph.First < 0 || ph.Last < ph.First || int(ph.Last) >= s.Slices {
			return nil, errs.Argument("phases", "slices %d to %d are not within 0 to %d", ph.First, ph.Last, s.Slices-1)
		}
	}
	var rows []Row
	for n := int32(0); n < int32(s.Resources.Len()); n++ {
		for _, ph := range phases {
			rows = append(rows, Row{Node: n, First: ph.First, Last: ph.Last})
		}
	}
	return rows, nil
}

// EqualPhases cuts the window into k phases of (nearly) equal slices.
func EqualPhases(slices, k int) []Phase {
	k = max(1, min(k, slices))
	out := make([]Phase, k)
	for i := range out {
		out[i] = Phase{int32(i * slices / k), int32((i+1)*slices/k - 1)}
	}
	return out
}

// PartitionPhases returns the time ranges a temporal partition (every
// resource cut at the same instants: aggregate.KindTemporal) shares.
func PartitionPhases(p *aggregate.Partition, slices int) []Phase {
	cut := make([]bool, slices+1)
	cut[0], cut[slices] = true, true
	for _, pt := range p.Parts {
		cut[pt.First] = true
		cut[pt.Last+1] = true
	}
	var out []Phase
	first := 0
	for k := 1; k <= slices; k++ {
		if cut[k] {
			out = append(out, Phase{int32(first), int32(k - 1)})
			first = k
		}
	}
	return out
}

// sums holds, for every resource node and run, the prefix sums over the
// slices of the node's cells: pre[((node*R+run)*(T+1)+t)*X+x] is the sum
// of state x over the node's leaves and slices before t.
type sums struct {
	pre     []float64
	R, T, X int
}

func (s *Set) prefixSums() *sums {
	R, T, X := len(s.Runs), s.Slices, len(s.States)
	n := s.Resources.Len()
	ps := &sums{pre: make([]float64, n*R*(T+1)*X), R: R, T: T, X: X}
	for _, node := range s.Resources.PostOrder() {
		for r := 0; r < R; r++ {
			dst := ps.row(node, r)
			if s.Resources.IsLeaf(node) {
				leaf := int(s.Resources.LeafLo[node])
				for t := 0; t < T; t++ {
					cell := s.Cell(r, leaf, t)
					for x := 0; x < X; x++ {
						dst[(t+1)*X+x] = dst[t*X+x] + cell[x]
					}
				}
				continue
			}
			for _, c := range s.Resources.Children[node] {
				src := ps.row(c, r)
				for i := range dst {
					dst[i] += src[i]
				}
			}
		}
	}
	return ps
}

func (ps *sums) row(node int32, r int) []float64 {
	i := (int(node)*ps.R + r) * (ps.T + 1) * ps.X
	return ps.pre[i : i+(ps.T+1)*ps.X]
}

// over sets out to run r's sums of node over slices first..last.
func (ps *sums) over(node int32, r int, first, last int32, out []float64) {
	row := ps.row(node, r)
	a, b := int(first)*ps.X, (int(last)+1)*ps.X
	for x := range out {
		out[x] = math.Max(0, row[b+x]-row[a+x])
	}
}

// NodesOf merges the rows of one node that follow each other in time
// (PartitionRows' order): the resources a level shows, each over the
// maximal time ranges it shows them. The rows still partition the model.
// Time cuts the runs' own structure makes within a node (iterations,
// noise) are dropped, so that a difference spread over them is measured
// once, over all of them.
func NodesOf(rows []Row) []Row {
	var out []Row
	for _, r := range rows {
		if n := len(out); n > 0 && out[n-1].Node == r.Node && out[n-1].Last+1 == r.First {
			out[n-1].Last = r.Last
			out[n-1].Split = out[n-1].Split || r.Split
			continue
		}
		out = append(out, r)
	}
	return out
}
