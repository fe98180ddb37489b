package critpath

import (
	"math"
	"testing"
)

type wantCost struct {
	resource, state string
	kind            WaitKind
	short, long     float64 // ns
}

// The delay costs of the SMPI runs, in closed form (testdata/gen/critpath:
// smpi_execute(d) lasts d exactly; a message takes 4 µs from its send).
func TestDelayCostsSMPI(t *testing.T) {
	for _, c := range []struct {
		name string
		want []wantCost
	}{
		// Rank 0 computes 3 s before sending to rank 1, which computed 1 s
		// and waits 2 s: rank 0's extra 2 s of computing cost 2 s. Rank 1
		// then computes 1 s and enters MPI_Barrier last: rank 0 waits 1 s
		// (its 1 s of computing since their last synchronisation), rank 2
		// 3 s, for rank 1's 2 s of computing less its own 1 s, the 4 µs
		// its message took and its 2 s of waiting, which passes 2 s of
		// long-term cost back to rank 0.
		{"cp_delay", []wantCost{
			{"rank-0", "computing", LateSender, 2e9, 0},
			{"rank-0", "computing", Collective, 0, 2e9},
			{"rank-1", "computing", Collective, 2e9, 0},
			{"rank-1", "PMPI_Recv", Collective, 4000, 0},
		}},
		// Rank 1 waits 0.5 s for rank 0 (1 s of computing against its
		// 0.5 s); rank 2 waits 2.800004 s for rank 1 (2.5 s of computing
		// against its 0.2 s, 4 µs of transfer, 0.5 s of waiting).
		{"cp_chain", []wantCost{
			{"rank-1", "computing", LateSender, 2.3e9, 0},
			{"rank-0", "computing", LateSender, 0.5e9, 0.5e9},
			{"rank-1", "PMPI_Recv", LateSender, 4000, 0},
		}},
		{"cp_laterecv", []wantCost{
			{"rank-1", "computing", LateReceiver, 2e9, 0},
		}},
		// Rank 1 waits 1 s for rank 0, then computes 2 s and enters
		// MPI_Allreduce last: rank 0 waits 1.8 s, ranks 2 and 3 2.5 s; rank
		// 3 then computes 0.4 s more than rank 2 before sending to it.
		{"cp_mixed", []wantCost{
			{"rank-1", "computing", Collective, 4.8e9, 0},
			{"rank-0", "computing", Collective, 0, 2e9},
			{"rank-0", "computing", LateSender, 1e9, 0},
			{"rank-3", "computing", LateSender, 0.4e9, 0},
			{"rank-1", "PMPI_Recv", Collective, 8000, 0},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := read(t, "../../../testdata/critpath/"+c.name+".trace", "paje")
			r, err := Compute(tr, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := r.DelayCosts().Costs
			if len(got) != len(c.want) {
				t.Fatalf("%d costs, want %d: %+v", len(got), len(c.want), got)
			}
			for i, w := range c.want {
				g := got[i]
				if r.Resources[g.Resource] != w.resource || g.State != w.state || g.Kind != w.kind ||
					math.Abs(g.ShortTerm-w.short) > 1e-3 || math.Abs(g.LongTerm-w.long) > 1e-3 {
					t.Errorf("cost %d: %s %s %v short %v long %v, want %+v", i, r.Resources[g.Resource], g.State, g.Kind, g.ShortTerm, g.LongTerm, w)
				}
			}
		})
	}
}

// On Score-P's stencil (wait states through messages and barriers), the
// short-term costs of each kind add up to at most the waiting of that
// kind (each wait state hands out at most its wait), and are positive.
func TestDelayCostsBounded(t *testing.T) {
	tr := read(t, "../../../../shared/traces/tracer-stencil4d/stencil4d-otf/traces-32/traces.otf2", "otf2")
	r, err := Compute(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var waited, short [4]float64
	for _, w := range r.Waits {
		waited[w.Kind] += float64(w.Wait)
	}
	for _, c := range r.DelayCosts().Costs {
		if c.ShortTerm < 0 || c.LongTerm < 0 || c.ShortTerm+c.LongTerm == 0 {
			t.Errorf("cost %+v", c)
		}
		short[c.Kind] += c.ShortTerm
	}
	for k := range short {
		if short[k] > waited[k]*(1+1e-12) {
			t.Errorf("%v: short-term costs %v > waiting %v", WaitKind(k), short[k], waited[k])
		}
	}
	if len(r.DelayCosts().Costs) == 0 || short[LateSender] == 0 {
		t.Errorf("costs %+v", r.DelayCosts().Costs)
	}
	t.Logf("%d costs; short-term %v of waiting %v", len(r.DelayCosts().Costs), short, waited)
}
