package otf2

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// announcingDefs is baseDefs whose two locations announce 3 events each.
func announcingDefs() *enc {
	e := &enc{}
	defClock(e, 1e9, 1000, 100)
	for id, s := range []string{"", "machine", "m0", "process", "P0", "P1", "thread", "main", "work", "MPI_COMM_WORLD", "power", "temp", "W"} {
		defStr(e, uint32(id), s)
	}
	defNode(e, 0, sM0, sMachine, undefined32)
	defLGroup(e, 0, sP0, groupProcess, 0)
	defLGroup(e, 1, sP1, groupProcess, 0)
	defLoc(e, 0, sThread, locationCPUThread, 3, 0)
	defLoc(e, 1, sThread, locationCPUThread, 3, 1)
	defRegionRec(e, regionMain, sMain)
	return e
}

// oneState is an event file: main from tick start to start+10.
func oneState(start uint64) []byte {
	e := &enc{}
	evTime(e, start)
	evRegion(e, evEnter, regionMain)
	evTime(e, start+10)
	evRegion(e, evLeave, regionMain)
	return chunked(false, 1<<20, e.b)
}

// emptyLocalDefs is a local definition file with no record.
func emptyLocalDefs() []byte { return chunked(false, 1<<18, nil) }

func readNotes(t *testing.T, anchor string) (*trace.Trace, []string, error) {
	t.Helper()
	tr := trace.New(anchor)
	notes := &trace.Notes{}
	err := Read(anchor, tr, trace.ReadOptions{Notes: notes})
	return tr, notes.IncompleteReasons(), err
}

// TestMissingLocationFiles: a location the global definitions list with
// events but whose event file is missing, empty or not a file, or whose
// local definition file is missing, leaves the trace marked incomplete,
// naming the locations; the other locations are read.
func TestMissingLocationFiles(t *testing.T) {
	archive := func() (string, string) {
		dir := t.TempDir()
		a := testArchive{defs: announcingDefs().b,
			locations: map[uint64][]byte{0: oneState(1000), 1: oneState(1020)},
			localDefs: map[uint64][]byte{0: emptyLocalDefs(), 1: emptyLocalDefs()}}
		return a.write(t, dir), filepath.Join(dir, "traces")
	}
	// Complete: both states, no reason.
	anchor, _ := archive()
	tr, reasons, err := readNotes(t, anchor)
	if err != nil || len(reasons) != 0 || tr.States.Len() != 2 {
		t.Fatalf("complete archive: %v, reasons %q, %d states", err, reasons, tr.States.Len())
	}
	noEvents := func(dir string) string {
		return dir + ": 1 location(s) announced by the definitions have no event file (\"thread\" (id 1)): their events are missing"
	}
	for _, c := range []struct {
		name   string
		break_ func(dir string)
		want   func(dir string) string
	}{
		{"event file removed", func(dir string) { must(t, os.Remove(filepath.Join(dir, "1.evt"))) }, noEvents},
		{"event file empty", func(dir string) { must(t, os.WriteFile(filepath.Join(dir, "1.evt"), nil, 0o644)) }, noEvents},
		{"event file a directory", func(dir string) {
			must(t, os.Remove(filepath.Join(dir, "1.evt")))
			must(t, os.Mkdir(filepath.Join(dir, "1.evt"), 0o755))
		}, noEvents},
		{"local definitions removed", func(dir string) { must(t, os.Remove(filepath.Join(dir, "1.def"))) }, func(dir string) string {
			return dir + ": 1 location(s) have no local definition file (\"thread\" (id 1)): their events are read with global ids and the global clock, which may be wrong"
		}},
	} {
		anchor, dir := archive()
		c.break_(dir)
		tr, reasons, err := readNotes(t, anchor)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if want := []string{c.want(filepath.Dir(anchor))}; !slices.Equal(reasons, want) {
			t.Errorf("%s: reasons %q, want %q", c.name, reasons, want)
		}
		// Location 0 is read whatever happened to location 1; both threads
		// exist (the hierarchy is the definitions').
		if tr.States.Len() == 0 || tr.States.At(0).Start != 0 || len(tr.Containers) != 6 {
			t.Errorf("%s: %d states, %d containers", c.name, tr.States.Len(), len(tr.Containers))
		}
	}
	// Many locations missing: five named, the others counted.
	if got := listSome(strings.Fields("a b c d e f g")); got != "a, b, c, d, e and 2 more" {
		t.Errorf("listSome: %q", got)
	}
}

// TestEmptyGlobalDefinitions: an archive whose global definition file is
// empty fails with an error naming it.
func TestEmptyGlobalDefinitions(t *testing.T) {
	dir := t.TempDir()
	anchor := testArchive{defs: announcingDefs().b, locations: map[uint64][]byte{0: oneState(1000)}}.write(t, dir)
	defs := filepath.Join(dir, "traces.def")
	must(t, os.WriteFile(defs, nil, 0o644))
	_, _, err := readNotes(t, anchor)
	var fe *errs.FormatError
	if !errors.As(err, &fe) || fe.File != defs || !strings.Contains(err.Error(), "the global definition file is empty") {
		t.Fatalf("got %v", err)
	}
}

// TestNoEventFileAtAll: an archive copied without its directory of events
// (a repository keeping traces.otf2 and traces.def of a Score-P 1.4 run,
// every location announcing events) is refused, naming that directory and
// saying what is missing; before, it was read as a trace of no event that
// every analysis then refused for a reason of its own ("no states", "no
// MPI calls").
func TestNoEventFileAtAll(t *testing.T) {
	dir := t.TempDir()
	anchor := testArchive{defs: announcingDefs().b,
		locations: map[uint64][]byte{0: oneState(1000), 1: oneState(1020)},
		localDefs: map[uint64][]byte{0: emptyLocalDefs(), 1: emptyLocalDefs()}}.write(t, dir)
	events := filepath.Join(dir, "traces")
	must(t, os.RemoveAll(events))
	_, _, err := readNotes(t, anchor)
	var fe *errs.FormatError
	if !errors.As(err, &fe) || fe.File != events {
		t.Fatalf("got %v, want a FormatError naming %s", err, events)
	}
	for _, want := range []string{"none of the 2 location(s)", `"thread" (id 0), "thread" (id 1)`, "definitions only", "LOCATION.evt"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	// The directory there but empty: the same.
	must(t, os.Mkdir(events, 0o755))
	if _, _, err := readNotes(t, anchor); !errors.As(err, &fe) || fe.File != events {
		t.Errorf("empty events directory: got %v", err)
	}
}
