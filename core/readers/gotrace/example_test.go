package gotrace_test

import (
	"fmt"

	"github.com/macroscope-hpc/macroscope/core/readers/gotrace"
	"github.com/macroscope-hpc/macroscope/core/views/kaleido"
)

// ExampleReadFile reads the trace of a program computing fib(4) with a
// goroutine per call, and draws its goroutine spawn tree.
func ExampleReadFile() {
	tr, err := gotrace.ReadFile("testdata/fib4.trace")
	if err != nil {
		fmt.Println(err)
		return
	}
	tree, err := kaleido.FromSpawnLinks(tr, gotrace.LinkSpawn)
	if err != nil {
		fmt.Println(err)
		return
	}
	var show func(v int32, indent string)
	show = func(v int32, indent string) {
		if name := tree.Procedures[tree.Procedure[v]]; name == "main.fib" || name == "G1 main.main" {
			fmt.Println(indent + name)
		}
		tree.Children(v, func(c int32) bool {
			show(c, indent+"  ")
			return true
		})
	}
	show(0, "")
	// Output:
	//   G1 main.main
	//     main.fib
	//       main.fib
	//         main.fib
	//           main.fib
	//           main.fib
	//         main.fib
	//       main.fib
	//         main.fib
	//         main.fib
}
