package otf2

import (
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The reader gives Score-P's regions the roles the analyses read (POP's
// OpenMP and measurement time): by the region's paradigm, by the names
// of the measurement system's own regions whatever their paradigm, by
// the words of OpenMP's waits, and by the compilers' outlined bodies.
func TestRegionRoles(t *testing.T) {
	for _, c := range []struct {
		name, paradigm string
		want           trace.Role
	}{
		{"TRACE BUFFER FLUSH", "MEASUREMENT_SYSTEM", trace.RoleMeasurement},
		{"buffer flush", "USER", trace.RoleMeasurement},
		{"anything", "MEASUREMENT_SYSTEM", trace.RoleMeasurement},
		{"!$omp parallel @hybrid.c:10", "OPENMP", trace.RoleParallelRegion},
		{"!$omp implicit barrier @hybrid.c:20", "OPENMP", trace.RoleParallelWait},
		{"!$omp taskwait @a.c:3", "OPENMP", trace.RoleParallelWait},
		{"omp_set_lock", "OPENMP", trace.RoleParallelWait},
		{"main._omp_fn.0", "COMPILER", trace.RoleParallelRegion},
		{".omp_outlined._debug__", "COMPILER", trace.RoleParallelRegion},
		{"!$omp implicit barrier @hybrid.c:20", "USER", trace.RoleNone},
		{"MPI_Barrier", "MPI", trace.RoleNone},
		{"main", "COMPILER", trace.RoleNone},
	} {
		if got := regionRole(c.name, c.paradigm); got != c.want {
			t.Errorf("region %q of paradigm %s: role %d, want %d", c.name, c.paradigm, got, c.want)
		}
	}
}

// TestMetricRoles: the variables of PAPI's instructions and cycles, as
// Score-P records them, are those counters (trace.RoleInstructions,
// RoleCycles, which POP reads); other metrics, and other kinds of types
// of those names, are not. The archive of pipit's tests records
// PAPI_TOT_CYC, PAPI_L2_TCM and PAPI_BR_MSP (otf2-print -G).
func TestMetricRoles(t *testing.T) {
	for _, c := range []struct {
		kind trace.Kind
		name string
		want trace.Role
	}{
		{trace.KindVariable, "PAPI_TOT_INS", trace.RoleInstructions},
		{trace.KindVariable, "PAPI_TOT_CYC", trace.RoleCycles},
		{trace.KindVariable, "PAPI_L2_TCM", trace.RoleNone},
		{trace.KindState, "PAPI_TOT_INS", trace.RoleNone},
	} {
		if got := typeRole(typeKey{kind: c.kind, name: c.name}); got != c.want {
			t.Errorf("%v type %q: role %v, want %v", c.kind, c.name, got, c.want)
		}
	}
	tr, _, err := readNotes(t, archivePath(t, "pipit/tests/data/ping-pong-otf2-papi"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]trace.Role{}
	for _, ty := range tr.Types {
		if ty.Kind == trace.KindVariable {
			got[ty.Name] = ty.Role
		}
	}
	want := map[string]trace.Role{"PAPI_TOT_CYC": trace.RoleCycles, "PAPI_L2_TCM": trace.RoleNone, "PAPI_BR_MSP": trace.RoleNone}
	if len(got) != len(want) {
		t.Errorf("variable types %v, want %v", got, want)
	}
	for n, r := range want {
		if got[n] != r {
			t.Errorf("variable type %q: role %v, want %v", n, got[n], r)
		}
	}
}
