package paraver

import (
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestApplicationsSeparatedByComma: Paraver reads any one character after
// an application's task list, so ',' separates applications as well as
// ':', and ':' may come before the number of communicators.
func TestApplicationsSeparatedByComma(t *testing.T) {
	for _, c := range []struct {
		line string
		want header
	}{
		{"#Paraver (x):9_ns:1(2):2:1(1:1),2(1:1,1:1),3",
			header{date: "x", end: 9, unit: 1, nodes: []int{2}, apps: []app{{[]task{{1, 1}}}, {[]task{{1, 1}, {1, 1}}}}, comms: 3}},
		{"#Paraver (x):9_ns:1(2):2:1(1:1):1(1:1):2",
			header{date: "x", end: 9, unit: 1, nodes: []int{2}, apps: []app{{[]task{{1, 1}}}, {[]task{{1, 1}}}}, comms: 2}},
	} {
		h, err := parseHeader(c.line)
		if err != nil {
			t.Fatalf("%q: %v", c.line, err)
		}
		if h.comms != c.want.comms || len(h.apps) != len(c.want.apps) || len(h.apps[1].tasks) != len(c.want.apps[1].tasks) {
			t.Errorf("%q: got %+v, want %+v", c.line, *h, c.want)
		}
	}
	for _, line := range []string{"#Paraver (x):9_ns:1(2):2:1(1:1)", "#Paraver (x):9_ns:1(2):2:1(1:1);1(1:1)"} {
		if _, err := parseHeader(line); err == nil || !strings.Contains(err.Error(), "before application 2") {
			t.Errorf("%q: got %v, want an error about application 2", line, err)
		}
	}
}

// TestCommunicatorsNotChecked: a communicator naming tasks the header does
// not give its application is ignored with a warning, as Paraver keeps
// communicators as text.
func TestCommunicatorsNotChecked(t *testing.T) {
	in := "#Paraver (x):9_ns:1(2):1:1(1:1),4\nc:1:1:2:1:2\nc:3:1:1:1\nc:1:2:3:1:2\nc:1:3:1:1\n1:1:1:1:1:0:9:1\n"
	tr := trace.New("c.prv")
	notes := &trace.Notes{}
	if err := decodeStream(strings.NewReader(in), "c.prv", 0, nil, threadView, tr, trace.ReadOptions{Notes: notes}); err != nil {
		t.Fatal(err)
	}
	if tr.States.Len() != 1 {
		t.Errorf("%d states, want 1", tr.States.Len())
	}
	want := "3 communicator records (c:) do not fit the applications of the header (not modelled, ignored)"
	if m := notes.Messages(); len(m) != 1 || m[0] != want {
		t.Errorf("notes %q, want %q", m, want)
	}
}

// TestProfetTrace reads a real trace with both traits (see
// testdata/profet/README.md) and compares it with counts made with awk.
func TestProfetTrace(t *testing.T) {
	tr := trace.New()
	notes := &trace.Notes{}
	if err := readView("testdata/profet/test1.prv", threadView, tr, trace.ReadOptions{Notes: notes}); err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, c := range tr.Containers[1:] {
		per[tr.TypeName(c.Type)]++
	}
	for what, c := range map[string][2]int{
		"states":       {tr.States.Len(), 8},
		"events":       {tr.Events.Len(), 100},
		"links":        {tr.Links.Len(), 0},
		"applications": {per["Application"], 2},
		"tasks":        {per["Task"], 8 + 12},
		"threads":      {per["Thread"], 8 + 12},
	} {
		if c[0] != c[1] {
			t.Errorf("%s: got %d, want %d", what, c[0], c[1])
		}
	}
	if tr.End != 1616378951 {
		t.Errorf("end %d, want the header's 1616378951 ns", tr.End)
	}
	if len(notes.Messages()) != 1 {
		t.Errorf("notes %q, want the communicators' warning", notes.Messages())
	}
}

// TestUnknownTimeUnit: Paraver reads a duration with an unknown _suffix as
// microseconds; so does the reader, with a warning.
func TestUnknownTimeUnit(t *testing.T) {
	tr := trace.New("u.prv")
	notes := &trace.Notes{}
	in := "#Paraver (x):7_hs:0:1:1(1:0)\n1:0:1:1:1:2:5:1\n"
	if err := decodeStream(strings.NewReader(in), "u.prv", 0, nil, threadView, tr, trace.ReadOptions{Notes: notes}); err != nil {
		t.Fatal(err)
	}
	if tr.States.Len() != 1 || tr.States.At(0).Start != 2000 || tr.States.At(0).End != 5000 || tr.End != 7000 {
		t.Errorf("states %+v, end %d; want microseconds", tr.States, tr.End)
	}
	want := `unknown time unit "_hs" in the header: times are read as microseconds, as Paraver reads them`
	if m := notes.Messages(); len(m) != 1 || m[0] != want {
		t.Errorf("notes %q, want %q", m, want)
	}
}

// TestCommunicatorLineKinds: Paraver takes communicator lines starting
// with c or C, and intercommunicators (i or I), which are counted.
func TestCommunicatorLineKinds(t *testing.T) {
	tr := trace.New("c.prv")
	notes := &trace.Notes{}
	in := "#Paraver (x):9_ns:1(2):1:2(1:1,1:1),3\nC:1:1:2:1:2\ni:1:2:x:y\nI:1:3\n1:1:1:1:1:0:9:1\n"
	if err := decodeStream(strings.NewReader(in), "c.prv", 0, nil, threadView, tr, trace.ReadOptions{Notes: notes}); err != nil {
		t.Fatal(err)
	}
	if tr.States.Len() != 1 {
		t.Errorf("%d states, want 1", tr.States.Len())
	}
	want := "skipped 2 intercommunicator lines (i:), not modelled"
	if m := notes.Messages(); len(m) != 1 || m[0] != want {
		t.Errorf("notes %q, want %q", m, want)
	}
}
