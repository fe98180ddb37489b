package nsys

import (
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The CUDA API calls get their launching or blocking role by their names
// without the version suffix Nsight Systems gives some.
func TestAPIRole(t *testing.T) {
	for name, want := range map[string]trace.Role{
		"cudaLaunchKernel_v7000":      trace.RoleLaunchCall,
		"cudaLaunchKernel":            trace.RoleLaunchCall,
		"cuLaunchKernel":              trace.RoleLaunchCall,
		"cudaStreamSynchronize_v3020": trace.RoleBlockingCall,
		"cudaMemcpyAsync_v3020":       trace.RoleBlockingLaunchCall,
		"cudaMalloc_v3020":            trace.RoleNone,
		"cudaLaunchKernel_v":          trace.RoleNone, // no version
		"cudaLaunchKernel_v70a":       trace.RoleNone,
		"cudaLaunchKernel_v7000_v1":   trace.RoleNone, // one suffix only
	} {
		if got := apiRole(name); got != want {
			t.Errorf("apiRole(%q) = %v, want %v", name, got, want)
		}
	}
}
