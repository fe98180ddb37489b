package pop

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/readers/otf2/pyotf2"
)

const epochDir = "../../../testdata/epoch/"

// epochRun reads the EPOCH run on n processes, skipping when the file is
// absent (the 8- and 16-process runs come from testdata/epoch/fetch.sh).
func epochRun(t *testing.T, n int) *Run {
	t.Helper()
	path := epochDir + "epoch_" + strconv.Itoa(n) + "proc.prv.zst"
	if _, err := os.Stat(path); err != nil {
		path = epochDir + "epoch_" + strconv.Itoa(n) + "proc.prv.gz"
	}
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%d-process EPOCH run not available (testdata/epoch/fetch.sh): %v", n, err)
	}
	tr, err := formats.ReadFile(path, "paraver")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Compute(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// modelFactors reads BSC's modelfactors.csv: the factors (in %) and the
// raw data ("#" lines, us), by row label, one value per run.
func modelFactors(t *testing.T) map[string][]float64 {
	t.Helper()
	f, err := os.Open(epochDir + "modelfactors.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]float64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(strings.TrimPrefix(sc.Text(), "#"), ";")
		if len(fields) < 2 {
			continue
		}
		for _, s := range fields[1:] {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("%q: %v", sc.Text(), err)
			}
			out[fields[0]] = append(out[fields[0]], v)
		}
	}
	return out
}

// TestEpochRaw compares the raw data with BSC's modelfactors.csv: times
// to the 0.01 us it prints, counters exactly; the ideal runtime (Dimemas'
// there, our replay here) also exactly but on 16 processes, the only run
// with MPI_Send and MPI_Recv, where it is 172.85 us (0.0075 %) shorter.
func TestEpochRaw(t *testing.T) {
	mf := modelFactors(t)
	for k, n := range []int{1, 2, 4, 8, 16} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			r := epochRun(t, n)
			us := func(v float64) float64 { return v / 1000 }
			for _, c := range []struct {
				name string
				got  float64
				tol  float64
			}{
				{"Runtime (us)", us(float64(r.Runtime)), 0.01},
				{"Runtime (ideal)", us(float64(r.IdealRuntime)), 0.01},
				{"Useful duration (average)", us(r.UsefulAvg), 0.01},
				{"Useful duration (maximum)", us(float64(r.UsefulMax)), 0.01},
				{"Useful duration (total)", us(float64(r.UsefulTotal)), 0.01},
				{"Useful duration (ideal, max)", us(float64(r.UsefulIdealMax)), 0.01},
				{"Useful instructions (total)", r.Instructions, 0},
				{"Useful cycles (total)", r.Cycles, 0},
			} {
				want := mf[c.name][k]
				if c.name == "Runtime (ideal)" && n == 16 {
					c.tol = 1e-4 * want
				}
				if math.Abs(c.got-want) > c.tol+1e-9 {
					t.Errorf("%s: %.2f, BSC %.2f", c.name, c.got, want)
				}
			}
			if r.Processes != n || r.Resources != n || !r.HasIdeal {
				t.Errorf("%d processes, %d resources, ideal %v", r.Processes, r.Resources, r.HasIdeal)
			}
		})
	}
}

// TestEpochFactors compares the factors of the whole series with BSC's
// (modelfactors.csv, multiplicative, in %): equal to the 1e-6 % printed,
// but for serialisation and transfer on 16 processes (0.0073 points, the
// replay's 0.0075 % there); and the additive ones with pypop's
// MPI_Metrics formulas on the same raw data (pypop/metrics/mpi.py; the
// values of /work's research notes, printed to 1e-4 %). The scaling is
// found strong, as BSC found it.
func TestEpochFactors(t *testing.T) {
	var runs []Run
	for _, n := range []int{16, 4, 1, 8, 2} { // any order: sorted by processes
		runs = append(runs, *epochRun(t, n))
	}
	f, err := ComputeFactors(runs, Auto)
	if err != nil {
		t.Fatal(err)
	}
	if f.Scaling != Strong || math.Abs(f.NormalisedInstructions-0.245) > 0.001 {
		t.Errorf("scaling %v (normalised instructions %v), BSC: strong (0.245)", f.Scaling, f.NormalisedInstructions)
	}
	if got := strings.Join(f.Labels(), " "); got != "1 2 4 8 16" {
		t.Errorf("labels %q", got)
	}
	mf := modelFactors(t)
	bsc := map[string]string{
		"parallel_efficiency": "Parallel efficiency", "load_balance": "Load balance",
		"communication_efficiency": "Communication efficiency", "serialisation_efficiency": "Serialization efficiency",
		"transfer_efficiency": "Transfer efficiency", "computation_scalability": "Computation scalability",
		"global_efficiency": "Global efficiency", "ipc_scalability": "IPC scalability",
		"instruction_scalability": "Instruction scalability", "frequency_scalability": "Frequency scalability",
		"speedup": "Speedup", "ipc": "Average IPC", "frequency": "Average frequency (GHz)",
	}
	for _, row := range f.Form(Multiplicative) {
		want := mf[bsc[row.Key]]
		for i, v := range row.Values {
			if row.Fraction {
				v *= 100
			}
			tol := 1.5e-6
			if i == 4 && (row.Key == "serialisation_efficiency" || row.Key == "transfer_efficiency") {
				tol = 0.01
			}
			if math.Abs(v-want[i]) > tol {
				t.Errorf("%s (%s): %.6f, BSC %.6f", row.Label, f.Labels()[i], v, want[i])
			}
		}
	}
	pypop := map[string][]float64{
		"load_balance":             {100.0000, 99.7618, 98.7054, 98.3257, 99.2793},
		"serialisation_efficiency": {99.9891, 99.8246, 99.1591, 98.1566, 97.1284},
		"transfer_efficiency":      {99.9365, 99.7918, 99.4855, 99.2254, 98.7435},
	}
	for _, row := range f.Form(Additive) {
		want, ok := pypop[row.Key]
		if !ok || row.Form != "additive" {
			continue
		}
		for i, v := range row.Values {
			if math.Abs(100*v-want[i]) > 0.00005+1e-9 {
				t.Errorf("%s additive (%s): %.6f, pypop %.4f", row.Label, f.Labels()[i], 100*v, want[i])
			}
		}
	}
	// The additive identities: CommE = SerE + TE - 1, PE = LB + CommE - 1.
	rows := map[string][]float64{}
	for _, row := range f.Form(Additive) {
		rows[row.Key] = row.Values
	}
	for i := range runs {
		if d := rows["communication_efficiency"][i] - (rows["serialisation_efficiency"][i] + rows["transfer_efficiency"][i] - 1); math.Abs(d) > 1e-12 {
			t.Errorf("run %d: CommE - (SerE + TE - 1) = %g", i, d)
		}
		if d := rows["parallel_efficiency"][i] - (rows["load_balance"][i] + rows["communication_efficiency"][i] - 1); math.Abs(d) > 1e-12 {
			t.Errorf("run %d: PE - (LB + CommE - 1) = %g", i, d)
		}
	}
}

// TestEpochOTF2Twin checks that the same run, as Paraver and as OTF2,
// gives the same raw data, so the same efficiencies (but for the
// counters', within 0.2 %: see below): the OTF2 twin of
// each EPOCH run is written by testdata/gen/epoch_otf2.py (python3-otf2),
// with Extrae's MPI calls as regions, its own work (initialisation,
// flushes) as regions of the measurement system, its messages and
// collectives as OTF2's records and its counters as PAPI metrics.
func TestEpochOTF2Twin(t *testing.T) {
	pyotf2.Need(t)
	for _, n := range []int{1, 2, 4, 8, 16} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			prv := epochDir + "epoch_" + strconv.Itoa(n) + "proc.prv.zst"
			if _, err := os.Stat(prv); err != nil {
				prv = epochDir + "epoch_" + strconv.Itoa(n) + "proc.prv.gz"
			}
			if _, err := os.Stat(prv); err != nil {
				t.Skipf("%d-process EPOCH run not available (testdata/epoch/fetch.sh)", n)
			}
			dir := filepath.Join(t.TempDir(), "twin")
			pyotf2.Run(t, "testdata/gen/epoch_otf2.py", prv, dir)
			tr, err := formats.ReadFile(filepath.Join(dir, "traces.otf2"), "otf2")
			if err != nil {
				t.Fatal(err)
			}
			twin, err := Compute(tr, Options{})
			if err != nil {
				t.Fatal(err)
			}
			prvRun := epochRun(t, n)
			for _, c := range []struct {
				name      string
				got, want float64
			}{
				{"runtime", float64(twin.Runtime), float64(prvRun.Runtime)},
				{"useful total", float64(twin.UsefulTotal), float64(prvRun.UsefulTotal)},
				{"useful max", float64(twin.UsefulMax), float64(prvRun.UsefulMax)},
				{"ideal runtime", float64(twin.IdealRuntime), float64(prvRun.IdealRuntime)},
				{"useful ideal max", float64(twin.UsefulIdealMax), float64(prvRun.UsefulIdealMax)},
				{"processes", float64(twin.Processes), float64(prvRun.Processes)},
				{"calls", float64(twin.Calls), float64(prvRun.Calls)},
				{"messages", float64(twin.Messages), float64(prvRun.Messages)},
			} {
				if c.got != c.want {
					t.Errorf("%s: OTF2 %v, Paraver %v", c.name, c.got, c.want)
				}
			}
			// Extrae writes two readings of the counters at one instant
			// now and then (one at 1 process); Paraver's "next event value"
			// gives the first to the burst before and the second to no
			// burst, while the OTF2 metric, accumulated, keeps both.
			for _, c := range []struct {
				name      string
				got, want float64
			}{{"instructions", twin.Instructions, prvRun.Instructions}, {"cycles", twin.Cycles, prvRun.Cycles}} {
				if math.Abs(c.got-c.want) > 2e-3*c.want {
					t.Errorf("%s: OTF2 %v, Paraver %v", c.name, c.got, c.want)
				}
			}
		})
	}
}
