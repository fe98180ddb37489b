package micro

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestMemoryBudget: a model whose cells exceed the memory budget is
// refused before they are allocated, in memory and while streaming, with
// the memory of its values, dense or sparse (Model.ValueBytes).
func TestMemoryBudget(t *testing.T) {
	tr := randomTrace(rand.New(rand.NewPCG(1, 2)), 3)
	m, err := Build(tr, Options{Slices: 100, Depth: Innermost})
	if err != nil {
		t.Fatal(err)
	}
	leaves, states := m.NumLeaves(), len(m.States)
	need := m.ValueBytes()
	src := &ingest.Source{Read: replay(tr)}
	for _, c := range []struct {
		budget int64
		fail   bool
	}{{need, false}, {need - 1, true}, {-1, false}, {0, false}} {
		opt := Options{Slices: 100, Depth: Innermost, MemoryBudget: c.budget}
		_, err := Build(tr, opt)
		_, _, serr := FromSource(src, opt, trace.ReadOptions{})
		for how, err := range map[string]error{"Build": err, "FromSource": serr} {
			if !c.fail {
				if err != nil {
					t.Errorf("%s, budget %d: %v", how, c.budget, err)
				}
				continue
			}
			var ae *errs.ArgumentError
			want := "a model of " + strconv.Itoa(leaves) + " resources x 100 slices x " + strconv.Itoa(states) + " states needs about"
			if !errors.As(err, &ae) || ae.Name != "slices" || !strings.Contains(err.Error(), want) {
				t.Errorf("%s, budget %d: got %v, want an error on slices saying %q", how, c.budget, err, want)
			}
		}
	}
}
