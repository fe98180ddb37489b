package trace

import (
	"strconv"
	"strings"
)

// Role tells what a type, or a value, stands for in the program traced,
// where the file says so only by its format's conventions (Extrae's event
// numbers, Paraver's levels, the records of OTF2): the reader, which
// knows them, sets it, and the analyses of the program (its processes,
// its message passing: core/views/mpi) read it instead, knowing no
// format. The zero Role says nothing.
type Role uint8

// The roles of container types.
const (
	RoleNone Role = iota
	// RoleThread: the containers are threads of the process their
	// parent is.
	RoleThread
	// RoleApplication: the containers are applications (programs run
	// together in one trace), whose communicators are numbered apart: the
	// RoleCommunicator and RoleCollectiveEnd events name communicators
	// local to it, and the calls no event gives a communicator are on an
	// unnamed one of its own. (The runs of a trace read from several
	// files are applications only where each file is a whole job, an
	// OTF2 archive or a Paraver trace: files of one rank each may be the
	// ranks of one job; see ingest.Source.Job.)
	RoleApplication
	// RoleAsyncLane: each top-level state of a container is an operation
	// of its own, which does not depend on the one before it on the
	// container (the Chrome reader's async lanes, where the operations of
	// different async ids follow one another).
	RoleAsyncLane
)

// The roles of event types: calls recorded as events, and what the
// events at a collective call's entry tell of it.
const (
	// RoleCall: an event enters the call its value names (MPI_Send...),
	// leaving the call entered before if any; an event whose value has
	// the role RoleOff leaves it and enters none.
	RoleCall Role = iota + 16
	// RoleCollectiveCall: RoleCall, whose calls are collective operations
	// whatever their names.
	RoleCollectiveCall
	// RoleCommunicator: an event at the instant a collective call is
	// entered, on its container, gives the call's communicator: its
	// value's Alias (the file's id), local to the call's application
	// (RoleApplication) if it has one.
	RoleCommunicator
	// RoleRootFlag: an event at the instant a collective call is
	// entered, on its container, marks the call the root's (MPI_Bcast's
	// sender...), unless its value has the role RoleOff.
	RoleRootFlag
	// RoleCollectiveEnd: an event inside a collective call (at the end of
	// the operation), on its container, gives the call's communicator
	// by its value's Category, and marks the call the root's when its
	// value has the role RoleRoot.
	RoleCollectiveEnd
	// RoleInstructions, RoleCycles: the events are a hardware counter of
	// the instructions (the cycles) completed, each event's value those
	// since the previous event of the type on its container; on a
	// variable type, the variable is the counter accumulated on its
	// container, sampled (PAPI_TOT_INS, PAPI_TOT_CYC as Score-P records
	// them).
	RoleInstructions
	RoleCycles
	// RoleParallelConstruct: an event enters a construct of a parallel
	// programming model (OpenMP's parallel regions, barriers, tasks); an
	// event whose value has the role RoleOff leaves it.
	RoleParallelConstruct
	// RoleLaunch: a link goes from a call (a kernel launch, a copy...) to
	// the start of the GPU operation the call enqueued.
	RoleLaunch
	// RoleLaunchSynced: RoleLaunch, from a tracer that records the
	// synchronisations on the GPU side too when it records any
	// (Kineto's): an analysis may then link them to their calls.
	RoleLaunchSynced
	// RoleEventWait: a link goes from the stream a GPU event was recorded
	// on, at the record, to the synchronisation that waits for the event.
	RoleEventWait
)

// The roles of values.
const (
	// RoleOff: the value ends or denies what its type's events say: it
	// leaves the call (RoleCall), or is not the root (RoleRootFlag).
	RoleOff Role = iota + 32
	// RoleRoot: the value marks the call it is in the root's
	// (RoleCollectiveEnd).
	RoleRoot
	// RoleUseful: a state of this value is useful computation, as its
	// tool measured it (Extrae's Running).
	RoleUseful
	// RoleLaunchFlow: a link of this value is a launch from a tracer
	// that records the GPU's synchronisations (RoleLaunchSynced), whatever
	// its type's role: the Chrome reader's flows are one type, and only
	// their categories tell Kineto's launches from other flows.
	RoleLaunchFlow
	// RoleMeasurement: a state of this value is the measurement system's
	// own work (Score-P's buffer flushes, its measurement off), not the
	// program's computation.
	RoleMeasurement
	// RoleParallelRegion: a state of this value is inside a construct of
	// a parallel programming model (OpenMP's parallel regions and the
	// bodies the compilers outline for them), where the thread computes.
	RoleParallelRegion
	// RoleParallelWait: a state of this value is a construct where the
	// thread waits or synchronises rather than computes (OpenMP's
	// barriers, taskwaits, locks).
	RoleParallelWait
	// RoleParallelIdle: a state of this value is a thread of a parallel
	// programming model idle or waiting outside any construct.
	RoleParallelIdle
	// RoleStreamSync, RoleContextSync, RoleEventSync, RoleStreamWaitEvent:
	// a state of this value is a synchronisation recorded on the GPU side
	// (CUPTI's synchronisation records), launched by the call that
	// synchronised: with the last operation of its stream
	// (cudaStreamSynchronize), of all streams (cudaDeviceSynchronize), the
	// host with the operation a CUDA event was recorded after
	// (cudaEventSynchronize), or the operations of its stream to come with
	// that operation (cudaStreamWaitEvent).
	RoleStreamSync
	RoleContextSync
	RoleEventSync
	RoleStreamWaitEvent
	// RoleCommunicationKernel: a state of this value is a GPU operation
	// that communicates between devices (a kernel of NCCL or RCCL).
	RoleCommunicationKernel
	// RoleHostCall: a state of this value is a call of the host program
	// that the analyses of GPU work walk: a framework's operator, a call
	// of the GPU's runtime or driver. A reader that sorts its events into
	// categories (Kineto's) gives it, or one of the three roles below, to
	// those calls, so that its other events (annotations, Python
	// functions) are left out; a reader that gives it to none sorts none.
	RoleHostCall
	// RoleLaunchCall: a call of the GPU's runtime or driver that enqueues
	// an operation on a stream and returns (cudaLaunchKernel,
	// hipMemsetAsync...); a RoleHostCall.
	RoleLaunchCall
	// RoleBlockingCall: a call of the GPU's runtime that returns only once
	// GPU work it waits for has ended (cudaStreamSynchronize,
	// cudaMemcpy...): its time is waiting; a RoleHostCall.
	RoleBlockingCall
	// RoleBlockingLaunchCall: both RoleLaunchCall and RoleBlockingCall
	// (cudaMemcpyAsync, which waits when its host memory is pageable).
	RoleBlockingLaunchCall
	// RoleStep: a state of this value is one step of the program's main
	// loop, as its profiler marks them on the host (PyTorch profiler's
	// ProfilerStep#N; not the copies Kineto draws on the GPU streams),
	// whose number is the value's Step.
	RoleStep
	// RoleStepCall: RoleStep and RoleHostCall (Kineto's first releases
	// recorded the steps as operators).
	RoleStepCall
	// RoleRecording: a state of this value spans the tracer's recording
	// itself (Kineto's "PyTorch Profiler (0)", of category Trace), not an
	// operation of the program.
	RoleRecording
	// RoleDeviceAnnotation: a state of this value is a copy, on a GPU's
	// stream, of a span the host program named (Kineto's
	// gpu_user_annotation: "ProfilerStep#N", a module's forward, an NCCL
	// call), drawn from the first to the last operation it launched there,
	// idle time between them included: it marks the device's work, and is
	// not work of the device.
	RoleDeviceAnnotation
	// RoleScheduledThread: a state of this value is a thread running on a
	// CPU, as the kernel's scheduler switched to it (Perfetto's
	// sched_switch), and the value is named after the thread: "<thread
	// name> [<tid>]" as Perfetto's UI labels a CPU's slices. The grouping
	// of names (core/names) groups such a value by its thread's name, and
	// no other value whose name only looks alike ("Block [0]").
	RoleScheduledThread
)

// roleNames name the roles, as exported with the types and values.
var roleNames = map[Role]string{
	RoleNone: "", RoleThread: "thread", RoleApplication: "application", RoleAsyncLane: "async lane",
	RoleCall: "call", RoleCollectiveCall: "collective call", RoleCommunicator: "communicator",
	RoleRootFlag: "root flag", RoleCollectiveEnd: "collective end", RoleInstructions: "instructions",
	RoleCycles: "cycles", RoleParallelConstruct: "parallel construct", RoleLaunch: "launch",
	RoleLaunchSynced: "launch synced", RoleEventWait: "event wait",
	RoleOff: "off", RoleRoot: "root", RoleUseful: "useful", RoleLaunchFlow: "launch flow",
	RoleMeasurement: "measurement", RoleParallelRegion: "parallel region", RoleParallelWait: "parallel wait",
	RoleParallelIdle: "parallel idle", RoleStreamSync: "stream sync", RoleContextSync: "context sync",
	RoleEventSync: "event sync", RoleStreamWaitEvent: "stream wait event",
	RoleCommunicationKernel: "communication kernel", RoleHostCall: "host call", RoleLaunchCall: "launch call",
	RoleBlockingCall: "blocking call", RoleBlockingLaunchCall: "blocking launch call", RoleStep: "step",
	RoleStepCall: "step call", RoleRecording: "recording", RoleDeviceAnnotation: "device annotation",
	RoleScheduledThread: "scheduled thread",
}

// String names the role ("" for RoleNone, "role N" for a number no role
// has).
func (r Role) String() string {
	if n, ok := roleNames[r]; ok {
		return n
	}
	return "role " + strconv.Itoa(int(r))
}

// NCCLKernel tells whether name is the name NCCL (and RCCL, which keeps
// its names) gives its kernels ("ncclKernel_AllReduce_RING_LL_Sum_float",
// "ncclDevKernel_SendRecv"): the library's convention, not a format's,
// which the readers of GPU kernels share to set RoleCommunicationKernel.
func NCCLKernel(name string) bool {
	return strings.HasPrefix(name, "nccl") && strings.Contains(name, "Kernel")
}

// OutlinedParallelBody tells whether name is a compiler's name for the
// body of an OpenMP parallel region it outlined into a function (GCC's
// "f._omp_fn.N", Clang's ".omp_outlined."): the compilers', not a
// format's, convention, which the readers of function names share.
func OutlinedParallelBody(name string) bool {
	for _, w := range [...]string{"._omp_fn.", ".omp_outlined.", "__omp_outlined__"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// RoleNamed is the role String names name ("" for RoleNone): how a
// table that recorded the roles by name (a Parquet dataset's) gives them
// back. ok is false for a name no role has.
func RoleNamed(name string) (r Role, ok bool) {
	r, ok = roleByName[name]
	return r, ok
}

var roleByName = func() map[string]Role {
	m := make(map[string]Role, len(roleNames))
	for r, n := range roleNames {
		m[n] = r
	}
	return m
}()

// ProfilerStep reads the number of a step of PyTorch's profiler from its
// name, "ProfilerStep#N" (white space allowed around '#'): the
// framework's convention, not a format's, which the readers that set
// RoleStep share to give the value its Step. ok is false for any other
// name, and for a number that does not fit a Step.
func ProfilerStep(name string) (n int32, ok bool) {
	s, found := strings.CutPrefix(name, "ProfilerStep")
	if !found {
		return 0, false
	}
	s = strings.TrimLeft(s, " \t\n\f\r")
	if !strings.HasPrefix(s, "#") {
		return 0, false
	}
	s = strings.TrimLeft(s[1:], " \t\n\f\r")
	d := 0
	for d < len(s) && s[d] >= '0' && s[d] <= '9' {
		d++
	}
	k, err := strconv.ParseInt(s[:d], 10, 32)
	if d == 0 || err != nil {
		return 0, false
	}
	return int32(k), true
}

// ProfilerSpan tells whether r is a role of the spans a profiler draws
// around the program's work rather than work of the program: its own
// recording (RoleRecording), the program's steps (RoleStep, RoleStepCall)
// and the copies of the host's annotations on a device
// (RoleDeviceAnnotation). The models of a trace leave them out by default
// (micro.Options.ProfilerSpans), its tables and the analyses that read
// steps keep them.
func (r Role) ProfilerSpan() bool {
	return r == RoleRecording || r == RoleStep || r == RoleStepCall || r == RoleDeviceAnnotation
}

// IsThread tells whether the containers of type t are threads of their
// parent: its reader says so (RoleThread), or, for the formats whose files
// name their own types (Pajé, CSV), t is named "thread" in any case.
func IsThread(t Type) bool {
	return t.Role == RoleThread || strings.EqualFold(t.Name, "thread")
}

// The calls of the GPUs' runtime and driver APIs that launch work or
// wait for it, by name, as Holistic Trace Analysis tells them (HTA 0.5.0):
// CUDA's and HIP's, and MTIA's job submission as Kineto names it.
var gpuCallRoles = func() map[string]Role {
	m := map[string]Role{}
	for _, n := range []string{"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventQuery",
		"cudaEventSynchronize", "cudaMemcpy"} {
		m[n] = RoleBlockingCall
	}
	for _, n := range []string{"cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cudaMemsetAsync",
		"runFunction - job_prep_and_submit_for_execution", "hipLaunchKernel", "hipExtModuleLaunchKernel",
		"hipMemsetAsync", "hipMemcpyAsync", "hipMemcpyWithStream"} {
		m[n] = RoleLaunchCall
	}
	m["cudaMemcpyAsync"] = RoleBlockingLaunchCall
	return m
}()

// GPUCallRole is the role of the call of a GPU's runtime or driver API
// named name (without a tracer's decoration: Nsight Systems' version
// suffix is its reader's to strip): RoleLaunchCall, RoleBlockingCall,
// RoleBlockingLaunchCall, or RoleNone for a call that neither launches
// nor waits, or a name of no such call. The APIs' names, not a format's,
// which the readers of GPU traces share.
func GPUCallRole(name string) Role {
	return gpuCallRoles[name]
}

// Launches tells whether r is a role of calls that launch GPU work.
func (r Role) Launches() bool { return r == RoleLaunchCall || r == RoleBlockingLaunchCall }

// Blocks tells whether r is a role of calls that wait for GPU work.
func (r Role) Blocks() bool { return r == RoleBlockingCall || r == RoleBlockingLaunchCall }

// HostCall tells whether r is a role of the host calls GPU analyses walk
// (RoleHostCall or one of the launching and blocking calls').
func (r Role) HostCall() bool {
	return r == RoleHostCall || r == RoleStepCall || r.Launches() || r.Blocks()
}
