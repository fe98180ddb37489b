package paje

import (
	"math"
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
	if err := readFiles([]string{path}, tr, Options{ReadOptions: trace.ReadOptions{Notes: notes}}); err != nil {
		t.Fatal(err)
	}
	if tr.Links.Len() != 64 {
		t.Errorf("%d links, want 64", tr.Links.Len())
	}
	mpi := 0
	for _, l := range tr.Links.All() {
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

	err := readFiles([]string{path}, trace.New(path), PajeNG())
	if err == nil || !strings.Contains(err.Error(), `container "32" is not of the type expected at the start of link type "MPI_LINK"`) {
		t.Errorf("as PajeNG: %v, want its refusal", err)
	}
}

// TestSMPIDisplaySizes reads what SMPI writes with
// tracing/smpi/display-sizes and the platform's topology (here through
// tracing/smpi/group): StartLink is defined with a Size field, which the
// 46 topology links lack (6 fields where the definition has 7); pj_dump
// aborts on it. The reader takes the missing user field as empty and
// says so. Oracle: 64 StartLink lines (46 of 6 fields, 18 MPI_LINK of
// 7), 64 EndLink lines.
func TestSMPIDisplaySizes(t *testing.T) {
	path := filepath.Join("testdata", "smpi-sizes.trace")
	tr := trace.New(path)
	notes := &trace.Notes{}
	if err := readFiles([]string{path}, tr, Options{ReadOptions: trace.ReadOptions{Notes: notes}}); err != nil {
		t.Fatal(err)
	}
	mpi := 0
	for _, l := range tr.Links.All() {
		if tr.Types[l.Type].Name == "MPI_LINK" {
			mpi++
		}
	}
	if tr.Links.Len() != 64 || mpi != 18 {
		t.Errorf("%d links, %d of MPI_LINK; want 64, 18", tr.Links.Len(), mpi)
	}
	msgs := notes.Messages()
	if len(msgs) != 2 || !strings.HasPrefix(msgs[0], "46 event lines lack trailing user fields of their definition") ||
		!strings.HasPrefix(msgs[1], "36 link ends are containers of a type other") {
		t.Errorf("notes %q", msgs)
	}
	err := readFiles([]string{path}, trace.New(path), PajeNG())
	if err == nil || !strings.Contains(err.Error(), "event 15 (PajeStartLink) has 6 fields, its definition on line 90 has 7") {
		t.Errorf("as PajeNG: %v, want a refusal", err)
	}
}

// TestSMPILinkSize reads the Size user field of SMPI's links
// (tracing/smpi/display-sizes): the rendezvous send of
// testdata/critpath/cp_laterecv.trace carries 4 MiB ("15 0.000000 3 0 PTP
// 1 1_2_0_1 4194304"). Links without the field have no size (NaN).
func TestSMPILinkSize(t *testing.T) {
	path := filepath.Join("..", "..", "..", "testdata", "critpath", "cp_laterecv.trace")
	tr := trace.New(path)
	if err := readFiles([]string{path}, tr, Options{}); err != nil {
		t.Fatal(err)
	}
	if tr.Links.Len() != 1 || tr.Links.At(0).Size != 4<<20 {
		t.Fatalf("%d links, first %+v; want one of 4194304 bytes", tr.Links.Len(), tr.Links.At(0))
	}
	path = filepath.Join("testdata", "smpi-group.trace")
	tr = trace.New(path)
	if err := readFiles([]string{path}, tr, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, l := range tr.Links.All() {
		if !math.IsNaN(l.Size) {
			t.Fatalf("link %+v has a size; its definition has no Size field", l)
		}
	}
}
