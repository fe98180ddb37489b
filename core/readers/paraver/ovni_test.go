package paraver

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// An ovni trace laid out as ovniemu's prv.c, pcf.c and prf.c write it
// (ovni 1.14.0): the fixed date, rows as the threads of one task, events
// only, a .pcf naming the types and their values with STATES_COLOR, a .row
// of LEVEL NODE and LEVEL THREAD.
const (
	ovniPRV = "#Paraver (19/01/38 at 03:14):00000000000000001000_ns:0:1:1(2:1)\n" +
		"2:0:1:1:1:0:2:31319\n" + // the TID channel: numbers the .pcf does not name
		"2:0:1:1:1:0:37:18:40:100\n" + // two channels in one record
		"2:0:1:1:2:50:37:0\n" + // 0 ends nothing: no state was open
		"2:0:1:1:1:100:37:19\n" +
		"2:0:1:1:2:100:37:18\n" +
		"2:0:1:1:1:300:37:0:40:0\n" +
		"2:0:1:1:1:400:37:19\n" +
		"2:0:1:1:1:500:37:19\n" + // the same value again: a new state
		"2:0:1:1:1:600:2:0\n" + // no thread: a gap in the TID variable
		"2:0:1:1:1:700:2:31320\n" +
		"2:0:1:1:2:800:99:7\n" + // a type the .pcf does not know: numbers too
		"2:0:1:1:2:900:37:0\n"
	ovniPCF = "DEFAULT_OPTIONS\n\nLEVEL               THREAD\nUNITS               NANOSEC\n\n" +
		"DEFAULT_SEMANTIC\n\nTHREAD_FUNC         State As Is\n\n\nSTATES_COLOR\n" +
		"0   {  0,   0,   0}\n18  {255, 225,  25}\n19  { 60, 180,  75}\n\n\n" +
		"EVENT_TYPE\n0 37         Nanos6 subsystem of the RUNNING thread\nVALUES\n" +
		"18   Task: Running body\n19   Worker: Looking for work\n\n\n" +
		"EVENT_TYPE\n0 40         Nanos6 idle state of the RUNNING thread\nVALUES\n100  Progressing\n\n\n" +
		"EVENT_TYPE\n0 2          Thread: TID of the ACTIVE thread\n\n\n"
	ovniRow = "LEVEL NODE SIZE 1\nhostname\n\nLEVEL THREAD SIZE 2\nTH 1.31319\nTH 1.31320\n"
)

// ovniStates lists the trace's states as "row type value start-end", in
// the order of their rows, starts and types.
func ovniStates(tr *trace.Trace) []string {
	ss := tr.States.Slice()
	slices.SortStableFunc(ss, func(a, b trace.State) int {
		if a.Container != b.Container {
			return int(a.Container - b.Container)
		}
		if a.Start != b.Start {
			return int(a.Start - b.Start)
		}
		return int(a.Type - b.Type)
	})
	var out []string
	for _, s := range ss {
		out = append(out, fmt.Sprintf("%s %s %s %d-%d", tr.Containers[s.Container].Name, tr.Types[s.Type].Name,
			tr.Values[s.Value].Name, s.Start, s.End))
	}
	return out
}

// TestOvniChannelsAsStates: each event type of an ovni trace is a channel
// whose value lasts until the next event of that type on the row, 0 being
// none (Paraver's "Last Evt Val", the semantics of ovni's .cfg files), so
// its events become states of that type, the last ones ending with the
// trace; the values keep the .pcf's names and STATES_COLOR's colors. A
// channel whose values the .pcf does not name (TIDs, task IDs) is a
// variable.
func TestOvniChannelsAsStates(t *testing.T) {
	tr, notes, _ := readWithFiles(t, ovniPRV, ovniPCF, ovniRow, threadView)
	want := []string{
		"TH 1.31319 Nanos6 subsystem of the RUNNING thread Task: Running body 0-100",
		"TH 1.31319 Nanos6 idle state of the RUNNING thread Progressing 0-300",
		"TH 1.31319 Nanos6 subsystem of the RUNNING thread Worker: Looking for work 100-300",
		"TH 1.31319 Nanos6 subsystem of the RUNNING thread Worker: Looking for work 400-500",
		"TH 1.31319 Nanos6 subsystem of the RUNNING thread Worker: Looking for work 500-1000",
		"TH 1.31320 Nanos6 subsystem of the RUNNING thread Task: Running body 100-900",
	}
	if got := ovniStates(tr); !slices.Equal(got, want) {
		t.Errorf("states:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Channels of numbers (values the .pcf does not name: TIDs, task IDs)
	// are variables, 0 leaving a gap, not states named by numbers.
	var vars []string
	for _, v := range tr.Variables.All() {
		vars = append(vars, fmt.Sprintf("%s %s %g %d-%d", tr.Containers[v.Container].Name, tr.Types[v.Type].Name, v.Value, v.Start, v.End))
	}
	wantVars := []string{
		"TH 1.31319 Thread: TID of the ACTIVE thread 31319 0-600",
		"TH 1.31319 Thread: TID of the ACTIVE thread 31320 700-1000",
		"TH 1.31320 99 7 800-1000",
	}
	if !slices.Equal(vars, wantVars) {
		t.Errorf("variables:\n%s\nwant:\n%s", strings.Join(vars, "\n"), strings.Join(wantVars, "\n"))
	}
	if tr.Events.Len() != 0 || len(notes) != 0 {
		t.Errorf("%d events, notes %q; want none", tr.Events.Len(), notes)
	}
	for _, ty := range tr.Types {
		if ty.Kind == trace.KindEvent {
			t.Errorf("event type %q", ty.Name)
		}
	}
	colors := map[string]string{}
	for _, v := range tr.Values {
		colors[v.Name] = v.Color
	}
	// STATES_COLOR's {r,g,b} as Pajé's "r g b" in [0,1]; 100 has none.
	if c := colors["Task: Running body"]; c != "1 0.882353 0.0980392" || colors["Progressing"] != "" {
		t.Errorf("colors %q", colors)
	}
	if tr.End != 1000 {
		t.Errorf("end %d, want 1000", tr.End)
	}

	// The same records under another date are any Paraver trace's events.
	other := strings.Replace(ovniPRV, "19/01/38 at 03:14", "19/01/38 at 03:15", 1)
	tr, _, _ = readWithFiles(t, other, ovniPCF, ovniRow, threadView)
	if tr.States.Len() != 0 || tr.Events.Len() != 14 {
		t.Errorf("another date: %d states and %d events, want 0 and 14", tr.States.Len(), tr.Events.Len())
	}
}

// TestOvniOnePart: an ovni trace's states run from one line to another,
// so it is not cut into byte ranges.
func TestOvniOnePart(t *testing.T) {
	dir := t.TempDir()
	body := strings.Repeat("2:0:1:1:1:100:37:19\n", 1000)
	for name, head := range map[string]string{"ovni.prv": ovniPRV[:strings.IndexByte(ovniPRV, '\n')+1],
		"other.prv": "#Paraver (19/01/38 at 03:15):00000000000000001000_ns:0:1:1(2:1)\n"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(head+body), 0o600); err != nil {
			t.Fatal(err)
		}
		r, err := ranges(path, 4)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{true: 1, false: 4}[name == "ovni.prv"]; len(r) != want {
			t.Errorf("%s: %d ranges, want %d", name, len(r), want)
		}
	}
}
