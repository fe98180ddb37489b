package pop

import (
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// POP knows the OpenMP and measurement states by the roles their readers
// give them, never by a format's or a tool's names: a state named and
// categorised as Score-P's barrier but of no role is computation, a state
// of neutral name with a role is what its role says.
func TestValueRolesNotNames(t *testing.T) {
	a := New(Options{})
	a.DefineType(trace.Type{Name: "Thread", Kind: trace.KindContainer, Parent: trace.None})
	a.DefineType(trace.Type{Name: "Region", Kind: trace.KindState, Parent: 0})
	for _, c := range []struct {
		v           trace.Value
		omp         openMPRole
		measurement bool
	}{
		{trace.Value{Name: "!$omp implicit barrier @a.c:2", Category: "OPENMP"}, notOpenMP, false},
		{trace.Value{Name: "!$omp parallel @a.c:1", Category: "OPENMP"}, notOpenMP, false},
		{trace.Value{Name: "TRACE BUFFER FLUSH", Category: "MEASUREMENT_SYSTEM"}, notOpenMP, false},
		{trace.Value{Name: "<omp idle>"}, notOpenMP, false},
		{trace.Value{Name: "main._omp_fn.0"}, notOpenMP, false},
		{trace.Value{Name: "r1", Role: trace.RoleParallelRegion}, openMPConstruct, false},
		{trace.Value{Name: "r2", Role: trace.RoleParallelWait}, openMPWaitIn, false},
		{trace.Value{Name: "r3", Role: trace.RoleParallelIdle}, openMPWaitOnly, false},
		{trace.Value{Name: "r4", Role: trace.RoleMeasurement}, notOpenMP, true},
	} {
		c.v.Type = 1
		a.DefineValue(c.v)
		got := a.values[len(a.values)-1]
		if got.omp != c.omp || got.measurement != c.measurement {
			t.Errorf("value %+v: OpenMP %d, measurement %v; want %d, %v", c.v, got.omp, got.measurement, c.omp, c.measurement)
		}
	}
}

// The hardware counters are known by their types' roles too: a variable
// or event type named as PAPI's preset but of no role is no counter; one
// of a neutral name with the role is.
func TestCounterRolesNotNames(t *testing.T) {
	a := New(Options{})
	for _, c := range []struct {
		ty   trace.Type
		want int8 // -1: no counter, 0: instructions, 1: cycles
	}{
		{trace.Type{Name: "PAPI_TOT_INS", Kind: trace.KindVariable}, -1},
		{trace.Type{Name: "PAPI_TOT_CYC", Kind: trace.KindVariable}, -1},
		{trace.Type{Name: "PAPI_TOT_INS", Kind: trace.KindEvent}, -1},
		{trace.Type{Name: "c1", Kind: trace.KindVariable, Role: trace.RoleInstructions}, 0},
		{trace.Type{Name: "c2", Kind: trace.KindVariable, Role: trace.RoleCycles}, 1},
		{trace.Type{Name: "c3", Kind: trace.KindEvent, Role: trace.RoleInstructions}, 0},
		{trace.Type{Name: "c4", Kind: trace.KindState, Role: trace.RoleCycles}, -1},
	} {
		c.ty.Parent, c.ty.Start, c.ty.End = trace.None, trace.None, trace.None
		a.DefineType(c.ty)
		if got := a.types[len(a.types)-1].counter; got != c.want {
			t.Errorf("type %+v: counter %d, want %d", c.ty, got, c.want)
		}
	}
}
