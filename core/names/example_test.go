package names_test

import (
	"fmt"

	"github.com/macroscope-hpc/macroscope/core/names"
)

// Per-instance ids go, the name a person gives the instances stays; names
// that differ otherwise stay apart.
func Example() {
	for _, n := range []string{
		"aten::copy_, op_id = 998952",
		"ProfilerStep#5",
		"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)",
		"MPI_Sendrecv",
	} {
		fmt.Printf("%s (%s)\n", names.Group(n), names.Domain(n))
	}
	// Output:
	// aten::copy_ (aten)
	// ProfilerStep ()
	// vectorized_elementwise_kernel ()
	// MPI_Sendrecv (MPI)
}

// A trailing number after a space counts instances only when many names
// differ by it alone.
func ExampleGroups() {
	var slices []string
	for k := range 25 {
		slices = append(slices, fmt.Sprintf("DrawFrames %d", 1000+k))
	}
	fmt.Println(names.Groups(append(slices, "phase 1", "phase 2"))[24:])
	// Output: [DrawFrames phase 1 phase 2]
}
