package hpctoolkit

import (
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The reader gives the frames of its OMPT support and the compilers'
// outlined parallel bodies the roles POP reads.
func TestFrameRoles(t *testing.T) {
	for name, want := range map[string]trace.Role{
		"<omp idle>":           trace.RoleParallelIdle,
		"<omp barrier wait>":   trace.RoleParallelIdle,
		"<omp tool support>":   trace.RoleNone,
		"<program root>":       trace.RoleNone,
		"main._omp_fn.1":       trace.RoleParallelRegion,
		"__omp_outlined__12":   trace.RoleParallelRegion,
		".omp_outlined..debug": trace.RoleParallelRegion,
		"main":                 trace.RoleNone,
	} {
		if got := frameRole(name); got != want {
			t.Errorf("frame %q: role %d, want %d", name, got, want)
		}
	}
}
