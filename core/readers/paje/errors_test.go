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
		{"time backwards", miniHeader + "3 2 p1 S a\n3 1 p1 S b\n", headerLines + 2, "the trace is not time-ordered: this event at 1.000000000 s comes after one at 2.000000000 s in the same container and type (raw StarPU FxT conversions are, before starpu_paje_sort); read it anyway with sort=True (Python) or --read sort=true (command line)"},
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
0 P 0`, 1) + "6 L 0 P P \"Link\"\n7 1 0 L p1 v k\n", headerLines + 17, `link with key "k" of type "Link" in container "0" never gets its EndLink`},
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
