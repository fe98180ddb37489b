package nsys_test

import (
	"fmt"
	"sort"

	"github.com/macroscope-hpc/macroscope/core/readers/nsys"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Read an export (nsys export --type sqlite report.nsys-rep) into memory
// and count the states of each kind.
func ExampleRead() {
	tr := trace.New()
	notes := &trace.Notes{}
	if err := nsys.Read("testdata/tiny.sqlite", tr, trace.ReadOptions{Notes: notes}); err != nil {
		fmt.Println(err)
		return
	}
	counts := map[string]int{}
	for _, s := range tr.States.All() {
		counts[tr.TypeName(s.Type)]++
	}
	var types []string
	for typ := range counts {
		types = append(types, typ)
	}
	sort.Strings(types)
	for _, typ := range types {
		fmt.Printf("%-28s %d\n", typ, counts[typ])
	}
	fmt.Println(tr.Links.Len(), "launch links,", tr.Events.Len(), "NVTX mark")
	for _, m := range notes.Messages() {
		fmt.Println(m)
	}
	// Output:
	// CUDA driver API              2
	// CUDA kernel                  4
	// CUDA memcpy                  1
	// CUDA memset                  1
	// CUDA runtime API             6
	// NCCL kernel                  1
	// NVTX push/pop range          2
	// NVTX push/pop range (NCCL)   1
	// NVTX start/end range         3
	// OS runtime                   1
	// 6 launch links, 1 NVTX mark
	// 1 CUDA kernel states overlap others on their stream without nesting: they are on overlap lanes, sibling containers named "<name> (overlap lane k)"
	// 2 NVTX start/end range states overlap others on their thread without nesting: they are on overlap lanes, sibling containers named "<name> (overlap lane k)"
	// skipped 2 rows of CUPTI_ACTIVITY_KIND_RUNTIME with a null time or an end before the start
	// skipped 1 NVTX category definitions (eventType 33)
	// skipped 1 rows of NVTX_EVENTS with a null time or an end before the start
	// skipped 2 rows of CUPTI_ACTIVITY_KIND_SYNCHRONIZATION without a device, context or stream
}
