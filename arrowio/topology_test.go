package arrowio

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/core/views/topology"
)

// The nodes and edges tables hold the view's values, column by column.
func TestTopologyTables(t *testing.T) {
	v := &topology.View{
		Nodes: []topology.Node{
			{Path: "s/h1", Name: "h1", Kind: "HOST", Group: "s", Members: 1, Capacity: 20, Usage: 5, CapacityMean: 2, UsageMean: 0.5,
				Ratio: 0.25, Size: 1, Shape: topology.Square, X: 1, Y: 2, Charge: 1},
			{Path: "t [LINK]", Name: "t", Kind: "LINK", Group: "t", Aggregated: true, Members: 3, Capacity: math.NaN(), Usage: math.NaN(),
				CapacityMean: math.NaN(), UsageMean: math.NaN(), Ratio: math.NaN(), Size: 0.5, Shape: topology.Diamond, X: -1, Y: 0, Charge: math.Sqrt(3)},
		},
		Edges: []topology.Edge{{From: 0, To: 1, Kind: "HOST-LINK", Count: 4}},
	}
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	nodes := TopologyNodesTable(v, map[string]string{"macroscope.start": "0"}, mem)
	defer nodes.Release()
	want := []string{"path", "name", "kind", "group", "aggregated", "members", "capacity", "usage", "capacity_integral",
		"usage_integral", "ratio", "size", "shape", "x", "y", "charge"}
	if int(nodes.NumCols()) != len(want) || nodes.NumRows() != 2 {
		t.Fatalf("schema %v, %d rows", nodes.Schema(), nodes.NumRows())
	}
	for i, name := range want {
		if nodes.Schema().Field(i).Name != name {
			t.Fatalf("column %d is %s, want %s", i, nodes.Schema().Field(i).Name, name)
		}
	}
	str := func(col int, row int) string {
		switch a := nodes.Column(col).(type) {
		case *array.String:
			return a.Value(row)
		case *array.Dictionary:
			return a.Dictionary().(*array.String).Value(a.GetValueIndex(row))
		}
		t.Fatalf("column %d is %T", col, nodes.Column(col))
		return ""
	}
	f64 := func(col, row int) float64 { return nodes.Column(col).(*array.Float64).Value(row) }
	if str(0, 1) != "t [LINK]" || str(2, 1) != "LINK" || str(12, 0) != "square" || str(12, 1) != "diamond" {
		t.Errorf("labels: %s %s %s %s", str(0, 1), str(2, 1), str(12, 0), str(12, 1))
	}
	if !nodes.Column(4).(*array.Boolean).Value(1) || nodes.Column(5).(*array.Int64).Value(1) != 3 {
		t.Error("aggregated, members")
	}
	// capacity is the time average, capacity_integral the integral.
	if f64(6, 0) != 2 || f64(7, 0) != 0.5 || f64(8, 0) != 20 || f64(9, 0) != 5 || f64(10, 0) != 0.25 || f64(13, 0) != 1 || f64(14, 0) != 2 {
		t.Error("values of the first node")
	}
	if !math.IsNaN(f64(6, 1)) || f64(15, 1) != math.Sqrt(3) {
		t.Error("values of the aggregate")
	}
	edges := TopologyEdgesTable(v, nil, mem)
	defer edges.Release()
	if edges.NumRows() != 1 || edges.Column(0).(*array.String).Value(0) != "s/h1" || edges.Column(1).(*array.String).Value(0) != "t [LINK]" ||
		edges.Column(3).(*array.Int64).Value(0) != 4 {
		t.Errorf("edges %v", edges)
	}
}
