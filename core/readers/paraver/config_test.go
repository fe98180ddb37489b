package paraver

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// readWithFiles writes the trace prv with its .pcf and .row (skipped if
// empty) as t.prv, t.pcf and t.row in a new directory, reads it in view,
// and returns the trace, its notes and the directory.
func readWithFiles(t *testing.T, prv, pcf, row string, view viewKind) (*trace.Trace, []string, string) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"t.prv": prv, "t.pcf": pcf, "t.row": row} {
		if text == "" {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tr := trace.New()
	notes := &trace.Notes{}
	if err := readView(filepath.Join(dir, "t.prv"), view, tr, trace.ReadOptions{Notes: notes}); err != nil {
		t.Fatal(err)
	}
	return tr, notes.Messages(), dir
}

// leafNames returns the names of the containers of the leaf type.
func leafNames(tr *trace.Trace, typ string) []string {
	var out []string
	for _, c := range tr.Containers[1:] {
		if tr.Types[c.Type].Name == typ {
			out = append(out, c.Name)
		}
	}
	return out
}

// TestRowDisagrees: a .row level naming fewer resources than the trace
// has leaves the others their default names, and one naming more leaves
// the last names unused, as in Paraver; either is said in the notes,
// with the .row's file and the line of its LEVEL.
func TestRowDisagrees(t *testing.T) {
	// 1 application, 2 tasks of one thread each, 2 nodes of one CPU.
	cases := []struct {
		row     string
		view    viewKind
		typ     string
		names   []string
		warning string
	}{
		{"LEVEL APPL SIZE 1\nmyapp\n\nLEVEL THREAD SIZE 1\nfirst\n", threadView, "Thread", []string{"first", "THREAD 1.2.1"},
			"%s:4: LEVEL THREAD names 1 resources, the trace has 2: the last 1 keep their default names, as Paraver names them"},
		{"LEVEL TASK SIZE 3\na\nb\nc\n", threadView, "Task", []string{"a", "b"},
			"%s:1: LEVEL TASK names 3 resources, the trace has 2: the last 1 names are unused, as in Paraver"},
		{"LEVEL CPU SIZE 1\ncpu-a\nLEVEL NODE SIZE 2\nn1\nn2\n", cpuView, "CPU", []string{"cpu-a", "CPU 2"},
			"%s:1: LEVEL CPU names 1 resources, the trace has 2: the last 1 keep their default names, as Paraver names them"},
	}
	for _, c := range cases {
		tr, notes, dir := readWithFiles(t, twoThreads+"1:1:1:1:1:0:5:1\n", "", c.row, c.view)
		if got := leafNames(tr, c.typ); !slices.Equal(got, c.names) {
			t.Errorf("%q: %s names %q, want %q", c.row, c.typ, got, c.names)
		}
		want := []string{fmt.Sprintf(c.warning, filepath.Join(dir, "t.row"))}
		if !slices.Equal(notes, want) {
			t.Errorf("%q: notes\n%q\nwant\n%q", c.row, notes, want)
		}
	}
	// A .row that agrees, or that leaves a level out, says nothing.
	_, notes, _ := readWithFiles(t, twoThreads, "", "LEVEL THREAD SIZE 2\na\nb\nLEVEL CPU SIZE 9\n1\n2\n3\n4\n5\n6\n7\n8\n9\n", threadView)
	if len(notes) != 0 {
		t.Errorf("agreeing .row: notes %q", notes)
	}
}

// TestPCFStatesDoubtful: a state the .pcf names (or colors) twice keeps
// the last name, as Paraver's map keeps it, and a negative state (which
// Paraver reads as an unsigned number) still names the records that carry
// it; both are said in the notes, counted, with the first line.
func TestPCFStatesDoubtful(t *testing.T) {
	pcf := "STATES\n0 Idle\n1 Running\n0 Again\n1 Run\n-5 Minus\n\nSTATES_COLOR\n1 {0,0,255}\n1 {255,0,0}\n"
	tr, notes, dir := readWithFiles(t, twoThreads+"1:1:1:1:1:0:5:1\n1:1:1:1:1:5:7:0\n1:2:1:2:1:0:5:-5\n", pcf, "", threadView)
	file := filepath.Join(dir, "t.pcf")
	want := []string{
		file + ":4: STATES: state 0 is given again (first at line 2); the last one is kept, as Paraver keeps it (2 such lines in all)",
		file + ":6: STATES: state -5 is negative, which Paraver reads as an unsigned number",
		file + ":10: STATES_COLOR: state 1 is given again (first at line 9); the last one is kept, as Paraver keeps it",
	}
	if !slices.Equal(notes, want) {
		t.Errorf("notes\n%q\nwant\n%q", notes, want)
	}
	var names, colors []string
	for _, v := range tr.Values {
		if tr.Types[v.Type].Name == "State" {
			names = append(names, v.Name)
			colors = append(colors, v.Color)
		}
	}
	if !slices.Equal(names, []string{"Run", "Again", "Minus"}) || colors[0] != "1 0 0" {
		t.Errorf("states %q colors %q, want Run (1 0 0), Again, Minus", names, colors)
	}
}

// An event type given again with another name, and a value given again
// with another name, keep the last name, as Paraver's PCFFileParser keeps
// them (a map assignment), and are said once per kind with their count; a
// type given again with its name (Extrae repeats its hardware counters in
// each set) is not. Its values gather from all its blocks.
func TestPCFEventsGivenTwice(t *testing.T) {
	pcf := "EVENT_TYPE\n0 5 A\n0 7 Seven\nVALUES\n1 one\n2 two\n\n" +
		"EVENT_TYPE\n0 5 B\n0 7 Seven\nVALUES\n1 uno\n2 two\n3 tres\n3 three\n\n" +
		"EVENT_TYPE\n0 5 C\n"
	prv := twoThreads + "2:1:1:1:1:1:5:1\n2:1:1:1:1:2:5:3\n2:1:1:1:1:3:7:2\n2:1:1:1:1:4:7:1\n"
	tr, notes, dir := readWithFiles(t, prv, pcf, "", threadView)
	file := filepath.Join(dir, "t.pcf")
	want := []string{
		file + `:9: EVENT_TYPE: event type 5 is given again with another name, "B" (` + `"A" at line 2); the last name is kept, as Paraver keeps it (2 such lines in all)`,
		file + `:12: VALUES: value 1 of event type 5 is given again with another name, "uno" ("one" at line 5); the last name is kept, as Paraver keeps it (2 such lines in all)`,
	}
	if !slices.Equal(notes, want) {
		t.Errorf("notes\n%q\nwant\n%q", notes, want)
	}
	var got []string
	for _, v := range tr.Values {
		got = append(got, tr.Types[v.Type].Name+": "+v.Alias+" "+v.Name)
	}
	// Type 5 is C; 1 is uno, 3 three (the last names); type 7's values
	// come from both blocks.
	if w := []string{"C: 1 uno", "C: 3 three", "Seven: 2 two", "Seven: 1 uno"}; !slices.Equal(got, w) {
		t.Errorf("values %q, want %q", got, w)
	}
}

// States, event types and values past 2^31-1 and 2^32 are read as they
// are, never wrapped (Paraver's stoi drops such .pcf lines; its records
// keep states in 32 bits): a state 2^32+5 is not state 5. Past 64 bits,
// a .pcf line is skipped and said (no record can carry the number), and
// a record is skipped naming its line and field.
func TestPCFLargeNumbers(t *testing.T) {
	pcf := "STATES\n5 Five\n4294967301 Wrapped\n3000000000 Big\n18446744073709551621 Huge\n\n" +
		"EVENT_TYPE\n0 3000000000 Big type\n0 99999999999999999999 Huge type\nVALUES\n3000000000 BigV\n18446744073709551615 Max\n-9223372036854775808 Min\n18446744073709551616 Over\n"
	prv := twoThreads + "1:1:1:1:1:0:5:5\n1:1:1:1:1:5:6:4294967301\n1:1:1:1:1:6:7:3000000000\n1:2:1:2:1:0:1:18446744073709551621\n" +
		"2:1:1:1:1:3:3000000000:3000000000\n2:1:1:1:1:4:3000000000:18446744073709551615\n2:1:1:1:1:5:3000000000:-9223372036854775808\n"
	tr, notes, dir := readWithFiles(t, prv, pcf, "", threadView)
	file := filepath.Join(dir, "t.pcf")
	want := []string{
		file + `:5: STATES: the state "18446744073709551621" is beyond 64 bits: the line is skipped, as no record can carry it (3 such lines in all)`,
		`skipped 1 state records (1:) that Paraver's reader also rejects (first: line 5: field 8 is "18446744073709551621", beyond 64 bits)`,
	}
	if !slices.Equal(notes, want) {
		t.Errorf("notes\n%q\nwant\n%q", notes, want)
	}
	var got []string
	for _, v := range tr.Values {
		got = append(got, tr.Types[v.Type].Name+": "+v.Alias+" "+v.Name)
	}
	w := []string{"State: 5 Five", "State: 4294967301 Wrapped", "State: 3000000000 Big",
		"Big type: 3000000000 BigV", "Big type: 18446744073709551615 Max", "Big type: -9223372036854775808 Min"}
	if !slices.Equal(got, w) {
		t.Errorf("values %q, want %q", got, w)
	}
}

// TestCommentLines: Paraver's .pcf and .row parsers skip a line starting
// with '#' (utils/traceparser/pcffileparser.cpp, rowfileparser.cpp), and
// so does the reader. ExtraeWin writes "# <source file>:<line>" before
// each EVENT_TYPE block of its .pcf: such a .pcf was refused at its
// first comment inside a block ("bad event type").
func TestCommentLines(t *testing.T) {
	pcf := "# profiler:0\nEVENT_TYPE\n0 5 ThreadRunning\n\n" +
		"# tests/a.cpp:113\nEVENT_TYPE\n0 7 nested_test\n  # an indented comment\nVALUES\n1 nested_test:begin\n# a comment among values\n2 nested_test:end\n"
	row := "# a comment before the levels\nLEVEL THREAD SIZE 2\nfirst\nsecond\n"
	prv := twoThreads + "2:1:1:1:1:1:5:1\n2:1:1:1:1:2:7:1\n2:1:1:2:1:3:7:2\n"
	tr, notes, _ := readWithFiles(t, prv, pcf, row, threadView)
	if len(notes) != 0 {
		t.Errorf("notes %q, want none", notes)
	}
	var got []string
	for _, v := range tr.Values {
		got = append(got, tr.Types[v.Type].Name+": "+v.Alias+" "+v.Name)
	}
	if w := []string{"ThreadRunning: 1 1", "nested_test: 1 nested_test:begin", "nested_test: 2 nested_test:end"}; !slices.Equal(got, w) {
		t.Errorf("values %q, want %q", got, w)
	}
	if names := leafNames(tr, "Thread"); !slices.Equal(names, []string{"first", "second"}) {
		t.Errorf("threads %q, want the .row's names", names)
	}
}
