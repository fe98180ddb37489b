package otf2

import (
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/otf2/pyotf2"
)

// TestPython3OTF2Features writes an archive with the OTF2 writer's own
// Python bindings (testdata/gen/features.py: 2 nodes, 4 processes of 4
// threads with fork/join and thread teams, nested regions with
// attributes, messages, collectives, RMA, a synchronous and an
// asynchronous metric, a global offset of 1.7e18 ns) and checks what is
// read against otf2-print's listing of it: 160 ENTER, 12 MPI_SEND, 12
// MPI_COLLECTIVE_END, 24 + 12 METRIC, 168 thread and RMA records, and a
// clock length of 5,230 ticks.
func TestPython3OTF2Features(t *testing.T) {
	archive := filepath.Join(t.TempDir(), "arch")
	pyotf2.Run(t, "core/readers/otf2/testdata/gen/features.py", archive)
	tr, err := readFile(filepath.Join(archive, "traces.otf2"))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Start != 0 || tr.End != 5230 {
		t.Errorf("span %d-%d ns, want 0-5230 (the clock's length past its global offset)", tr.Start, tr.End)
	}
	if n := tr.States.Len(); n != 160 {
		t.Errorf("%d states, want 160", n)
	}
	if tr.Links.Len() != 12 {
		t.Errorf("%d links, want 12", tr.Links.Len())
	}
	byValue := map[string]int{}
	for _, e := range tr.Events.All() {
		byValue[tr.Values[e.Value].Name]++
	}
	want := map[string]int{"ALLREDUCE": 12, "ThreadFork": 12, "ThreadJoin": 12, "ThreadTeamBegin": 48, "ThreadTeamEnd": 48,
		"RmaPut": 12, "RmaOpCompleteBlocking": 12, "RmaCollectiveBegin": 12, "RmaCollectiveEnd": 12}
	for v, n := range want {
		if byValue[v] != n {
			t.Errorf("%d events %q, want %d", byValue[v], v, n)
		}
	}
	if tr.Events.Len() != 12+168 {
		t.Errorf("%d events, want 180", tr.Events.Len())
	}
	byType := map[string]int{}
	for _, v := range tr.Variables.All() {
		byType[tr.Types[v.Type].Name]++
	}
	if byType["FLOPS"] != 24 || byType["temperature"] != 12 {
		t.Errorf("metric values %v, want FLOPS 24, temperature 12", byType)
	}
	threads := 0
	for _, c := range tr.Containers {
		if c.Type >= 0 && tr.Types[c.Type].Name == "thread" {
			threads++
		}
	}
	if threads != 16 {
		t.Errorf("%d threads, want 16", threads)
	}
}
