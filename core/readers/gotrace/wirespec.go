package gotrace

// The event types of the generational format of Go execution traces (Go
// 1.22 and later), as the runtime writes them (the Go source tree's
// internal/trace/tracev2 defines them; the numbers are the wire's and do
// not change between versions, later versions only add types).

// Event types of the wire format.
const (
	evEventBatch          = 1
	evStacks              = 2
	evStack               = 3
	evStrings             = 4
	evString              = 5
	evCPUSamples          = 6
	evCPUSample           = 7
	evFrequency           = 8
	evProcsChange         = 9
	evProcStart           = 10
	evProcStop            = 11
	evProcSteal           = 12
	evProcStatus          = 13
	evGoCreate            = 14
	evGoCreateSyscall     = 15
	evGoStart             = 16
	evGoDestroy           = 17
	evGoDestroySyscall    = 18
	evGoStop              = 19
	evGoBlock             = 20
	evGoUnblock           = 21
	evGoSyscallBegin      = 22
	evGoSyscallEnd        = 23
	evGoSyscallEndBlocked = 24
	evGoStatus            = 25
	evSTWBegin            = 26
	evSTWEnd              = 27
	evGCActive            = 28
	evGCBegin             = 29
	evGCEnd               = 30
	evGCSweepActive       = 31
	evGCSweepBegin        = 32
	evGCSweepEnd          = 33
	evGCMarkAssistActive  = 34
	evGCMarkAssistBegin   = 35
	evGCMarkAssistEnd     = 36
	evHeapAlloc           = 37
	evHeapGoal            = 38
	evGoLabel             = 39
	evUserTaskBegin       = 40
	evUserTaskEnd         = 41
	evUserRegionBegin     = 42
	evUserRegionEnd       = 43
	evUserLog             = 44
	evGoSwitch            = 45 // Go 1.23
	evGoSwitchDestroy     = 46
	evGoCreateBlocked     = 47
	evGoStatusStack       = 48
	evExperimentalBatch   = 49
	evSync                = 50 // Go 1.25
	evClockSnapshot       = 51
	evEndOfGeneration     = 52 // Go 1.26

	// Experimental events (Go 1.26's AllocFree experiment) take the
	// numbers from 128.
	evFirstExperimental = 128
)

// Limits the runtime respects, which the Go project's parser checks.
const (
	maxBatchSize      = 64 << 10
	maxFramesPerStack = 128
	maxStringSize     = 1 << 10
)

// wireSpec describes an event type: its name and its arguments' names
// as the Go project's raw text form prints them (the tests compare with
// `go tool trace -d=wire`), whether its first argument is a time delta,
// whether frames follow its arguments (a stack table entry) and whether
// a length-prefixed blob does.
type wireSpec struct {
	name    string
	args    []string
	timed   bool
	isStack bool
	hasData bool
}

// wireSpecs are the event types by number, for the newest version;
// wireTypes says how many of them each version knows.
var wireSpecs = func() (s [evFirstExperimental + 9]wireSpec) {
	plain := func(name string, args ...string) wireSpec { return wireSpec{name: name, args: args} }
	timed := func(name string, args ...string) wireSpec {
		return wireSpec{name: name, args: append([]string{"dt"}, args...), timed: true}
	}
	s[evEventBatch] = plain("EventBatch", "gen", "m", "time", "size")
	s[evStacks] = plain("Stacks")
	s[evStack] = wireSpec{name: "Stack", args: []string{"id", "nframes"}, isStack: true}
	s[evStrings] = plain("Strings")
	s[evString] = wireSpec{name: "String", args: []string{"id"}, hasData: true}
	s[evCPUSamples] = plain("CPUSamples")
	s[evCPUSample] = plain("CPUSample", "time", "m", "p", "g", "stack")
	s[evFrequency] = plain("Frequency", "freq")
	s[evProcsChange] = timed("ProcsChange", "procs_value", "stack")
	s[evProcStart] = timed("ProcStart", "p", "p_seq")
	s[evProcStop] = timed("ProcStop")
	s[evProcSteal] = timed("ProcSteal", "p", "p_seq", "m")
	s[evProcStatus] = timed("ProcStatus", "p", "pstatus")
	s[evGoCreate] = timed("GoCreate", "new_g", "new_stack", "stack")
	s[evGoCreateSyscall] = timed("GoCreateSyscall", "new_g")
	s[evGoStart] = timed("GoStart", "g", "g_seq")
	s[evGoDestroy] = timed("GoDestroy")
	s[evGoDestroySyscall] = timed("GoDestroySyscall")
	s[evGoStop] = timed("GoStop", "reason_string", "stack")
	s[evGoBlock] = timed("GoBlock", "reason_string", "stack")
	s[evGoUnblock] = timed("GoUnblock", "g", "g_seq", "stack")
	s[evGoSyscallBegin] = timed("GoSyscallBegin", "p_seq", "stack")
	s[evGoSyscallEnd] = timed("GoSyscallEnd")
	s[evGoSyscallEndBlocked] = timed("GoSyscallEndBlocked")
	s[evGoStatus] = timed("GoStatus", "g", "m", "gstatus")
	s[evSTWBegin] = timed("STWBegin", "kind_string", "stack")
	s[evSTWEnd] = timed("STWEnd")
	s[evGCActive] = timed("GCActive", "gc_seq")
	s[evGCBegin] = timed("GCBegin", "gc_seq", "stack")
	s[evGCEnd] = timed("GCEnd", "gc_seq")
	s[evGCSweepActive] = timed("GCSweepActive", "p")
	s[evGCSweepBegin] = timed("GCSweepBegin", "stack")
	s[evGCSweepEnd] = timed("GCSweepEnd", "swept_value", "reclaimed_value")
	s[evGCMarkAssistActive] = timed("GCMarkAssistActive", "g")
	s[evGCMarkAssistBegin] = timed("GCMarkAssistBegin", "stack")
	s[evGCMarkAssistEnd] = timed("GCMarkAssistEnd")
	s[evHeapAlloc] = timed("HeapAlloc", "heapalloc_value")
	s[evHeapGoal] = timed("HeapGoal", "heapgoal_value")
	s[evGoLabel] = timed("GoLabel", "label_string")
	s[evUserTaskBegin] = timed("UserTaskBegin", "task", "parent_task", "name_string", "stack")
	s[evUserTaskEnd] = timed("UserTaskEnd", "task", "stack")
	s[evUserRegionBegin] = timed("UserRegionBegin", "task", "name_string", "stack")
	s[evUserRegionEnd] = timed("UserRegionEnd", "task", "name_string", "stack")
	s[evUserLog] = timed("UserLog", "task", "key_string", "value_string", "stack")
	s[evGoSwitch] = timed("GoSwitch", "g", "g_seq")
	s[evGoSwitchDestroy] = timed("GoSwitchDestroy", "g", "g_seq")
	s[evGoCreateBlocked] = timed("GoCreateBlocked", "new_g", "new_stack", "stack")
	s[evGoStatusStack] = timed("GoStatusStack", "g", "m", "gstatus", "stack")
	s[evExperimentalBatch] = wireSpec{name: "ExperimentalBatch", args: []string{"exp", "gen", "m", "time"}, hasData: true}
	s[evSync] = plain("Sync")
	s[evClockSnapshot] = timed("ClockSnapshot", "mono", "sec", "nsec")
	s[evEndOfGeneration] = plain("EndOfGeneration")
	e := evFirstExperimental
	s[e+0] = timed("Span", "id", "npages_value", "kindclass")
	s[e+1] = timed("SpanAlloc", "id", "npages_value", "kindclass")
	s[e+2] = timed("SpanFree", "id")
	s[e+3] = timed("HeapObject", "id", "type")
	s[e+4] = timed("HeapObjectAlloc", "id", "type")
	s[e+5] = timed("HeapObjectFree", "id")
	s[e+6] = timed("GoroutineStack", "id", "order")
	s[e+7] = timed("GoroutineStackAlloc", "id", "order")
	s[e+8] = timed("GoroutineStackFree", "id")
	return s
}()

// wireTypes returns how many event types (from 0) the format of Go 1.v
// knows; 0 for a version the decoder does not read.
func wireTypes(v int) int {
	switch v {
	case 22:
		return evUserLog + 1
	case 23: // Go 1.24 writes 1.23's format
		return evExperimentalBatch + 1
	case 25:
		return evClockSnapshot + 1
	case 26:
		return len(wireSpecs)
	}
	return 0
}
