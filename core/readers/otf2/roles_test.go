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
