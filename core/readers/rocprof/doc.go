// Package rocprof reads the outputs of AMD's GPU profilers and streams
// them into a trace.Sink:
//
//   - rocprofv3's JSON output (the rocprofiler-sdk-tool document:
//     JSONFormat);
//   - rocprofv3's CSV output, one file per kind of record of one run,
//     read together (CSVFormat, ReadCSV);
//   - the CSV files of rocprof v1 and v2, results.csv or timestamps.csv
//     with one row per kernel dispatch (LegacyCSVFormat);
//   - rocmProfileData's RPD SQLite database (RPDFormat).
//
// rocprofv3 can also write Chrome trace-event JSON (--output-format
// pftrace or json with the Perfetto layout); that is the chrome reader's.
//
// # Model
//
// All four build the same hierarchy. Host API calls go on Host > Process
// (pid) > Thread (tid); kernels and memory copies on Host > Agent (a GPU:
// rocprofv3's agent node id, RPD's gpuId, v1/v2's gpu-id, named with its
// product when the file tells) > Queue (the queue id; copies of rocprofv3
// on a "Memory copies" queue of the agent at their device end). Each kind
// of activity has its own state type, valued by the function or kernel
// name: "Kernel", "Memory copy", "HIP API", "HSA API", "Marker" (roctx
// ranges), "RCCL API" (and "rocDecode API", "rocJPEG API" when present).
// Separate types matter: a HIP call makes HSA calls, so on one thread the
// kinds overlap, while each kind alone nests like a call stack.
//
// Depths come from containment per container and state type (package
// nesting): records are sorted by start, longer first, then in input
// order, and a record is the child of the innermost open record that
// contains it (closed intervals).
// A record that starts inside another and ends after it cannot nest; it
// goes, with what nests in it, to an overlap lane, a sibling container
// named "<name> (overlap lane k)", so that every container holds a proper
// stack (kernels of one queue overlap in real runs). States are delivered
// container by container, type by type, as they complete: a state after
// the states nested in it, the states of one depth in time order (the
// order of Pajé's PopState and OTF2's Leave that streaming consumers such
// as micro.Accumulator follow); Order ranks them by start. The Sources
// hold the whole input (Whole): depths need every record of a container.
//
// roctx ranges named as PyTorch profiler's steps ("ProfilerStep#N", with
// the ", op_id = K" of its emit_nvtx after it) have trace.RoleStep and N
// as their Step (trace.ProfilerStep). roctx marks (marker records of zero
// duration) are point events "Marker event" on their thread. Correlation ids, unique within one process's
// output (a JSON element, the CSV files of one run), join each kernel or
// copy to the host call that launched it (RPD: rocpd_api_ops) as a link
// "Launch" (role trace.RoleLaunch) from
// the thread to the queue, from the call's start to the operation's
// start, valued by the call's name, with the correlation id as Key and,
// for copies whose size is known, the bytes as Size. The kernels RCCL
// names as NCCL does (nccl...Kernel...: trace.NCCLKernel) have values of
// role trace.RoleCommunicationKernel; the calls of the HIP runtime that
// launch (trace.GPUCallRole: hipLaunchKernel, hipMemcpyAsync...) have
// role trace.RoleLaunchCall. RPD's rocpd_monitor
// samples of a GPU (clocks...) are variables of its agent.
//
// # What is skipped
//
// Nothing is dropped silently: records that end before they start, rows
// that cannot be parsed, counter samples (rocprofv3's counter_collection,
// the counter columns of v1/v2), and the kinds of records not modelled
// (memory allocations, scratch memory, PC samples, KFD events, callback
// records) are counted in trace.ReadOptions.Notes. A CSV row that cannot
// be read is skipped and counted, or with the strict option is an error
// naming the file and line; a last line cut short marks the trace
// incomplete. Broken JSON is an error with the byte offset in the
// decompressed text; a broken database an error naming it. Times are
// integer nanoseconds, as the profilers write them.
package rocprof
