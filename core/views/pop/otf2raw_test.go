package pop

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/otf2/pyotf2"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestOTF2RawIndependent compares POP's raw data of Score-P traces (the
// runtime and every resource's useful computation, hence load balance,
// communication and parallel efficiency) with a script reading
// python3-otf2's records by docs/analyses.md's definitions, written
// apart (testdata/gen/pop_otf2_raw.py), to the nanosecond. The traces:
// CASITA's MPI tests (testdata/casita) and, when the corpus is there, its
// Score-P archives.
func TestOTF2RawIndependent(t *testing.T) {
	pyotf2.Need(t)
	for _, c := range pyotf2.MPIArchives() {
		t.Run(c.Name, func(t *testing.T) {
			if _, err := os.Stat(c.Path); err != nil {
				t.Skipf("trace not available: %v", err)
			}
			out := filepath.Join(t.TempDir(), "raw.json")
			pyotf2.Run(t, "testdata/gen/pop_otf2_raw.py", c.Path, out)
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			var want struct {
				Runtime trace.Time
				Useful  map[string]trace.Time
			}
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatal(err)
			}
			r := computeFile(t, c.Path, "otf2")
			if r.Runtime != want.Runtime {
				t.Errorf("runtime %v, the script's %v", r.Runtime, want.Runtime)
			}
			if len(r.PerResource) != len(want.Useful) {
				t.Errorf("%d resources, the script's %d", len(r.PerResource), len(want.Useful))
			}
			for _, res := range r.PerResource {
				parts := strings.Split(res.Path, "/")
				key := strings.Join(parts[max(len(parts)-2, 0):], "/")
				if u, ok := want.Useful[key]; !ok || res.Useful != u {
					t.Errorf("%s: useful %v, the script's %v", res.Path, res.Useful, u)
				}
			}
		})
	}
}
