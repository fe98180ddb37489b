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
	for _, r := range []Role{RoleAsyncLane, RoleEventWait, RoleStepCall} {
		if _, ok := roleNames[r]; !ok {
			t.Errorf("role %d has no name", r)
		}
	}
	if len(seen) != int(RoleAsyncLane)+int(RoleEventWait-RoleCall+1)+int(RoleStepCall-RoleOff+1) {
		t.Errorf("%d named roles: a role without a name, or a name without a role", len(seen))
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
