// Package perfetto reads Perfetto protobuf traces (.perfetto-trace,
// .pftrace, .pb), as written by the Perfetto tracing service, the Perfetto
// SDK and Android, and streams them into a trace.Sink.
//
// # Input
//
// A trace is a protobuf Trace message: a sequence of TracePacket fields
// (field 1, length-delimited). The reader decodes by hand only the fields
// it uses (numbers from Perfetto's .proto files), the packets most traces
// are made of (a timestamp, a track event of a type, a track and a name)
// in one tight loop, any other through a general walk of the wire format
// with google.golang.org/protobuf/encoding/protowire; the file is never
// held whole. It may be compressed with gzip, bzip2 or zstd; packets
// compressed inside the trace (compressed_packets,
// zstd_compressed_packets) are expanded. The file is read twice: first
// for the descriptions of tracks, processes and threads (which may come
// anywhere, from any writer), then for the events, so that each container
// is created with its name and parent before anything is put in it. A
// file cut after whole packets is read up to the cut and marked
// incomplete, as trace processor reads it; a corrupt file, or one cut
// inside its first packet, is a FormatError giving the byte offset (in
// the decompressed input) of the packet or field at fault.
//
// Each pass runs on all cores: one goroutine reads the input in
// megabyte chunks and splits it at packet boundaries (each packet's
// length prefix), in batches of packets; a worker per core decodes what
// each packet says by itself; the caller's goroutine applies the batches
// in file order to what depends on the packets before (each sequence's
// interned names, defaults and clocks, open slices, counters, flows),
// and alone calls the sink. The sink gets the same calls, in the same
// order, as from a read on one core, and memory holds a few chunks and
// batches, whatever the file's size. A file whose content fits in one
// chunk, as most do, is read once, kept, and decoded on the caller's
// goroutine alone: for it, starting workers would cost more than they
// save.
//
// # Hierarchy
//
// Track descriptors build the containers:
//
//   - a track with a process descriptor is the container "Process" of its
//     pid, under the root, named "<name> <pid>" (process name, else first
//     word of the command line, from the descriptors or the process tree);
//   - a track with a thread descriptor is the container "Thread" of its
//     tid, under its process (named as above), or under the root when no
//     pid is known; all tracks of one thread share its container;
//   - any other track (async, custom, global) is a container "Track" named
//     by the track under its parent track's container, or under the root;
//     the implicit global track (uuid 0) is the track "Global". Tracks
//     of one name under one parent (Chromium's PipelineReporter tracks)
//     are packed into overlap lanes, as the chrome reader packs async
//     tracks: "<name>", then "<name> (overlap lane k)", each operation (a
//     top-level slice with what nests in it, or an instant outside any
//     slice) on the lowest lane free when it begins (see lanes.go);
//   - a counter track is no container: its values are a variable named by
//     the track in its parent track's container (the root without one).
//
// Process trees (ps/process_tree.proto) create the processes and threads
// they list and name them. Each CPU of ftrace data is a container "CPU"
// under the root. A pid or tid reused during the trace is one container.
//
// # Events
//
//   - TYPE_SLICE_BEGIN and TYPE_SLICE_END: states "Slice" valued by the
//     event name, nested per container (Depth 0 outermost; Order counts the
//     begins). A slice still open at the end of the trace ends with it, and
//     a warning counts them and their tracks; an end with nothing open is skipped and
//     counted.
//   - TYPE_INSTANT: events "Instant".
//   - TYPE_COUNTER, and extra_counter_values of any event (their tracks
//     from the event or the sequence's defaults): pieces of the counter's
//     variable, each value holding until the next, the last until the end
//     of the trace. Unit multipliers and incremental counters are applied.
//     Values may come out of time order (Chromium writes V8's heap
//     counters late, from other threads): the last 1,024 of each track
//     wait sorted by time, and a value earlier than those already placed
//     is skipped and counted.
//   - TYPE_STATE, on a state track (a track with a StateDescriptor, as
//     Chrome writes RenderingPrioritizationState): states "State" of the
//     track's container valued by the event name, one at a time, each
//     until the track's next event, the last until the end of the trace;
//     an event without a name leaves the track in no state. An event on
//     another track, without a track, or earlier than its track's last
//     event is skipped and counted.
//   - Legacy events (TrackEvent.LegacyEvent) with phases B, E, X (complete
//     slices, with duration_us) and I, i, R (instants). As in the trace
//     processor, a complete slice that begins inside another complete
//     slice and outlives it is dropped (counted), and slices left open
//     inside a complete slice end with it (a warning counts them).
//   - Legacy async events (b, e, n; S, F and the steps T, p): slices and
//     instants on a container "<name> (async <id>)" under their process,
//     one per id and scope. Flow phases s, t, f (flows v1) bind to the
//     enclosing slice, or for an f without bind_to_enclosing to the next
//     slice of the thread, as in the trace processor. Other phases are
//     counted.
//   - flow_ids and terminating_flow_ids: links "Flow" declared in the root,
//     from the earlier to the later of two successive events of a flow (in
//     file order), valued by the name of the source event, with the flow id
//     as Key. A terminating id ends the flow. Flows of a single event are
//     counted. Legacy flows (bind_id and flow_direction) join the same
//     way: FLOW_OUT starts, FLOW_INOUT continues, FLOW_IN joins and leaves
//     the flow open.
//   - sched_switch events of ftrace bundles and their compact encoding:
//     states "Running" on the CPU valued by the thread switched to,
//     "<comm> [<tid>]", as Perfetto's UI labels it (grouped by thread
//     name); the idle task is no state. cpu_frequency, gpu_frequency and
//     cpu_idle events: variables cpufreq, gpufreq and cpuidle of their
//     CPU or GPU (see frequency.go). binder_transaction and
//     binder_transaction_received events: states "binder transaction" and
//     "binder reply" and events of the threads (see binder.go). Other
//     ftrace events and compact sched_waking events are counted.
//   - Atrace annotations in ftrace print and tracing_mark_write events
//     (B, E, I, C): states "Atrace slice" and events "Instant" of the
//     writing thread, variables of its process, applied in time order at
//     the end (see atrace.go); async slices (S, F, G, H) are states
//     "Atrace slice" on tracks of their process and name, "<name>" then
//     "<name> (overlap lane k)" (see atraceasync.go).
//
// Event names come from the event or from the interned data of its
// sequence (name_iid). Categories and arguments (debug annotations, typed
// fields) are not kept: the events carrying them are counted. Each packet sequence
// (trusted_packet_sequence_id) has its incremental state: interned names,
// TracePacketDefaults (default track, default extra counter tracks,
// default clock) and sequence-scoped clocks, forgotten when a packet sets
// SEQ_INCREMENTAL_STATE_CLEARED. Packets that set
// SEQ_NEEDS_INCREMENTAL_STATE on a sequence whose state is not valid
// (never cleared, or lost after previous_packet_dropped) are skipped and
// counted, as trace processor does. Events with no track and
// no default track go to the thread of the sequence's ThreadDescriptor
// packet (old writers), else to the global track.
//
// # Time
//
// Times are nanoseconds of boot time, Perfetto's trace clock: timestamps
// with no clock id or BOOTTIME are used as they are. Sequence-scoped clocks
// (ids 64 to 127, often incremental, as the SDK writes them) and other
// built-in clocks are converted through the latest ClockSnapshot relating
// them to boot time (of their sequence, for the former), directly or
// through another built-in clock: Chromium's snapshots relate its
// sequence clocks to MONOTONIC only, and the tracing service's relate
// MONOTONIC to boot time. A snapshot is read before its own packet's
// timestamp, which may be on a clock it defines. A built-in clock
// no snapshot relates is used as it is, with a warning; a packet on a
// sequence-scoped clock with no snapshot is skipped and counted. Old
// events with microsecond timestamps (timestamp_absolute_us,
// timestamp_delta_us from the ThreadDescriptor's reference) are converted
// to nanoseconds. The trace spans from the first to the last timestamp of
// any packet; containers live that whole span.
//
// The values named as the compilers name the outlined bodies of OpenMP's
// parallel regions (f._omp_fn.N, .omp_outlined.:
// trace.OutlinedParallelBody) have the role trace.RoleParallelRegion, and
// those NCCL names nccl...Kernel... (trace.NCCLKernel) the role
// trace.RoleCommunicationKernel. The values of a CPU's state Running,
// the threads that run ("<comm> [<tid>]"), have the role
// trace.RoleScheduledThread: grouped by thread name (core/names' thread-id
// rule), which no other value of the form "<name> [<n>]" is.
//
// Every other kind of packet (Android system data, winscope, profiles,
// statistics, configuration...) is skipped and counted by kind in the
// notes ("packets of kind winscope/surfaceflinger_layers_snapshot").
package perfetto
