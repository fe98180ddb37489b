package pjdump

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

var (
	luTrace = corpus + "/starvz/inst/extdata/lu_trace"
	qrTrace = corpus + "/starvz/extra_data/qr_trace"
)

type inverted struct {
	file string
	line int
}

// readStarVZ reads a StarVZ directory, in milliseconds as the door's
// time_unit auto does (see TestTimeUnitStarVZ), skipping and recording
// the rows that end before they start.
func readStarVZ(t *testing.T, dir string) (*trace.Trace, []inverted) {
	t.Helper()
	needCorpus(t, dir)
	tr := trace.New(dir)
	var skipped []inverted
	err := readWith(dir, tr, readOptions{TimeUnit: trace.Second / 1000, OnInverted: func(file string, line int) {
		skipped = append(skipped, inverted{strings.TrimPrefix(file, dir+"/"), line})
	}})
	if err != nil {
		t.Fatal(err)
	}
	return tr, skipped
}

func countStates(tr *trace.Trace) map[string]int {
	n := map[string]int{}
	for _, s := range tr.States.All() {
		n[tr.TypeName(s.Type)]++
	}
	return n
}

// TestStarVZCounts checks the row counts MANIFEST.md gives for StarVZ's
// two traces (section 1.3), rows of negative duration included: read
// strictly, those rows fail; with readOptions.OnInverted they are reported.
func TestStarVZCounts(t *testing.T) {
	for _, c := range []struct {
		dir                         string
		workerStates, variables     int
		links, events               int
		firstInverted               string
		skipped                     []inverted
		containers, unlisted, types int
	}{
		{luTrace, 5681, 1603, 35, 2177, "paje.variable.csv.gz:34: ends at 1336.123290, before it starts at 1362.789704",
			[]inverted{{"paje.variable.csv.gz", 34}, {"paje.variable.csv.gz", 780}, {"paje.variable.csv.gz", 1604}}, 90, 12, 40},
		{qrTrace, 72582, 30344, 718, 11966, "paje.variable.csv.gz:30345: ends at 16320.365904, before it starts at 16320.388418",
			[]inverted{{"paje.variable.csv.gz", 30345}}, 27, 0, 24},
	} {
		needCorpus(t, c.dir)
		_, err := readFile(c.dir)
		var fe *errs.FormatError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), c.firstInverted+"; read the file anyway") {
			t.Errorf("%s read strictly: got %v, want an error with %q and the way out", c.dir, err, c.firstInverted)
		}
		tr, skipped := readStarVZ(t, c.dir)
		if !slices.Equal(skipped, c.skipped) {
			t.Errorf("%s: skipped %v, want %v", c.dir, skipped, c.skipped)
		}
		unlisted := 0
		for _, ct := range tr.Containers[1:] {
			if tr.TypeName(ct.Type) == "Unlisted" {
				unlisted++
			}
		}
		for what, got := range map[string][2]int{
			"worker states": {countStates(tr)["Worker State"], c.workerStates},
			"variable rows": {tr.Variables.Len() + len(skipped), c.variables},
			"links":         {tr.Links.Len(), c.links},
			"events":        {tr.Events.Len(), c.events},
			"containers":    {len(tr.Containers), c.containers},
			"unlisted":      {unlisted, c.unlisted},
			"types":         {len(tr.Types), c.types},
		} {
			if got[0] != got[1] {
				t.Errorf("%s: %s: got %d, want %d", c.dir, what, got[0], got[1])
			}
		}
	}
}

// TestStarVZHierarchy checks where lu_trace's entities land.
func TestStarVZHierarchy(t *testing.T) {
	tr, _ := readStarVZ(t, luTrace)
	find := func(name string) int32 {
		for i, c := range tr.Containers {
			if c.Name == name {
				return int32(i)
			}
		}
		t.Fatalf("no container %q", name)
		return 0
	}
	for name, want := range map[string]string{
		"0_CPU0":  "root/0_program/0_MEMNODE0/0_T0/0_CPU0",
		"1_mpict": "root/1_program/1_mpict",
		"0_CPU14": "0_CPU14", // not in entities.csv
	} {
		if got := tr.ContainerPath(find(name), "/"); got != want {
			t.Errorf("%s: path %q, want %q", name, got, want)
		}
	}
	l := tr.Links.At(0)
	if tr.Containers[l.Container].Name != "root" || l.Start != 37530769 || l.End != 102360703 || l.Size != 7372800 ||
		tr.Containers[l.From].Name != "0_mpict" || tr.Containers[l.To].Name != "1_mpict" || l.Key != "mpicom_0" ||
		l.Value != trace.None || tr.TypeName(l.Type) != "MPI communication" {
		t.Errorf("first link %+v", l)
	}
	var cpu0 []trace.State
	for _, s := range tr.States.All() {
		if s.Container == find("0_CPU0") {
			cpu0 = append(cpu0, s)
		}
	}
	// State, 0_CPU0, Worker State, 0.823973, 5.900164, 5.076191, 0.000000, dplrnt, 7372800, ...
	// in milliseconds.
	if !slices.ContainsFunc(cpu0, func(s trace.State) bool {
		return s.Start == 823973 && s.End == 5900164 && tr.ValueName(s.Value) == "dplrnt" && s.Depth == 0
	}) {
		t.Error("no dplrnt state on 0_CPU0 from 0.823973 ms to 5.900164 ms")
	}
}

// needCorpus skips the test when path, a part of the shared corpus, is
// absent.
func needCorpus(t testing.TB, path string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s is absent (the shared trace corpus is not beside the repository)", path)
	}
}
