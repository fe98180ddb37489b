package formats_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// pajeTrace is a Pajé trace of one process, running then waiting.
const pajeTrace = `%EventDef PajeDefineContainerType 0
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajeDefineStateType 2
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajeCreateContainer 6
% Time date
% Alias string
% Type string
% Container string
% Name string
%EndEventDef
%EventDef PajeDestroyContainer 7
% Time date
% Type string
% Name string
%EndEventDef
%EventDef PajeSetState 11
% Time date
% Type string
% Container string
% Value string
%EndEventDef
0 P 0 Process
2 S P State
6 0 p1 P 0 rank0
11 0 S p1 running
11 1.5 S p1 waiting
7 2 P p1
`

// A command that emulates pj_dump reads a Pajé trace as pj_dump reads it,
// and writes it in the pjdump format, as pj_dump prints it.
func ExampleWrite() {
	t := trace.New("run.trace")
	if err := formats.DecodePajeNG(strings.NewReader(pajeTrace), "run.trace", 0, t, formats.PajeNGFlags{}); err != nil {
		fmt.Println(err)
		return
	}
	if err := formats.Write(os.Stdout, t, "pjdump", ingest.Values{"precision": 1}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// Container, 0, 0, 0, 2, 2, 0
	// Container, 0, Process, 0, 2, 2, rank0
	// State, rank0, State, 0.0, 1.5, 1.5, 0.0, running
	// State, rank0, State, 1.5, 2.0, 0.5, 0.0, waiting
}

// pj_dump's words for a problem it stops on, on its two streams.
func ExamplePajeNGOutput() {
	broken := pajeTrace + "11 3 S p2 running\n" // a state of a container never created
	err := formats.DecodePajeNG(strings.NewReader(broken), "run.trace", 0, trace.New("run.trace"), formats.PajeNGFlags{})
	stdout, stderr, ok := formats.PajeNGOutput(err)
	fmt.Printf("%v\nstdout: %q\nstderr: %q\n", ok, stdout, stderr)
	// Output:
	// true
	// stdout: "PajeContainerException: Unknown container 'p2' in (Line: 35, Fields: '5, Contents: '11 3 S p2 running')\n"
	// stderr: "Error during the parsing of the input file\n"
}
