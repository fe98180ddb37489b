package synthmodel

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The LCG model with fan-out 4, depth 3 and 30 slices is the model of the
// lpaggreg test vector (../shared/notes/lpaggreg-64/model_64.csv).
func TestLCGMatchesTheReferenceVector(t *testing.T) {
	path := filepath.Join("..", "..", "..", "..", "shared", "notes", "lpaggreg-64", "model_64.csv")
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		t.Skipf("%s not available", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	m, err := LCG(4, 3, 30)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows)-1 != len(m.Values) || m.NumLeaves() != 64 || len(m.States) != 4 {
		t.Fatalf("%d rows for %d values", len(rows)-1, len(m.Values))
	}
	leaf := map[string]int{}
	for i, n := range m.Tree.Leaves {
		leaf[strings.ReplaceAll(m.Tree.Path(n, "."), "/", ".")] = i
	}
	for _, r := range rows[1:] {
		s, _ := strconv.Atoi(r[1])
		x, _ := strconv.Atoi(r[2])
		want, _ := strconv.ParseFloat(r[3], 64)
		l, ok := leaf[r[0]]
		if !ok {
			t.Fatalf("no leaf %s", r[0])
		}
		if got := m.Value(l, s, x); math.Abs(got-want) > 1e-15 {
			t.Fatalf("%s slice %d state %d: %v, want %v", r[0], s, x, got, want)
		}
	}
}

func TestScenario(t *testing.T) {
	sc := Scenario{Fanout: [5]int{4, 2, 3, 2, 5}, Slices: 3, Noise: 0.01, Contrast: 0.3}
	m, err := sc.Model()
	if err != nil {
		t.Fatal(err)
	}
	if m.NumLeaves() != 240 || sc.Processes() != 240 || m.Tree.Len() != 1+4+8+24+48+240 {
		t.Fatalf("%d leaves, %d nodes", m.NumLeaves(), m.Tree.Len())
	}
	share := func(path string, slice int) float64 {
		for i, n := range m.Tree.Leaves {
			if m.Tree.Path(n, "/") == path {
				return m.Value(i, slice, 0)
			}
		}
		t.Fatalf("no process %s", path)
		return 0
	}
	for path, want := range map[string]float64{
		"site-3/sc-1/cluster-0/machine-0/proc-1": 0.49, // homogeneous
		"site-3/sc-1/cluster-0/machine-0/proc-2": 0.51,
		"site-0/sc-1/cluster-2/machine-1/proc-3": 0.19, // site-0: super-clusters differ
		"site-1/sc-0/cluster-1/machine-0/proc-0": 0.21, // site-1/sc-0: clusters differ
		"site-2/sc-0/cluster-0/machine-1/proc-2": 0.21, // site-2/sc-0/cluster-0: machines differ
		"site-3/sc-0/cluster-0/machine-0/proc-3": 0.19, // one machine: processes differ
	} {
		for s := 0; s < 3; s++ {
			if got := share(path, s); math.Abs(got-want) > 1e-15 {
				t.Errorf("%s slice %d: VS0 share %v, want %v", path, s, got, want)
			}
		}
	}
	for i := 0; i < len(m.Values); i += 2 {
		if m.Values[i]+m.Values[i+1] != 1 {
			t.Fatalf("cell %d: shares add up to %v", i/2, m.Values[i]+m.Values[i+1])
		}
	}
	// site-0: 2 super-clusters; site-1: 1 + 3 clusters; site-2: 1 + 2 + 2
	// machines; site-3: 1 + 2 + 1 + 5 processes.
	if got := len(sc.Detailed()); got != 2+4+5+9 {
		t.Errorf("%d detailed parts", got)
	}
	for _, bad := range []Scenario{
		{Fanout: [5]int{3, 2, 2, 2, 2}, Slices: 1},
		{Fanout: [5]int{4, 1, 2, 2, 2}, Slices: 1},
		{Fanout: [5]int{4, 2, 2, 2, 2}, Slices: 0},
		{Fanout: [5]int{4, 2, 2, 2, 2}, Slices: 1, Noise: 0.3, Contrast: 0.3},
	} {
		if _, err := bad.Model(); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
	if _, err := LCG(0, 2, 3); err == nil {
		t.Error("LCG with fan-out 0: no error")
	}
}

// A seeded variant places its four heterogeneous groups in four distinct
// sites, inside the fan-outs, the same way on every call; its noise stays
// within +-Noise; seed 0 is the paper's layout.
func TestScenarioSeedPlaces(t *testing.T) {
	paper := Scenario{Fanout: [5]int{4, 2, 3, 2, 5}, Slices: 1, Noise: 0.01, Contrast: 0.3}
	if got := paper.Places(); got != [4][4]int{{0}, {1}, {2}, {3}} {
		t.Errorf("seed 0 places %v", got)
	}
	for seed := uint64(1); seed <= 50; seed++ {
		sc := paper
		sc.Fanout, sc.Seed = [5]int{6, 3, 4, 2, 7}, seed
		pl := sc.Places()
		if pl != sc.Places() {
			t.Fatalf("seed %d: places differ between calls", seed)
		}
		sites := map[int]bool{}
		for l, p := range pl {
			sites[p[0]] = true
			for d := 0; d <= l; d++ {
				if p[d] < 0 || p[d] >= sc.Fanout[d] {
					t.Fatalf("seed %d: level %d at %v", seed, l, p)
				}
			}
		}
		if len(sites) != 4 {
			t.Fatalf("seed %d: places %v share a site", seed, pl)
		}
		m, err := sc.Model()
		if err != nil {
			t.Fatal(err)
		}
		// Every process outside the heterogeneous groups is within noise
		// of 1/2; the groups' children lean by the contrast.
		far := 0
		for leaf := range m.NumLeaves() {
			r := m.Values[leaf*2]
			switch d := r - 0.5; {
			case d >= -sc.Noise && d <= sc.Noise:
			case d >= sc.Contrast-sc.Noise || d <= -sc.Contrast+sc.Noise:
				far++
			default:
				t.Fatalf("seed %d: a process at %v", seed, r)
			}
		}
		// A site holds 3*4*2*7 processes, a super-cluster 4*2*7, a
		// cluster 2*7 and a machine 7.
		if want := 3*4*2*7 + 4*2*7 + 2*7 + 7; far != want {
			t.Errorf("seed %d: %d processes lean, want %d", seed, far, want)
		}
	}
}
