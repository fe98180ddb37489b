package paje

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestSMPIGroupedRanks reads what SMPI writes with tracing/smpi/group
// (testdata/gen/smpi_ops.c): the "MPI" container type is defined under
// the root and again under "HOST", MPI_LINK joins the former, and the
// ranks are of the latter. PajeNG refuses the trace; the reader takes the
// type of the same name, and says how many link ends it took so. Oracle:
// the file holds 18 StartLink and 18 EndLink lines of type 2 (MPI_LINK),
// all between the 4 ranks, and 64 links in all (the others of the
// platform's topology).
func TestSMPIGroupedRanks(t *testing.T) {
	path := filepath.Join("testdata", "smpi-group.trace")
	tr := trace.New(path)
	notes := &trace.Notes{}
	if err := ReadFiles([]string{path}, tr, Options{ReadOptions: trace.ReadOptions{Notes: notes}}); err != nil {
		t.Fatal(err)
	}
	if len(tr.Links) != 64 {
		t.Errorf("%d links, want 64", len(tr.Links))
	}
	mpi := 0
	for _, l := range tr.Links {
		if tr.Types[l.Type].Name != "MPI_LINK" {
			continue
		}
		mpi++
		from, to := tr.Containers[l.From].Name, tr.Containers[l.To].Name
		if !strings.HasPrefix(from, "rank-") || !strings.HasPrefix(to, "rank-") {
			t.Errorf("MPI link from %q to %q, want ranks", from, to)
		}
	}
	if mpi != 18 {
		t.Errorf("%d MPI links, want 18", mpi)
	}
	msgs := notes.Messages()
	if len(msgs) != 1 || !strings.HasPrefix(msgs[0], "36 link ends are containers of a type other than the link type's end") {
		t.Errorf("notes %q", msgs)
	}

	err := ReadFiles([]string{path}, trace.New(path), PajeNG())
	if err == nil || !strings.Contains(err.Error(), `container "32" is not of the type expected at the start of link type "MPI_LINK"`) {
		t.Errorf("as PajeNG: %v, want its refusal", err)
	}
}
