package pop

import (
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

func read(t *testing.T, path, format string) *trace.Trace {
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

// cp_coll (SMPI, Pajé): 4 ranks, three MPI_Allreduce, rank k%4 computing
// 3 s before the k-th and the others 1 s. Useful = time outside MPI
// calls: 5 s on ranks 0 to 2 (3 + 1 + 1), 3 s on rank 3, so load balance
// 4.5/5; on an ideal network each Allreduce waits for the 3 s one: 9 s of
// runtime for at most 5 s of computation, so serialisation 5/9; the
// measured run lasts 9.000029 s.
func TestSMPIClosedForm(t *testing.T) {
	tr := read(t, "../../../testdata/critpath/cp_coll.trace", "paje")
	r, err := Compute(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.UsefulRule == "" || r.Resources != 4 || r.Processes != 4 || !r.HasIdeal {
		t.Fatalf("%+v", r)
	}
	for i, res := range r.PerResource {
		want := 5 * trace.Second
		if i == 3 {
			want = 3 * trace.Second
		}
		if res.Useful != want {
			t.Errorf("%s: useful %v, want %v", res.Path, res.Useful, want)
		}
	}
	if r.Runtime != 9000029000 || r.IdealRuntime != 9*trace.Second || r.UsefulIdealMax != 5*trace.Second {
		t.Errorf("runtime %v, ideal %v, useful ideal max %v; want 9.000029s, 9s, 5s", r.Runtime, r.IdealRuntime, r.UsefulIdealMax)
	}
	if !math.IsNaN(r.Instructions) {
		t.Errorf("instructions %v without counters", r.Instructions)
	}
	f, err := ComputeFactors([]Run{*r}, Auto)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		"load_balance": 0.9, "communication_efficiency": 5 / 9.000029, "serialisation_efficiency": 5.0 / 9,
		"transfer_efficiency": 9 / 9.000029, "parallel_efficiency": 4.5 / 9.000029,
	}
	for _, row := range f.Form(Multiplicative) {
		if w, ok := want[row.Key]; ok && math.Abs(row.Values[0]-w) > 1e-12 {
			t.Errorf("%s: %v, want %v", row.Label, row.Values[0], w)
		}
		if row.Key == "ipc" && !math.IsNaN(row.Values[0]) {
			t.Errorf("IPC %v without counters", row.Values[0])
		}
	}
}

// An HPCToolkit database has MPI calls (sampled frames named PMPI_*) but
// no messages: load balance and communication efficiency, no ideal
// replay, and the reason.
func TestNoMessages(t *testing.T) {
	tr := read(t, "../../../../shared/traces/hpctoolkit-db/issue-233-lulesh", "hpctoolkit")
	r, err := Compute(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.HasIdeal || r.NoIdealReason == "" || r.Calls == 0 || r.Messages != 0 {
		t.Errorf("ideal %v (%q), %d calls, %d messages", r.HasIdeal, r.NoIdealReason, r.Calls, r.Messages)
	}
	f, err := ComputeFactors([]Run{*r}, Auto)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range f.Rows {
		v := row.Values[0]
		switch row.Key {
		case "serialisation_efficiency", "transfer_efficiency":
			if !math.IsNaN(v) {
				t.Errorf("%s %s: %v, want NaN", row.Label, row.Form, v)
			}
		case "load_balance", "communication_efficiency", "parallel_efficiency":
			if !(v > 0 && v <= 1) {
				t.Errorf("%s %s: %v", row.Label, row.Form, v)
			}
		}
	}
}

// A trace without MPI (a PyTorch profile) is refused with the reason.
func TestRefusedWithoutMPI(t *testing.T) {
	tr := read(t, "../../../../shared/traces/hta/tests/data/critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz", "chrome")
	_, err := Compute(tr, Options{})
	// Outside POP's scope is a fact of the data (an EmptyError, exit
	// status 1), not a bad argument; the message says what POP needs.
	var ee *errs.EmptyError
	if !errors.As(err, &ee) || !strings.Contains(err.Error(), "needs MPI calls") || !strings.Contains(err.Error(), "Score-P (OTF2)") {
		t.Fatalf("error %v, want an empty-data error saying POP needs MPI calls and which traces have them", err)
	}
}

// A Paraver trace whose calls do not pair up (the cutter's test trace of a
// 2004 quicksort on 4 tasks: a task waits in MPI_Send for a receive the
// trace does not hold) has no ideal replay, but its other factors: from
// its Running state records (state 1), useful 69188, 74521, 82376 and
// 78413 ns over a 260199 ns run, load balance 76124.5/82376 and
// communication efficiency 82376/260199; serialisation and transfer
// unknown, with the reason.
func TestUnpairedCallsKeepTheOtherFactors(t *testing.T) {
	tr := read(t, "../../../../shared/traces/paraver/test/cutter/qsort_beo3.prv", "paraver")
	r, err := Compute(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.HasIdeal || !strings.Contains(r.NoIdealReason, "waits forever in MPI_Send") ||
		!strings.Contains(r.NoIdealReason, "ideal-network runtime (serialisation, transfer) is unknown") {
		t.Errorf("ideal %v, reason %q", r.HasIdeal, r.NoIdealReason)
	}
	f, err := ComputeFactors([]Run{*r}, Auto)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"load_balance": 76124.5 / 82376, "communication_efficiency": 82376.0 / 260199,
		"parallel_efficiency": 76124.5 / 260199}
	checked := 0
	for _, row := range f.Rows {
		if row.Form == "additive" {
			continue
		}
		v := row.Values[0]
		if w, ok := want[row.Key]; ok {
			checked++
			if math.Abs(v-w) > 1e-12 {
				t.Errorf("%s: %v, want %v", row.Key, v, w)
			}
		}
		if (row.Key == "serialisation_efficiency" || row.Key == "transfer_efficiency") && !math.IsNaN(v) {
			t.Errorf("%s: %v, want NaN", row.Key, v)
		}
	}
	if checked != len(want) {
		t.Errorf("%d of the %d factors found", checked, len(want))
	}
}
