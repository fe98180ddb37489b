package formats

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// fuzzSeeds are small inputs of the text formats and the first bytes of
// the binary ones, so that every sniffer and reader sees its own kind.
var fuzzSeeds = []string{
	"%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n0 P 0 P\n",
	`[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2}]`,
	`{"rocprofiler-sdk-tool": [{"buffer_records": {"kernel_dispatch": []}}]}`,
	"#Paraver (x):1000_ns:1(1):1:1(1:1)\n1:1:1:1:1:0:1000:1\n",
	`"Kind","Agent_Id","Queue_Id","Kernel_Id","Kernel_Name","Start_Timestamp","End_Timestamp"` + "\n" + `"KERNEL_DISPATCH",1,1,1,"k",1,2` + "\n",
	"Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,DispatchNs,BeginNs,EndNs,CompleteNs\n0,\"k\",0,0,0,1,1,5,10,20,25\n",
	"Container, 0, P, 0, 3, 3, p1\nState, p1, S, 0, 1, 1, 0, run\n",
	"SQLite format 3\x00",
	"HPCTOOLKITmeta",
	"go 1.26 trace\x00\x00\x00",
	"\x0a\x04\x08\x01\x10\x02",
}

// FuzzSniff gives arbitrary first bytes to every format's sniffer: none
// may panic, and each answers the same twice.
func FuzzSniff(f *testing.F) {
	readertest.BoundMinimization(f)
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, head []byte) {
		if len(head) > 4096 {
			return
		}
		for _, format := range All {
			if format.Sniff != nil && format.Sniff(head) != format.Sniff(bytes.Clone(head)) {
				t.Fatalf("%s: the sniffer changes its mind", format.Name)
			}
		}
	})
}

// FuzzOpen reads arbitrary bytes as a file of the format an input byte
// chooses (named with its first extension, gzip-compressed when the
// byte's high bit is set), through the door the front ends use: opening
// and reading fail only with a FormatError naming a file, or an
// ArgumentError (a name the format does not take), and a read
// that succeeds keeps the Sink contract. This is the only target of the
// readers that have no other (the databases: Nsight Systems, rocprof's
// RPD), where it checks that foreign bytes are refused cleanly.
func FuzzOpen(f *testing.F) {
	readertest.BoundMinimization(f)
	for i, s := range fuzzSeeds {
		f.Add([]byte(s), uint8(i))
	}
	dir := readertest.FuzzDir(f)
	// One compressor for the process, reset per input: a new one
	// allocates some 800 KB of tables, more than the rest of a run.
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestSpeed)
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		if len(data) > 4<<10 {
			return
		}
		format := All[int(which&0x7f)%len(All)]
		name := "fuzz"
		if len(format.Extensions) > 0 {
			name += format.Extensions[0]
		}
		if which&0x80 != 0 {
			gz.Reset()
			zw.Reset(&gz)
			zw.Write(data)
			zw.Close()
			data, name = gz.Bytes(), name+".gz"
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(path)
		sink := readertest.NewContract(nil)
		src, _, err := Open(path, format.Name, nil)
		if err == nil {
			err = src.Read(sink, trace.ReadOptions{Notes: &trace.Notes{}})
		} else {
			sink = nil // nothing was read
		}
		var ae *errs.ArgumentError
		if errors.As(err, &ae) {
			return // a path the format does not take (otf2: an anchor ends in .otf2)
		}
		var fe *errs.FormatError
		if err != nil && !errors.As(err, &fe) {
			t.Fatalf("%s: error %v (%T) is not a FormatError", format.Name, err, err)
		}
		readertest.CheckRead(t, "", err, sink)
	})
}
