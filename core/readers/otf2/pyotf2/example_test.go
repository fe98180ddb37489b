package pyotf2_test

import (
	"encoding/json"
	"fmt"

	"github.com/macroscope-hpc/macroscope/core/readers/otf2/pyotf2"
)

// A rank's main thread calling MPI_Reduce to root 0 between 20 and 25 ns,
// as testdata/gen/hybrid_otf2.py reads it; WriteHybrid(t, run) would
// write it as an OTF2 archive.
func ExampleThread_Add() {
	th := pyotf2.Thread{Process: 1}
	th.Add(20, "enter", "MPI_Reduce")
	th.Add(20, "coll_begin")
	th.Add(25, "coll_end", "REDUCE", 0)
	th.Add(25, "leave", "MPI_Reduce")
	run := pyotf2.HybridRun{Duration: 30, Threads: []pyotf2.Thread{th}}
	js, _ := json.Marshal(run)
	fmt.Println(string(js))
	// Output:
	// {"duration":30,"threads":[{"process":1,"thread":0,"records":[[20,"enter","MPI_Reduce"],[20,"coll_begin"],[25,"coll_end","REDUCE",0],[25,"leave","MPI_Reduce"]]}]}
}
