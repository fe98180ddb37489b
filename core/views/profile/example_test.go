package profile_test

import (
	"fmt"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/views/commmatrix"
	"github.com/macroscope-hpc/macroscope/core/views/profile"
)

// The flat profile and load imbalance of an SMPI run where each rank in
// turn computes 3 s where the others compute 1 s before an
// MPI_Allreduce (waiting there 2 s when another computes longer), and a
// communication matrix.
func Example() {
	tr, err := formats.ReadFile("../../../testdata/critpath/cp_coll.trace", "paje")
	if err != nil {
		panic(err)
	}
	r, err := profile.Compute(tr, profile.Options{})
	if err != nil {
		panic(err)
	}
	for _, row := range r.Flat()[:2] {
		fmt.Printf("%s: %d states, %v exclusive, %.2f s per process\n", row.Name.Name, row.Count, row.Exclusive, row.ExclusiveMean)
	}
	imb := r.Imbalance(profile.Exclusive, 1)[0]
	fmt.Printf("%s: max/mean %.3f, slowest %v\n", imb.Name.Name, imb.Imbalance, imb.Top)

	// A 4 MiB message of another run.
	tr, err = formats.ReadFile("../../../testdata/critpath/cp_laterecv.trace", "paje")
	if err != nil {
		panic(err)
	}
	m, err := commmatrix.Compute(tr, commmatrix.Options{})
	if err != nil {
		panic(err)
	}
	for _, row := range m.Rows {
		fmt.Printf("%s -> %s: %d %s, %.0f bytes\n", row.Source, row.Destination, row.Count, row.Type, row.Bytes)
	}
	// Output:
	// PMPI_Allreduce: 12 states, 18.000099000 exclusive, 4.50 s per process
	// computing: 12 states, 18.000000000 exclusive, 4.50 s per process
	// PMPI_Allreduce: max/mean 1.333, slowest [rank-3]
	// rank-0 -> rank-1: 1 MPI_LINK, 4194304 bytes
}
