package rocprof

import (
	"bytes"
	"errors"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// checkFuzzError fails unless err is nil or a FormatError naming the input.
func checkFuzzError(t *testing.T, err error, name string) {
	var fe *errs.FormatError
	if err != nil && (!errors.As(err, &fe) || fe.File != name) {
		t.Fatalf("error %v (%T) is not a FormatError naming %s", err, err, name)
	}
}

// FuzzCSV reads arbitrary text as a rocprofv3 CSV file and as a rocprof
// v1/v2 file: a FormatError or a trace, never a panic, and every state
// delivered ends at or after its start.
func FuzzCSV(f *testing.F) {
	readertest.BoundMinimization(f)
	f.Add([]byte(kernelHeader + `"KERNEL_DISPATCH","Agent 3",5,0,8,1,1,"k(int, float)",2,130,140` + "\n"))
	f.Add([]byte(apiHeader + `"HIP_RUNTIME_API","hipMemcpy",7,8,1,100,200` + "\n" + `"MARKER_CORE_API","m",7,8,2,150,150` + "\n" +
		`"HSA_CORE_API","x",7,8,3,120,300` + "\n"))
	f.Add([]byte(`"Kind","Direction","Stream_Id","Source_Agent_Id","Destination_Agent_Id","Correlation_Id","Start_Timestamp","End_Timestamp"` + "\n" +
		`"MEMORY_COPY","MEMORY_COPY_HOST_TO_DEVICE",0,"Agent 0","Agent 4",1,1057963336487172,1057963336564212` + "\n"))
	f.Add([]byte("Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,DispatchNs,BeginNs,EndNs,CompleteNs\n0,\"k\",0,0,0,1,1,5,10,20,25\n"))
	f.Add([]byte("Dispatch_ID,GPU_ID,Queue_ID,PID,TID,Kernel_Name,Start_Timestamp,End_Timestamp,Correlation_ID\n1,2,1,3,3,\"v\",10,9,0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4<<10 {
			return
		}
		for _, legacy := range []bool{false, true} {
			tr := trace.New()
			var err error
			if legacy {
				err = readLegacy(csvFile{path: "fuzz.csv", data: data}, tr, trace.ReadOptions{Notes: &trace.Notes{}})
			} else {
				err = readCSV([]csvFile{{path: "fuzz_kernel_trace.csv", data: data}}, tr, trace.ReadOptions{Notes: &trace.Notes{}})
			}
			name := "fuzz.csv"
			if !legacy {
				name = "fuzz_kernel_trace.csv"
			}
			checkFuzzError(t, err, name)
			for _, s := range tr.States.All() {
				if s.End < s.Start {
					t.Fatalf("state %+v ends before it starts", s)
				}
			}
		}
	})
}

// FuzzJSON reads arbitrary text as rocprofv3 JSON.
func FuzzJSON(f *testing.F) {
	readertest.BoundMinimization(f)
	f.Add([]byte(syntheticJSON))
	f.Add([]byte(`{"rocprofiler-sdk-tool": [{"buffer_records": {"kernel_dispatch": [{"start_timestamp": 1, "end_timestamp": 2}]}}]}`))
	f.Add([]byte(`{"rocprofiler-sdk-tool": []}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4<<10 {
			return
		}
		tr := trace.New()
		err := readJSON("fuzz.json", bytes.NewReader(data), &ingest.Counter{}, int64(len(data)), tr, trace.ReadOptions{Notes: &trace.Notes{}})
		checkFuzzError(t, err, "fuzz.json")
		for _, s := range tr.States.All() {
			if s.End < s.Start {
				t.Fatalf("state %+v ends before it starts", s)
			}
		}
	})
}
