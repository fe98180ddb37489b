package rocprof_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/macroscope-hpc/macroscope/core/readers/rocprof"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// ExampleReadCSV reads the CSV files of one rocprofv3 run, its API trace
// and its kernel trace (CSVFormat, given one of them, finds the others
// beside it): the launch becomes a link from the thread to the queue.
func ExampleReadCSV() {
	dir, _ := os.MkdirTemp("", "rocprof")
	defer os.RemoveAll(dir)
	api := filepath.Join(dir, "42_hip_api_trace.csv")
	os.WriteFile(api, []byte(
		`"Domain","Function","Process_Id","Thread_Id","Correlation_Id","Start_Timestamp","End_Timestamp"`+"\n"+
			`"HIP_RUNTIME_API_EXT","hipLaunchKernel",42,42,1,1000,1500`+"\n"), 0o644)
	kernels := filepath.Join(dir, "42_kernel_trace.csv")
	os.WriteFile(kernels, []byte(
		`"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp"`+"\n"+
			`"KERNEL_DISPATCH","Agent 2",1,0,42,1,7,"saxpy(float, float*)",1,2000,2600`+"\n"), 0o644)

	files := []string{api, kernels}
	tr := trace.New()
	if err := rocprof.ReadCSV(files, false, tr, trace.ReadOptions{}); err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range tr.States.All() {
		fmt.Printf("%s on %s: %s from %d to %d ns\n", tr.Types[s.Type].Name, tr.Containers[s.Container].Name,
			tr.Values[s.Value].Name, s.Start, s.End)
	}
	l := tr.Links.At(0)
	fmt.Printf("%s: %s -> %s\n", tr.Types[l.Type].Name, tr.Containers[l.From].Name, tr.Containers[l.To].Name)
	// Output:
	// HIP API on Thread 42: hipLaunchKernel from 1000 to 1500 ns
	// Kernel on Queue 1: saxpy(float, float*) from 2000 to 2600 ns
	// Launch: Thread 42 -> Queue 1
}

// ExampleRocpdFormat reads a rocprofv3 rocpd database (ROCm 7's default
// output; here two runs merged in one file) and counts what it holds.
func ExampleRocpdFormat() {
	src, err := rocprof.RocpdFormat.Open(filepath.Join("testdata", "results.db"), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	tr := trace.New()
	if err := src.Read(tr, trace.ReadOptions{}); err != nil {
		fmt.Println(err)
		return
	}
	count := map[string]int{}
	for _, s := range tr.States.All() {
		count[tr.Types[s.Type].Name]++
	}
	fmt.Println(count, tr.Links.Len(), "launches")
	// Output:
	// map[HIP API:70 HSA API:12 Kernel:24 Marker:12 Memory copy:24] 48 launches
}
