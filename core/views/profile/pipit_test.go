package profile

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

const (
	corpus = "../../../../shared/traces/"
	// casita holds Score-P traces of CASITA's tests (testdata/casita).
	casita = "../../../testdata/casita/"
	// hpcviewer holds HPCToolkit databases of hpcviewer's tests.
	hpcviewer = "../../../testdata/hpcviewer/"
)

// The pipit oracles (testdata/pipit/README.md) and the traces they were
// computed from.
var pipitCases = []struct {
	dir, trace, format string
	// skip names the regions where pipit and the model differ by rule:
	// the stencil's hand-instrumented TRACER_* regions do not nest, and
	// pipit pairs each Leave with the latest Enter of its name where the
	// OTF2 reader closes the innermost region.
	skip *regexp.Regexp
}{
	{"ping-pong-otf2", corpus + "pipit/tests/data/ping-pong-otf2/traces.otf2", "otf2", nil},
	{"stencil4d-32", corpus + "tracer-stencil4d/stencil4d-otf/traces-32/traces.otf2", "otf2", regexp.MustCompile(`^TRACER_`)},
	{"stencil4d-64", corpus + "tracer-stencil4d/stencil4d-otf/traces-64/traces.otf2", "otf2", regexp.MustCompile(`^TRACER_`)},
	{"ping-pong-hpctoolkit", corpus + "pipit/tests/data/ping-pong-hpctoolkit", "hpctoolkit", nil},
	{"hpctoolkit-db-issue-233-lulesh", corpus + "hpctoolkit-db/issue-233-lulesh", "hpctoolkit", nil},
	{"casita-10_scorep_mpi_tags", casita + "10_scorep_mpi_tags/traces.otf2", "otf2", nil},
	{"casita-4_mpi_ls_barr", casita + "4_mpi_ls_barr/traces.otf2", "otf2", nil},
	{"casita-1_scorep-ompt-host-nested", casita + "1_scorep-ompt-host-nested/traces.otf2", "otf2", nil},
	{"hpcviewer-d.foo", hpcviewer + "d.foo", "hpctoolkit", nil},
	{"hpcviewer-inline.meta.db", hpcviewer + "inline.meta.db", "hpctoolkit", nil},
}

func readCSV(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = r[i]
		}
		rows = append(rows, m)
	}
	return rows
}

func num(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// pipitName maps pipit's name of a context without function to the
// reader's.
func pipitName(n string) string {
	if n == "<unkown function>" {
		return "<unknown procedure>"
	}
	return n
}

// processNumber is pipit's number of one of our processes: the number
// ending its name when it is a rank ("MPI Rank 3", "Rank 3"), else 0: a
// process that is not a rank is the run's only one (Score-P's "Process"
// of a run without MPI, HPCToolkit's "Node 0x7f0101" of a database without
// ranks).
func processNumber(path string) string {
	if m := rankNumber.FindStringSubmatch(path); m != nil {
		return m[1]
	}
	return "0"
}

var rankNumber = regexp.MustCompile(`Rank (\d+)$`)

func readTrace(t *testing.T, path, format string) *trace.Trace {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Skipf("trace not available: %v", err)
	}
	tr, err := formats.ReadFile(path, format)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestPipit compares the flat profile, the per-process sums and the load
// imbalance with pipit's on the same traces: every name pipit lists, its
// mean exclusive and inclusive times (within pipit's rounding of ticks to
// float nanoseconds: 2 ns a state), its number of Enter rows, and the
// imbalance and top processes of both metrics.
func TestPipit(t *testing.T) {
	for _, c := range pipitCases {
		t.Run(c.dir, func(t *testing.T) {
			tr := readTrace(t, c.trace, c.format)
			r, err := Compute(tr, Options{})
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join("testdata", "pipit", c.dir)
			flat := map[string]FlatRow{}
			for _, row := range r.Flat() {
				flat[row.Name.Name] = row
			}
			counts := map[string]float64{}
			for _, row := range readCSV(t, filepath.Join(dir, "enter_count.csv")) {
				counts[pipitName(row["Name"])] = num(t, row["count"])
			}
			compared := 0
			for _, want := range readCSV(t, filepath.Join(dir, "flat_profile.csv")) {
				name := pipitName(want["Name"])
				if want["time.exc"] == "" || c.skip != nil && c.skip.MatchString(name) {
					continue // a category pandas lists without rows
				}
				got, ok := flat[name]
				if !ok {
					t.Errorf("%s: missing", name)
					continue
				}
				compared++
				tol := 2 * counts[name] / float64(got.Processes)
				if d := got.ExclusiveMean*1e9 - num(t, want["time.exc"]); math.Abs(d) > tol {
					t.Errorf("%s: exclusive mean %.3f ns, pipit %s", name, got.ExclusiveMean*1e9, want["time.exc"])
				}
				if d := got.InclusiveMean*1e9 - num(t, want["time.inc"]); math.Abs(d) > tol {
					t.Errorf("%s: inclusive mean %.3f ns, pipit %s", name, got.InclusiveMean*1e9, want["time.inc"])
				}
				if float64(got.Count) != counts[name] {
					t.Errorf("%s: %d states, pipit %v Enter rows", name, got.Count, counts[name])
				}
			}
			if compared == 0 || compared < len(flat)-5 {
				t.Errorf("compared %d names of %d", compared, len(flat))
			}
			for _, m := range []Metric{Exclusive, Inclusive} {
				file, col := "load_imbalance_exc.csv", "time.exc"
				if m == Inclusive {
					file, col = "load_imbalance_inc.csv", "time.inc"
				}
				imb := map[string]ImbalanceRow{}
				for _, row := range r.Imbalance(m, 3) {
					imb[row.Name.Name] = row
				}
				for _, want := range readCSV(t, filepath.Join(dir, file)) {
					name := pipitName(want["Name"])
					if c.skip != nil && c.skip.MatchString(name) {
						continue
					}
					got := imb[name]
					wantImb, wantMean := math.NaN(), num(t, want[col+".mean"])
					if want[col+".imbalance"] != "" {
						wantImb = num(t, want[col+".imbalance"])
					}
					// pipit's mean and maximum, within its rounding.
					tol := 2 * counts[name]
					if math.IsNaN(wantImb) != math.IsNaN(got.Imbalance) || math.Abs(got.Mean*1e9-wantMean) > tol ||
						!math.IsNaN(wantImb) && math.Abs(got.Max*1e9-wantImb*wantMean) > tol {
						t.Errorf("%s %v: imbalance %v of mean %v ns, pipit %v of %v", name, m, got.Imbalance, got.Mean*1e9, wantImb, wantMean)
					}
					var top []string
					for _, p := range got.Top {
						top = append(top, processNumber(p))
					}
					// Equal times may rank in another order in pipit: the
					// k-th process of each must have the same time.
					if wantTop := strings.Fields(want["Top processes"]); !slices.Equal(top, wantTop) {
						times := processTimes(r, name, m)
						for k := range wantTop {
							if k >= len(top) || math.Abs(float64(times[top[k]]-times[wantTop[k]])) > tol {
								t.Errorf("%s %v: top processes %v, pipit %v", name, m, top, wantTop)
								break
							}
						}
					}
				}
			}
		})
	}
}

// processTimes returns the time of a name in each process, by pipit's
// process number.
func processTimes(r *Result, name string, m Metric) map[string]trace.Time {
	out := map[string]trace.Time{}
	for i, n := range r.Names {
		if n.Name != name {
			continue
		}
		for p, s := range r.Sums[i] {
			out[processNumber(r.Processes[p])] = s.Exclusive
			if m == Inclusive {
				out[processNumber(r.Processes[p])] = s.Inclusive
			}
		}
	}
	return out
}

// TestPerProcess compares the per-process sums with pipit's
// flat_profile(per_process=True), where the oracle has them.
func TestPerProcess(t *testing.T) {
	for _, c := range pipitCases {
		t.Run(c.dir, func(t *testing.T) {
			oracle := filepath.Join("testdata", "pipit", c.dir, "flat_profile_per_process.csv")
			if _, err := os.Stat(oracle); err != nil {
				t.Skipf("no per-process oracle: %v", err)
			}
			tr := readTrace(t, c.trace, c.format)
			r, err := Compute(tr, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := map[[2]string]ProcessRow{}
			for _, row := range r.PerProcess() {
				k := [2]string{row.Name.Name, processNumber(row.Process)}
				if prev, ok := got[k]; ok {
					// Else one would hide the other from the comparison.
					t.Fatalf("%s and %s are both pipit's process %s", prev.Process, row.Process, k[1])
				}
				got[k] = row
			}
			n := 0
			for _, want := range readCSV(t, oracle) {
				name := pipitName(want["Name"])
				if want["time.exc"] == "" || c.skip != nil && c.skip.MatchString(name) {
					continue
				}
				row, ok := got[[2]string{name, want["Process"]}]
				if !ok {
					t.Errorf("%s in process %s: missing", name, want["Process"])
					continue
				}
				n++
				tol := 2 * float64(row.Count)
				if d := float64(row.Exclusive) - num(t, want["time.exc"]); math.Abs(d) > tol {
					t.Errorf("%s in %s: exclusive %v ns, pipit %s", name, row.Process, int64(row.Exclusive), want["time.exc"])
				}
				if d := float64(row.Inclusive) - num(t, want["time.inc"]); math.Abs(d) > tol {
					t.Errorf("%s in %s: inclusive %v ns, pipit %s", name, row.Process, int64(row.Inclusive), want["time.inc"])
				}
			}
			if n == 0 {
				t.Error("nothing compared")
			}
		})
	}
}
