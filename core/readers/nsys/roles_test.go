package nsys

import (
	"fmt"
	"maps"
	"path/filepath"
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

// TestNVTXSteps: the NVTX ranges named as PyTorch profiler's steps, as
// text or registered string, push/pop or start/end, in any domain, and
// with the ", op_id = K" PyTorch's emit_nvtx appends, have trace.RoleStep
// and their number as Step; other ranges, and marks, none.
func TestNVTXSteps(t *testing.T) {
	path := filepath.Join(t.TempDir(), "steps.sqlite")
	writeDB(t, path, fmt.Sprintf(`CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES (1, 'python'), (2, 'ProfilerStep#7');
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
INSERT INTO ThreadNames VALUES (1, 0, %[1]d);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
	category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER);
INSERT INTO NVTX_EVENTS VALUES
	(10, 20, 59, NULL, NULL, NULL, 'ProfilerStep#5', %[1]d, NULL, NULL, 0),
	(12, 18, 59, NULL, NULL, NULL, 'aten::mm, op_id = 3', %[1]d, NULL, NULL, 0),
	(20, 30, 59, NULL, NULL, NULL, 'ProfilerStep#6, op_id = 41', %[1]d, NULL, NULL, 0),
	(30, 40, 59, NULL, NULL, NULL, NULL, %[1]d, NULL, 2, 0),
	(40, 50, 60, NULL, NULL, NULL, 'ProfilerStep # 8', %[1]d, %[1]d, NULL, 0),
	(50, 60, 59, NULL, NULL, NULL, 'ProfilerStep#9', %[1]d, NULL, NULL, 4),
	(60, 70, 59, NULL, NULL, NULL, 'ProfilerStep', %[1]d, NULL, NULL, 0),
	(70, 80, 59, NULL, NULL, NULL, 'ProfilerStep#x', %[1]d, NULL, NULL, 0),
	(80, 90, 59, NULL, NULL, NULL, 'ProfilerStep#99999999999', %[1]d, NULL, NULL, 0),
	(90, 95, 59, NULL, NULL, NULL, 'MyProfilerStep#3', %[1]d, NULL, NULL, 0),
	(96, NULL, 34, NULL, NULL, NULL, 'ProfilerStep#10', %[1]d, NULL, NULL, 0)`, t1))
	tr, _ := readTrace(t, path, readerOptions{})
	got := map[string][2]int32{}
	for _, v := range tr.Values {
		got[tr.Types[v.Type].Name+"|"+v.Name] = [2]int32{int32(v.Role), v.Step}
	}
	step := int32(trace.RoleStep)
	want := map[string][2]int32{
		typePushPop + "|ProfilerStep#5": {step, 5}, typePushPop + "|aten::mm, op_id = 3": {},
		typePushPop + "|ProfilerStep#6, op_id = 41": {step, 6}, typePushPop + "|ProfilerStep#7": {step, 7},
		typeStartEnd + "|ProfilerStep # 8": {step, 8}, typePushPop + " (domain 4)|ProfilerStep#9": {step, 9},
		typePushPop + "|ProfilerStep": {}, typePushPop + "|ProfilerStep#x": {}, typePushPop + "|ProfilerStep#99999999999": {},
		typePushPop + "|MyProfilerStep#3": {}, typeMark + "|ProfilerStep#10": {},
	}
	if !maps.Equal(got, want) {
		t.Errorf("roles and steps %v, want %v", got, want)
	}
}
