package critpath

import (
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/mpi"
)

// replay runs the trace forward again keeping every measured duration: a
// computation gap (between two calls of a resource) lasts what it
// lasted, but gap k of resource shrink[0] is eps shorter; a call leaves
// when it entered, or when the last call it depends on entered if later,
// plus what it took beyond that in the trace. It returns the replayed
// instant at which the path ends: the last entry into MPI_Finalize, or
// the last record without it.
func replay(run *mpi.Run, deps map[mpi.CallRef][]mpi.CallRef, shrink [2]int, eps trace.Time) trace.Time {
	n := len(run.Resources)
	enter := make([][]trace.Time, n)
	done := make([][]bool, n)
	for r := range n {
		enter[r] = make([]trace.Time, len(run.Calls[r]))
		done[r] = make([]bool, len(run.Calls[r]))
	}
	// What a call took beyond its latest dependency, in the trace.
	resid := func(ref mpi.CallRef) trace.Time {
		c := run.Call(ref)
		dep := c.Enter
		for _, d := range deps[ref] {
			dep = max(dep, run.Call(d).Enter)
		}
		return c.Leave - min(dep, c.Leave)
	}
	pos, now := make([]int, n), make([]trace.Time, n)
	prev := make([]trace.Time, n)
	for r := range n {
		now[r], prev[r] = run.Start, run.Start
	}
	for progress := true; progress; {
		progress = false
		for r := range n {
			for pos[r] < len(run.Calls[r]) {
				j := pos[r]
				c := &run.Calls[r][j]
				if !done[r][j] {
					gap := c.Enter - prev[r]
					if shrink == [2]int{r, j} {
						gap -= eps
					}
					now[r] += gap
					enter[r][j], done[r][j] = now[r], true
					progress = true
				}
				ref := mpi.CallRef{Resource: int32(r), Call: int32(j)}
				t, ready := enter[r][j], true
				for _, d := range deps[ref] {
					if !done[d.Resource][d.Call] {
						ready = false
						break
					}
					t = max(t, enter[d.Resource][d.Call])
				}
				if !ready {
					break
				}
				now[r], prev[r] = t+resid(ref), c.Leave
				pos[r]++
				progress = true
			}
		}
	}
	var end trace.Time
	for r := range n {
		if f := lastNamed(fromMPIRun(run), fromMPIRun(run).reader(), operations(fromMPIRun(run)), int32(r), "finalize"); f >= 0 {
			end = max(end, enter[r][f])
		} else {
			end = max(end, now[r]+run.Resources[r].Last-prev[r])
		}
	}
	return end
}

// dependencies lists, for every call, the calls whose entry it may wait
// for: the wait states' causes (the send of a message received, the
// receive of a blocked send, the members of a collective it waits for).
func dependencies(run *mpi.Run) map[mpi.CallRef][]mpi.CallRef {
	deps := map[mpi.CallRef][]mpi.CallRef{}
	for _, m := range run.Messages {
		if m.SendCall < 0 || m.RecvCall < 0 {
			continue
		}
		s, r := mpi.CallRef{Resource: m.From, Call: m.SendCall}, mpi.CallRef{Resource: m.To, Call: m.RecvCall}
		sc, rc := run.Call(s), run.Call(r)
		if rc.Class.Completes() {
			deps[r] = append(deps[r], s)
		}
		if (sc.Class == mpi.Send || sc.Class == mpi.SendRecv) && sc.Leave > rc.Enter {
			deps[s] = append(deps[s], r)
		}
	}
	for _, c := range run.Collectives {
		for _, x := range c.Members {
			for _, y := range c.Members {
				if x != y {
					deps[x] = append(deps[x], y)
				}
			}
		}
	}
	return deps
}

// TestBruteForce checks the backward replay against the definition of
// criticality on Score-P traces: a computation gap between two MPI calls
// is critical when shortening it by eps shortens the run (replayed with
// every measured duration kept) by eps; the gaps the path covers must be
// exactly those. Gaps whose shortening shortens the run by a fraction of
// eps are ties between two paths (either is right) and are left out.
func TestBruteForce(t *testing.T) {
	for _, c := range []struct{ name, path string }{
		{"stencil4d-32", "../../../../shared/traces/tracer-stencil4d/stencil4d-otf/traces-32/traces.otf2"},
		{"stencil4d-64", "../../../../shared/traces/tracer-stencil4d/stencil4d-otf/traces-64/traces.otf2"},
		{"cp_mixed", "../../../testdata/critpath/cp_mixed.trace"},
	} {
		t.Run(c.name, func(t *testing.T) {
			format := "otf2"
			if c.name == "cp_mixed" {
				format = "paje"
			}
			tr := read(t, c.path, format)
			r, err := Compute(tr, Options{})
			if err != nil {
				t.Fatal(err)
			}
			// The Result keeps no messages: the run is built again.
			run, err := mpi.FromTrace(tr)
			if err != nil {
				t.Fatal(err)
			}
			deps := dependencies(run)
			base := replay(run, deps, [2]int{-1, -1}, 0)
			if base != r.End {
				t.Fatalf("replayed end %v, traced %v", base, r.End)
			}
			eps := max((r.End-r.Start)/10_000_000, 1)
			agree, ties := 0, 0
			for res := range run.Resources {
				calls := run.Calls[res]
				for k := 1; k < len(calls); k++ {
					a, b := calls[k-1].Leave, calls[k].Enter
					if b-a <= 2*eps || a < r.Start || b > r.End {
						continue
					}
					gain := base - replay(run, deps, [2]int{res, k}, eps)
					crit := gain == eps
					if gain > 0 && gain < eps {
						ties++
						continue
					}
					onPath := false
					mid := a + (b-a)/2
					for _, s := range r.Segments {
						if int(s.Resource) == res && s.Start <= mid && mid <= s.End {
							onPath = true
						}
					}
					if crit != onPath {
						t.Errorf("%s gap [%v, %v]: critical by brute force %v, on the path %v", run.Resources[res].Path, a, b, crit, onPath)
					} else {
						agree++
					}
				}
			}
			t.Logf("%d gaps agree, %d ties left out", agree, ties)
			if agree < 5 {
				t.Errorf("only %d gaps compared", agree)
			}
		})
	}
}
