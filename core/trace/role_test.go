package trace

import (
	"strconv"
	"testing"
)

// TestRoleNames: every role has a name of its own, as the types table
// exports it; RoleNone's is empty and a number no role has is named by
// its number.
func TestRoleNames(t *testing.T) {
	seen := map[string]Role{}
	for r := range Role(255) {
		n := r.String()
		_, named := roleNames[r]
		switch {
		case r == RoleNone && n != "":
			t.Errorf("RoleNone named %q", n)
		case !named && n != "role "+strconv.Itoa(int(r)):
			t.Errorf("role %d named %q", r, n)
		case named && r != RoleNone:
			if o, dup := seen[n]; dup {
				t.Errorf("roles %d and %d both named %q", o, r, n)
			}
			seen[n] = r
		}
	}
	// The roles the readers set, up to the last of each group.
	for _, r := range []Role{RoleAsyncLane, RoleEventWait, RoleScheduledThread} {
		if _, ok := roleNames[r]; !ok {
			t.Errorf("role %d has no name", r)
		}
	}
	if len(seen) != int(RoleAsyncLane)+int(RoleEventWait-RoleCall+1)+int(RoleScheduledThread-RoleOff+1) {
		t.Errorf("%d named roles: a role without a name, or a name without a role", len(seen))
	}
}

// TestRoleNamed: RoleNamed reads back the name of every role, and no
// other name.
func TestRoleNamed(t *testing.T) {
	for r := range Role(255) {
		got, ok := RoleNamed(r.String())
		if _, named := roleNames[r]; named != ok || (ok && got != r) {
			t.Errorf("RoleNamed(%q) = %d, %v", r.String(), got, ok)
		}
	}
	for _, n := range []string{"Step", "step ", "role 3", "none"} {
		if r, ok := RoleNamed(n); ok {
			t.Errorf("RoleNamed(%q) = %d", n, r)
		}
	}
}

// NCCLKernel follows Holistic Trace Analysis' test of NCCL's kernels.
func TestNCCLKernel(t *testing.T) {
	for name, want := range map[string]bool{"ncclKernel_AllReduce_RING_LL_Sum_float": true,
		"ncclDevKernel_SendRecv": true, "nccl_reduce": false, "myncclKernel": false, "": false} {
		if NCCLKernel(name) != want {
			t.Errorf("NCCLKernel(%q) = %v", name, !want)
		}
	}
}

// ProfilerStep reads the numbers compare's parser of the step names read
// (HTA's regexp ProfilerStep\s*#\s*(\d+)), and nothing else.
func TestProfilerStep(t *testing.T) {
	for name, want := range map[string]int32{"ProfilerStep#5": 5, "ProfilerStep #12": 12, "ProfilerStep# 0": 0,
		"ProfilerStep\t#\n7x": 7, "ProfilerStep#2147483647": 1<<31 - 1,
		"ProfilerStep#2147483648": -1, "ProfilerStep": -1, "ProfilerStep#": -1, "ProfilerStep5": -1,
		"profilerstep#5": -1, " ProfilerStep#5": -1, "ProfilerStep#-5": -1, "": -1} {
		n, ok := ProfilerStep(name)
		if !ok {
			n = -1
		}
		if n != want {
			t.Errorf("ProfilerStep(%q) = %d, %v; want %d", name, n, ok, want)
		}
	}
}
