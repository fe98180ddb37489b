package arrowio

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/core/views/topology"
)

// TopologyNodesTable lists the nodes of a topology view (Schnorr, Legrand
// and Vincent 2012), one row each:
//
//	path               the container's path; "group [kind]" for an aggregate
//	name               the container's name; the group's for an aggregate
//	kind               the container type (HOST, LINK, ROUTER...)
//	group              the collapsed group of an aggregate; a resource's parent container
//	aggregated         whether the node stands for a collapsed group's resources of its kind
//	members            resources it stands for (1 for a resource)
//	capacity, usage    time averages of the capacity and utilization variables
//	                   over the window, summed over the members (NaN: no such variable)
//	capacity_integral, usage_integral   their integrals (value x seconds)
//	ratio              usage / capacity (NaN when unknown)
//	size               capacity over the largest of the kind's nodes, in [0, 1]
//	shape              square (hosts), diamond (links) or circle
//	x, y               position (NaN before the first layout)
//	charge             the node's charge in the layout
//
// meta goes into the schema's metadata.
func TopologyNodesTable(v *topology.View, meta map[string]string, mem memory.Allocator) arrow.RecordBatch {
	n := len(v.Nodes)
	c := newColumns(mem, n)
	path, name, group := make([]string, n), make([]string, n), make([]string, n)
	var kinds []string
	kindCode := map[string]int32{}
	kind, shape := make([]int32, n), make([]int32, n)
	agg := make([]bool, n)
	members := make([]int64, n)
	capacity, usage, capInt, useInt := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	ratio, size, x, y, charge := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i, nd := range v.Nodes {
		path[i], name[i], group[i] = nd.Path, nd.Name, nd.Group
		k, ok := kindCode[nd.Kind]
		if !ok {
			k = int32(len(kinds))
			kindCode[nd.Kind] = k
			kinds = append(kinds, nd.Kind)
		}
		kind[i], shape[i] = k, int32(nd.Shape)
		agg[i], members[i] = nd.Aggregated, int64(nd.Members)
		capacity[i], usage[i], capInt[i], useInt[i] = nd.CapacityMean, nd.UsageMean, nd.Capacity, nd.Usage
		ratio[i], size[i], x[i], y[i], charge[i] = nd.Ratio, nd.Size, nd.X, nd.Y, nd.Charge
	}
	c.strings("path", path)
	c.strings("name", name)
	c.categories("kind", kinds, kind)
	c.strings("group", group)
	c.bools("aggregated", agg)
	c.int64s("members", members)
	c.float64s("capacity", capacity)
	c.float64s("usage", usage)
	c.float64s("capacity_integral", capInt)
	c.float64s("usage_integral", useInt)
	c.float64s("ratio", ratio)
	c.float64s("size", size)
	shapes := []string{topology.Circle.String(), topology.Square.String(), topology.Diamond.String()}
	c.categories("shape", shapes, shape)
	c.float64s("x", x)
	c.float64s("y", y)
	c.float64s("charge", charge)
	return c.batch(meta)
}

// TopologyEdgesTable lists the edges of a topology view, one row each:
// from and to (node paths, as in TopologyNodesTable; each pair once, in
// node order), kind (the kinds of the ends, "HOST-LINK") and count (the
// trace links it stands for).
func TopologyEdgesTable(v *topology.View, meta map[string]string, mem memory.Allocator) arrow.RecordBatch {
	n := len(v.Edges)
	c := newColumns(mem, n)
	from, to := make([]string, n), make([]string, n)
	var kinds []string
	kindCode := map[string]int32{}
	kind := make([]int32, n)
	count := make([]int64, n)
	for i, e := range v.Edges {
		from[i], to[i] = v.Nodes[e.From].Path, v.Nodes[e.To].Path
		k, ok := kindCode[e.Kind]
		if !ok {
			k = int32(len(kinds))
			kindCode[e.Kind] = k
			kinds = append(kinds, e.Kind)
		}
		kind[i], count[i] = k, int64(e.Count)
	}
	c.strings("from", from)
	c.strings("to", to)
	c.categories("kind", kinds, kind)
	c.int64s("count", count)
	return c.batch(meta)
}
