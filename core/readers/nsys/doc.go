// Package nsys reads the SQLite databases Nsight Systems exports
// (nsys export --type sqlite) and streams them into a trace.Sink.
//
// See docs/readers/nsys.md for the model; in short:
//
//   - Containers: Host > Process > Thread for the CPU side, Host > Device
//     > Context > Stream for the GPU side, each known by its ids (global
//     thread id, device, context and stream ids), never merged by name.
//   - States, one state type per kind: CUDA runtime API, CUDA driver API,
//     OS runtime and NVTX ranges on threads; CUDA kernel, NCCL kernel,
//     CUDA memcpy and CUDA memset on streams (the values of the kernels
//     NCCL names nccl...Kernel...: role trace.RoleCommunicationKernel,
//     trace.NCCLKernel; the CUDA API calls that launch or block,
//     trace.GPUCallRole of the name without the version suffix
//     ("cudaLaunchKernel_v7000"): RoleLaunchCall, RoleBlockingCall,
//     RoleBlockingLaunchCall). NVTX ranges get one state
//     type per kind (push/pop, start/end) and domain; those named as
//     PyTorch profiler's steps ("ProfilerStep#N", with emit_nvtx's
//     ", op_id = K" after it) have trace.RoleStep and N as their Step
//     (trace.ProfilerStep).
//   - Links "CUDA launch" (role trace.RoleLaunch) from an API call to the GPU work of the same
//     correlation id; point events "NVTX mark".
//   - CUPTI's synchronisation records: states "CUDA synchronization" on
//     their stream, named as Kineto names them ("Stream Sync", "Event
//     Sync", "Stream Wait Event", "Context Sync"; their values' roles
//     trace.RoleStreamSync, RoleEventSync, RoleStreamWaitEvent,
//     RoleContextSync), launched by their call;
//     the waits for a CUDA event get a link "CUDA event wait" (role
//     trace.RoleEventWait) from the
//     stream the event was recorded on (CUPTI_ACTIVITY_KIND_CUDA_EVENT).
//
// Times are the database's integer nanoseconds, unchanged. States of one
// container and type that cannot nest go to overlap lanes, sibling
// containers, so that every container holds properly nested states.
// Tables not modeled are counted in the notes, row by row.
//
// A database is queried with a pure-Go SQLite driver (package sqlitedb),
// read-only. The whole database is read before anything is delivered:
// which containers exist, and how many overlap lanes they need, is only
// known at the end, so the reader keeps a 40-byte record per state.
package nsys
