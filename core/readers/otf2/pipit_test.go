package otf2

import (
	"slices"
	"testing"
)

// TestPipitPingPong checks what pipit's test suite (tests/otf2-tests.py)
// asserts on its ping-pong archive.
func TestPipitPingPong(t *testing.T) {
	anchor := archivePath(t, "pipit/tests/data/ping-pong-otf2")
	arch, recs := decodeAll(t, anchor)

	// 120 events, 60 per rank, with strictly increasing timestamps.
	if len(recs) != 120 {
		t.Errorf("%d events, want 120", len(recs))
	}
	perLocation := map[uint64]int{}
	kinds := map[string]bool{}
	for i, r := range recs {
		perLocation[r.loc]++
		kinds[recordName(r.r.kind)] = true
		if i > 0 && r.r.time <= recs[i-1].r.time {
			t.Errorf("event %d at %v does not follow event %d at %v", i, r.r.time, i-1, recs[i-1].r.time)
		}
	}
	if len(perLocation) != 2 || perLocation[0] != 60 || perLocation[1] != 60 {
		t.Errorf("events per location %v, want 60 on each of 2", perLocation)
	}
	// Enter, Leave, and instants: program begin and end, MPI send and receive.
	var names []string
	for k := range kinds {
		names = append(names, k)
	}
	slices.Sort(names)
	if want := []string{"Enter", "Leave", "MpiRecv", "MpiSend", "ProgramBegin", "ProgramEnd"}; !slices.Equal(names, want) {
		t.Errorf("event kinds %v, want %v", names, want)
	}

	// 533 definitions of 17 kinds, among them 2 locations and communicators.
	d := arch.defs
	if d.total != 533 || uint64(d.total) != arch.anchor.globalDefs || len(d.counts) != 17 {
		t.Errorf("%d definitions of %d kinds (anchor: %d), want 533 of 17", d.total, len(d.counts), arch.anchor.globalDefs)
	}
	if d.counts[defLocation] != 2 || d.counts[defComm] == 0 {
		t.Errorf("%d Location and %d Comm definitions, want 2 and some", d.counts[defLocation], d.counts[defComm])
	}

	tr, err := readFile(anchor)
	if err != nil {
		t.Fatal(err)
	}
	// The region names, and 16 MPI_Send regions (32 enter and leave rows).
	regions := map[string]int{}
	for _, s := range tr.States.All() {
		regions[tr.Values[s.Value].Name]++
	}
	names = names[:0]
	for k := range regions {
		names = append(names, k)
	}
	slices.Sort(names)
	want := []string{"MPI_Comm_rank", "MPI_Comm_size", "MPI_Finalize", "MPI_Init", "MPI_Recv", "MPI_Send", "int main(int, char**)"}
	if !slices.Equal(names, want) {
		t.Errorf("regions %v, want %v", names, want)
	}
	if regions["MPI_Send"] != 16 {
		t.Errorf("%d MPI_Send regions, want 16", regions["MPI_Send"])
	}
	// Two processes of one thread each.
	byType := map[string]int{}
	for _, c := range tr.Containers[1:] {
		byType[tr.Types[c.Type].Name]++
	}
	if byType["process"] != 2 || byType["thread"] != 2 {
		t.Errorf("containers by type %v, want 2 processes and 2 threads", byType)
	}
	// Each rank sends 8 messages to the other.
	if tr.Links.Len() != 16 {
		t.Errorf("%d messages, want 16", tr.Links.Len())
	}
}

// TestCollectiveCommunicator checks that the "MPI collective" events name
// their communicator in their value's category: the stencil's 96
// MpiCollectiveEnd records (otf2-print: 3 BARRIER on each of 32 ranks,
// Communicator: "MPI_COMM_WORLD" <0>).
func TestCollectiveCommunicator(t *testing.T) {
	anchor := archivePath(t, "tracer-stencil4d/stencil4d-otf/traces-32")
	tr, err := readFile(anchor)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range tr.Events.All() {
		if tr.Types[e.Type].Name != collectiveType {
			continue
		}
		n++
		if v := tr.Values[e.Value]; v.Name != "BARRIER" || v.Category != "MPI_COMM_WORLD" {
			t.Fatalf("collective event valued %q in category %q, want BARRIER in MPI_COMM_WORLD", v.Name, v.Category)
		}
	}
	if n != 96 {
		t.Errorf("%d collective events, want 96", n)
	}
}

// TestRegionParadigm checks that region values carry their paradigm as
// category (otf2-print --show-global-defs: the stencil's MPI_* regions
// are of paradigm MPI, its TRACER_* regions USER).
func TestRegionParadigm(t *testing.T) {
	tr, err := readFile(archivePath(t, "tracer-stencil4d/stencil4d-otf/traces-32"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range tr.Values {
		if tr.Types[v.Type].Name != regionType {
			continue
		}
		n++
		want := "USER"
		if len(v.Name) > 4 && v.Name[:4] == "MPI_" {
			want = "MPI"
		}
		if v.Category != want {
			t.Errorf("region %q in category %q, want %q", v.Name, v.Category, want)
		}
	}
	if n != 8 {
		t.Errorf("%d region values, want 8", n)
	}
}
