package profile

import (
	"fmt"
	"os"
	"reflect"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/partition"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The profile of the parts of a trace (an OTF2 archive's location groups,
// an HPCToolkit database's trace lines), merged, encoded and decoded on
// the way, is the profile of the whole trace.
func TestPartsMerge(t *testing.T) {
	for _, c := range []struct{ path, format string }{
		{corpus + "tracer-stencil4d/stencil4d-otf/traces-32/traces.otf2", "otf2"},
		{corpus + "hpctoolkit-db/issue-233-lulesh", "hpctoolkit"},
	} {
		if _, err := os.Stat(c.path); err != nil {
			t.Skipf("trace not available: %v", err)
		}
		whole, err := Compute(readTrace(t, c.path, c.format), Options{})
		if err != nil {
			t.Fatal(err)
		}
		plan, err := partition.PlanFile(c.path, c.format, nil, 4)
		if err != nil {
			t.Fatal(err)
		}
		if len(plan.Parts) < 2 {
			t.Fatalf("%s: %d parts", c.path, len(plan.Parts))
		}
		var merged *Result
		for _, p := range plan.Parts {
			r, err := ComputePart(p, Options{}, trace.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			data, err := r.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if r, err = UnmarshalResult(data); err != nil {
				t.Fatal(err)
			}
			if merged == nil {
				merged = r
			} else if merged, err = Merge(merged, r); err != nil {
				t.Fatal(err)
			}
		}
		if got, want := merged.Flat(), whole.Flat(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: merged flat profile\n%+v\nwant\n%+v", c.path, got[:3], want[:3])
		}
		got, want := merged.Imbalance(Exclusive, 3), whole.Imbalance(Exclusive, 3)
		for i := range want {
			if fmt.Sprintf("%+v", got[i]) != fmt.Sprintf("%+v", want[i]) { // NaN imbalances are equal
				t.Errorf("%s: merged imbalance %+v, want %+v", c.path, got[i], want[i])
				break
			}
		}
	}
}
