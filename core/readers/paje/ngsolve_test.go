package paje

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// ngsolveDefs are the definitions a trace of NGSolve's ngcore (PajeTrace,
// netgen-mesher 6.2.2608) uses, with its event numbers.
const ngsolveDefs = "%EventDef PajeDefineContainerType 0\n%  Alias string\n%  Type string\n%  Name string\n%EndEventDef\n" +
	"%EventDef PajeDefineStateType 2\n%  Alias string\n%  Type string\n%  Name string\n%EndEventDef\n" +
	"%EventDef PajeCreateContainer 6\n%  Time date\n%  Alias string\n%  Type string\n%  Container string\n%  Name string\n%EndEventDef\n" +
	"%EventDef PajePushState 12\n%  Time date\n%  Type string\n%  Container string\n%  Value string\n%  Id string\n%EndEventDef\n" +
	"%EventDef PajePopState 13\n%  Time date\n%  Type string\n%  Container string\n%EndEventDef\n"

// ngsolveBody is what ngcore writes, in its layout (tabs, aliases aN):
// the "Thread" type is in the "Task Manager", the threads in a "Node".
const ngsolveBody = "0\ta1\t0\t\"Task Manager\"\n0\ta2\ta1\t\"Node\"\n0\ta3\ta1\t\"Thread\"\n0\ta4\ta1\t\"Jobs\"\n" +
	"2\ta5\ta4\t\"Job\"\n2\ta6\ta3\t\"Task\"\n" +
	"6\t0\ta9\ta1\t0\t\"The task manager\"\n6\t0\ta10\ta4\ta9\t\"Jobs\"\n6\t0\ta11\ta2\ta9\t\"Node 0\"\n" +
	"6\t0\ta12\ta3\ta11\t\"Thread 0\"\n6\t0\ta13\ta3\ta11\t\"Thread 1\"\n" +
	"12\t0.5\ta5\ta10\tMeshVolume\t0\n12\t0.5\ta6\ta12\tmesh\t0\n12\t0.75\ta6\ta13\tmesh\t0\n" +
	"13\t1.5\ta6\ta13\n13\t2.5\ta6\ta12\n13\t3\ta5\ta10\n"

// TestNGSolveThreadsInANode: ngcore creates its threads in a "Node" while
// their type's parent is the "Task Manager" above it. pj_dump refuses
// that (PajeTypeException), and so does strict; otherwise each thread is
// read where it is created, counted in a warning. Its dates are
// milliseconds (ngcore's ConvertTime), which the door tells by its four
// container types.
func TestNGSolveThreadsInANode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ng.trace")
	if err := os.WriteFile(path, []byte(ngsolveDefs+ngsolveBody), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := readFiles([]string{path}, trace.New(path), PajeNG()); err == nil ||
		!strings.Contains(err.Error(), `container type "a3" is not a child type of the type of container "a11"`) {
		t.Fatalf("strict: %v, want pj_dump's refusal", err)
	}
	tr, notes, err := readertest.ReadFormatNotes(t, Format, path, ingest.Values{})
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string]bool{}
	for i := range tr.Containers[1:] {
		paths[tr.ContainerPath(int32(i+1), "/")] = true
	}
	for _, p := range []string{"The task manager/Node 0/Thread 0", "The task manager/Node 0/Thread 1", "The task manager/Jobs"} {
		if !paths[p] {
			t.Errorf("no container %s in %v", p, paths)
		}
	}
	var got []string
	for i := range tr.States.Len() {
		s := tr.States.At(i)
		got = append(got, tr.Values[s.Value].Name+" "+(s.End-s.Start).String())
	}
	// Milliseconds: the job lasts 2.5 ms, not 2.5 s.
	if g, want := strings.Join(got, ", "), "mesh 0.000750000, mesh 0.002000000, MeshVolume 0.002500000"; g != want {
		t.Errorf("states %s, want %s", g, want)
	}
	if m := notes.Messages(); len(m) != 1 || !strings.Contains(m[0], "2 containers are created deeper than their type's parent type") {
		t.Errorf("notes %q", m)
	}

	// A container created in one whose type is not below its type's
	// parent is still refused: "Jobs" at the root, above "Task Manager".
	bad := strings.Replace(ngsolveBody, "6\t0\ta10\ta4\ta9", "6\t0\ta10\ta4\t0", 1)
	if err := os.WriteFile(path, []byte(ngsolveDefs+bad), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := readFiles([]string{path}, trace.New(path), Options{}); err == nil ||
		!strings.Contains(err.Error(), `container type "a4" is not a child type of the type of container "0"`) {
		t.Errorf("Jobs at the root: %v, want a refusal", err)
	}
	if !writesMilliseconds([]byte(ngsolveBody)) {
		t.Error("ngcore's container types not told")
	}
	if writesMilliseconds([]byte(strings.ReplaceAll(ngsolveBody, "\"Jobs\"", "\"Queue\""))) {
		t.Error("three of ngcore's four container types told as ngcore's")
	}
}
