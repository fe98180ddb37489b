package paje

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

const valuesHeader = `%EventDef PajeDefineContainerType 1
%  Alias string
%  Type string
%  Name string
%EndEventDef
%EventDef PajeDefineStateType 3
%  Alias string
%  Type string
%  Name string
%EndEventDef
%EventDef PajeDefineEntityValue 6
%  Alias string
%  Type string
%  Name string
%  Color color
%EndEventDef
%EventDef PajeCreateContainer 7
%  Time date
%  Alias string
%  Type string
%  Container string
%  Name string
%EndEventDef
%EventDef PajeSetState 10
%  Time date
%  Type string
%  Container string
%  Value string
%EndEventDef
1 CT 0 "Thread"
3 ST CT "State"
`

// A value defined again, as EZTrace writes them, is refused by strict
// reads as pj_dump refuses it: a new value whose alias, or whose name, is
// the identifier (alias, or name without one) of a value of the type.
// Two values of one name with distinct aliases, or an alias equal to an
// earlier value's name, are accepted, as pj_dump accepts them. The
// outcomes are pj_dump's (PajeNG 1.3.6), checked again when it is
// installed.
func TestValueRedefinitionAsPajeNG(t *testing.T) {
	cases := []struct {
		name, values, refused string
	}{
		{"same name, other aliases", "6 v1 ST \"Running\" \"1 0 0\"\n6 v2 ST \"Running\" \"0 1 0\"\n", ""},
		{"alias equal to an earlier name", "6 v1 ST \"Running\" \"1 0 0\"\n6 Running ST \"X\" \"0 1 0\"\n", ""},
		{"same alias", "6 v1 ST \"Running\" \"1 0 0\"\n6 v1 ST \"Running2\" \"0 1 0\"\n", "v1"},
		{"name equal to an earlier alias", "6 v1 ST \"Running\" \"1 0 0\"\n6 v2 ST \"v1\" \"0 1 0\"\n", "v1"},
		{"name equal to an earlier alias, named alike", "6 Running ST \"Run\" \"1 0 0\"\n6 v2 ST \"Running\" \"0 1 0\"\n", "Running"},
		{"alias and name both taken", "6 v1 ST \"R\" \"1 0 0\"\n6 v2 ST \"O\" \"1 0 0\"\n6 v1 ST \"v2\" \"0 1 0\"\n", "v1"},
	}
	pjDump, _ := exec.LookPath("pj_dump")
	dir := t.TempDir()
	for _, c := range cases {
		path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".trace")
		os.WriteFile(path, []byte(valuesHeader+c.values+"7 0 c1 CT 0 \"t1\"\n"), 0o644)
		err := readFiles([]string{path}, trace.New(path), PajeNG())
		want := "Trying to redefine the value identified by '" + c.refused + "' for the type 'ST'"
		switch {
		case c.refused == "" && err != nil:
			t.Errorf("%s: %v, want it read", c.name, err)
		case c.refused != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: %v, want %q", c.name, err, want)
		}
		if pjDump != "" {
			out, perr := exec.Command(pjDump, path).CombinedOutput()
			if (perr != nil) != (c.refused != "") || c.refused != "" && !strings.Contains(string(out), want) {
				t.Errorf("%s: pj_dump says %v: %s", c.name, perr, out)
			}
		}
	}
}

// EZTrace 1.x (through GTG) defines the value "GOMP_Task" of its thread
// state type twice, the second with the alias "GOMP_Untied_Task"
// (mpi_ring_2p.trace of a 2017 Pajé parser's test traces): pj_dump, and
// strict reads, refuse the trace at that line; the reader now reads it,
// as if the name were free: the new alias is a value of that name, and a
// value whose own identifier (alias, or name without one) is taken keeps
// the first definition, with one warning counting them. Before, every
// EZTrace trace was refused ("Trying to redefine the value identified by
// 'GOMP_Task'").
func TestValueRedefinitionRead(t *testing.T) {
	values := "6 GOMP_Task ST \"GOMP_Task\" \"1 1 1\"\n" +
		"6 GOMP_Untied_Task ST \"GOMP_Task\" \"0 1 1\"\n" + // the name is taken: a new alias
		"6 v1 ST \"Running\" \"1 0 0\"\n" +
		"6 v1 ST \"Running2\" \"0 1 0\"\n" + // the alias is taken: the first kept
		"6 Idle ST \"Idle\" \"0 0 0\"\n" +
		"6 w ST \"Idle\" \"0 0 0\"\n" // the name is taken, a new alias
	body := "7 0 c1 CT 0 \"t1\"\n10 1 ST c1 GOMP_Task\n10 2 ST c1 GOMP_Untied_Task\n10 3 ST c1 v1\n10 4 ST c1 w\n10 5 ST c1 Idle\n"
	path := filepath.Join(t.TempDir(), "eztrace.trace")
	os.WriteFile(path, []byte(valuesHeader+values+body), 0o644)
	if err := readFiles([]string{path}, trace.New(path), PajeNG()); err == nil ||
		!strings.Contains(err.Error(), "Trying to redefine the value identified by 'GOMP_Task' for the type 'ST'") {
		t.Fatalf("strict: %v, want pj_dump's refusal", err)
	}
	tr := trace.New(path)
	notes := &trace.Notes{}
	if err := readFiles([]string{path}, tr, Options{ReadOptions: trace.ReadOptions{Notes: notes}}); err != nil {
		t.Fatal(err)
	}
	var names []string
	for i := range tr.States.Len() {
		names = append(names, tr.Values[tr.States.At(i).Value].Name)
	}
	if want := "GOMP_Task GOMP_Task Running Idle Idle"; strings.Join(names, " ") != want {
		t.Errorf("states %q, want %q", strings.Join(names, " "), want)
	}
	msgs := notes.Messages()
	if len(msgs) != 1 || !strings.Contains(msgs[0], "3 entity values redefine an identifier") {
		t.Errorf("notes %q", msgs)
	}
}

// A type defined in a container type, or a link between container types,
// that no definition made is refused in pj_dump's words, "Unknown ..."
// as PajeNG has spelled it since 1.3.5 (its 2017 typo fix). The reader
// said "Unknow ..." (older PajeNG's spelling), so `macroscope dump` no
// longer printed pj_dump's error byte for byte (poti's header test traces
// define a variable type in an undefined container type). Checked against
// pj_dump when it is installed.
func TestUnknownTypesInPajeNGWords(t *testing.T) {
	const defs = "%EventDef PajeDefineContainerType 0\n%  Alias string\n%  Type string\n%  Name string\n%EndEventDef\n" +
		"%EventDef PajeDefineStateType 3\n%  Alias string\n%  Type string\n%  Name string\n%EndEventDef\n" +
		"%EventDef PajeDefineLinkType 5\n%  Alias string\n%  Type string\n%  StartContainerType string\n%  EndContainerType string\n%  Name string\n%EndEventDef\n" +
		"%EventDef PajeCreateContainer 7\n%  Time date\n%  Alias string\n%  Type string\n%  Container string\n%  Name string\n%EndEventDef\n" +
		"%EventDef PajeSetState 10\n%  Time date\n%  Type string\n%  Container string\n%  Value string\n%EndEventDef\n" +
		"0 CT 0 \"Thread\"\n"
	cases := []struct{ name, body, want string }{
		{"state type in no container type", "3 ST PROCESS \"State\"\n", "Unknown container type 'PROCESS'"},
		{"link from no container type", "5 L 0 X CT \"Link\"\n", "Unknown start container type 'X' for link definition"},
		{"link to no container type", "5 L 0 CT Y \"Link\"\n", "Unknown end container type 'Y' for link definition"},
		{"state of no type", "7 0 c1 CT 0 \"t1\"\n10 1 NOPE c1 \"v\"\n", "Unknown type 'NOPE'"},
	}
	pjDump, _ := exec.LookPath("pj_dump")
	dir := t.TempDir()
	for _, c := range cases {
		path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".trace")
		os.WriteFile(path, []byte(defs+c.body), 0o644)
		if err := readFiles([]string{path}, trace.New(path), PajeNG()); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
		if pjDump != "" {
			if out, err := exec.Command(pjDump, path).CombinedOutput(); err == nil || !strings.Contains(string(out), c.want) {
				t.Errorf("%s: pj_dump says %v: %s", c.name, err, out)
			}
		}
	}
}
