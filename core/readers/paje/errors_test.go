package paje

import (
	"errors"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

const miniHeader = `%EventDef PajeDefineContainerType 0
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajeCreateContainer 1
% Time date
% Alias string
% Type string
% Container string
% Name string
%EndEventDef
%EventDef PajeDefineStateType 2
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajeSetState 3
% Time date
% Container string
% Type string
% Value string
%EndEventDef
%EventDef PajeDefineVariableType 4
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajeSetVariable 5
% Time date
% Container string
% Type string
% Value double
%EndEventDef
0 P 0 "Process"
2 S P "State"
4 V P "Var"
1 0 p1 P 0 "p1"
`

// headerLines is the number of lines of miniHeader: errors in the body
// are reported on headerLines + n.
var headerLines = strings.Count(miniHeader, "\n")

func TestErrorsNameFileAndLine(t *testing.T) {
	cases := []struct {
		name, input string
		line        int
		cause       string
	}{
		{"empty input", "", 0, "no %EventDef"},
		{"unknown container", miniHeader + "3 1 px S a\n", headerLines + 1, "Unknown container 'px'"},
		{"unknown type", miniHeader + "3 1 p1 X a\n", headerLines + 1, "Unknown type 'X'"},
		{"bad time", miniHeader + "3 1..2 p1 S a\n", headerLines + 1, `bad time "1..2"`},
		{"bad number", miniHeader + "5 1 p1 V abc\n", headerLines + 1, `bad number "abc"`},
		{"NaN", miniHeader + "5 1 p1 V nan\n", headerLines + 1, "not a finite number"},
		{"unterminated quote", miniHeader + "3 1 p1 S \"a\n", headerLines + 1, "unterminated quoted string"},
		{"unknown event id", miniHeader + "\n9 1 p1 S a\n", headerLines + 2, "Event with id '9' has not been defined"},
		{"too few fields", miniHeader + "3 1 p1\n", headerLines + 1, "has 2 fields, its definition on line 18 has 4"},
		{"too many fields", miniHeader + "3 1 p1 S a b\n", headerLines + 1, "has 5 fields"},
		{"time backwards", miniHeader + "3 2 p1 S a\n3 1 p1 S b\n", headerLines + 2, "the trace is not time-ordered: this event at 1.000000000 s comes after one at 2.000000000 s in the same container and type (raw StarPU FxT conversions are, before starpu_paje_sort, and NGSolve's traces, written in sorted runs); read it anyway with sort=True (Python) or --read sort=true (command line)"},
		{"bad UTF-8", miniHeader + "3 1 p1 S \xff\n", headerLines + 1, "not valid UTF-8"},
		{"open definition", "%EventDef PajeSetState 3\n% Time date\n", 1, "never closed"},
		{"missing field", "%EventDef PajeSetState 3\n% Time date\n%EndEventDef\n", 3, "lacks the field(s) Type, Container, Value"},
		{"unknown field type", "%EventDef PajeSetState 3\n% Time datetime\n", 2, `unknown type "datetime"`},
		{"unknown event", "%EventDef PajeFoo 3\n", 1, `unknown event "PajeFoo"`},
		{"field outside definition", "% Time date\n", 1, "outside %EventDef"},
		{"incomplete link", strings.Replace(miniHeader, "0 P 0", `%EventDef PajeDefineLinkType 6
% Alias string
% Type string
% StartContainerType string
% EndContainerType string
% Name string
%EndEventDef
%EventDef PajeStartLink 7
% Time date
% Container string
% Type string
% StartContainer string
% Value string
% Key string
%EndEventDef
0 P 0`, 1) + "6 L 0 P P \"Link\"\n7 1 0 L p1 v k\n", headerLines + 17, `link with key "k" of type "Link" in container "0" never gets its EndLink (1 incomplete link(s)); ` +
			"read the trace without them with ignore_incomplete_links=True (Python) or --read ignore_incomplete_links=true (command line)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Decode(strings.NewReader(c.input), "bad.trace", 0, trace.New(), Options{})
			var fe *errs.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("got %v, want a *errs.FormatError", err)
			}
			if fe.File != "bad.trace" || fe.Line != c.line || !strings.Contains(err.Error(), c.cause) {
				t.Fatalf("got %q (line %d), want bad.trace:%d and %q", err, fe.Line, c.line, c.cause)
			}
		})
	}
}

// TestReadFilesSharesDefinitions reads a header file and an event file
// as one trace, and names the second file in its errors.
func TestReadFilesSharesDefinitions(t *testing.T) {
	dir := t.TempDir()
	head, body, bad := dir+"/head.trace", dir+"/body.trace", dir+"/bad.trace"
	write(t, head, miniHeader)
	write(t, body, "3 1 p1 S a\n3 2 p1 S b\n")
	write(t, bad, "3 3 p1 S c\n3 1 p9 S d\n")
	tr := trace.New()
	if err := readFiles([]string{head, body}, tr, Options{}); err != nil {
		t.Fatal(err)
	}
	if tr.States.Len() != 2 || tr.States.At(0).Start != trace.Second || tr.States.At(0).End != 2*trace.Second || tr.States.At(1).Start != 2*trace.Second || tr.States.At(1).End != 2*trace.Second {
		t.Fatalf("states %+v, want a [1,2] and b [2,2]", tr.States.Slice())
	}
	err := readFiles([]string{head, body, bad}, trace.New(), Options{})
	var fe *errs.FormatError
	if !errors.As(err, &fe) || fe.File != bad || fe.Line != 2 {
		t.Fatalf("got %v, want an error at %s:2", err, bad)
	}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := writeFile(path, s); err != nil {
		t.Fatal(err)
	}
}

// TestEventsOutOfOrderAcrossTypes: PajeNG checks the order of events per
// container and type, so a variable set at 0.5 s after a state set at
// 1 s on the same container is read. The trace ends at its latest event
// (1 s), where PajeNG ends it at the last line's date and pj_dump prints
// the state with a negative duration; a container destroyed before its
// child's events is an error, as PajeNG's own destroy is.
func TestEventsOutOfOrderAcrossTypes(t *testing.T) {
	tr := trace.New()
	if err := Decode(strings.NewReader(miniHeader+"3 1 p1 S a\n5 0.5 p1 V 2\n"), "late.trace", 0, tr, Options{}); err != nil {
		t.Fatal(err)
	}
	if tr.End != trace.Second || tr.States.Len() != 1 || tr.Variables.Len() != 1 {
		t.Fatalf("end %s, %d states, %d variables; want 1 s, 1 and 1", tr.End, tr.States.Len(), tr.Variables.Len())
	}
	if st, v := tr.States.At(0), tr.Variables.At(0); st.Start != trace.Second || st.End != trace.Second ||
		v.Start != trace.Second/2 || v.End != trace.Second || v.Value != 2 {
		t.Fatalf("state %+v, variable %+v; want the state [1, 1] s, the variable 2 on [0.5, 1] s", st, v)
	}

	destroy := "%EventDef PajeDestroyContainer 6\n% Time date\n% Type string\n% Name string\n%EndEventDef\n"
	input := strings.Replace(miniHeader, "0 P 0", destroy+"0 P 0", 1) +
		"0 T P \"Thread\"\n2 TS T \"TState\"\n1 0 t1 T p1 \"t1\"\n3 1 t1 TS a\n6 0.5 P p1\n"
	err := Decode(strings.NewReader(input), "destroyed.trace", 0, trace.New(), Options{})
	var fe *errs.FormatError
	if !errors.As(err, &fe) || fe.File != "destroyed.trace" ||
		!strings.Contains(err.Error(), `the trace is not time-ordered: container "t1" ends at 0.500000000 s, before its event at 1.000000000 s`) {
		t.Fatalf("got %v, want a format error of destroyed.trace saying t1 ends before its event", err)
	}
}
