// Package chrome reads traces in the Chrome trace-event JSON format, the
// format of chrome://tracing and Perfetto written by the PyTorch profiler
// (Kineto), PerfFlowAspect and many others, and streams them into a
// trace.Sink.
//
// # Input
//
// The input is plain JSON or gzip-compressed JSON, told apart by the gzip
// magic bytes. Both forms of the format are accepted: a bare array of
// events, and an object whose traceEvents key holds them. In the object
// form, systemTraceEvents as ftrace text is not modelled and its lines are
// counted in the notes; as an object (Fuchsia's trace2json: {"type":
// "fuchsia", "events": [...]}) its process (ph p) and thread (ph t)
// records create and name containers, as in the trace viewer, a metadata
// event's name taking precedence, and its context switches and wake-ups
// (ph k, w) are counted; stackFrames and samples (a sampling profile, as
// Hermes writes it) become the stacks of the sampled threads, as V8's CPU
// profiles do (see profile.go), displayTimeUnit only tells viewers how to show times (ts and dur
// are microseconds regardless), and otherData and writers' own keys
// (distributedInfo, deviceProperties...) are checked for syntax and
// ignored.
//
// As the format allows, the array form may miss its closing bracket, and
// end with a comma: such input is complete. An input that ends inside an
// event (a writer that crashed mid-record), inside the traceEvents array or
// the trace object, or whose compressed stream is cut, keeps every event
// complete until then and is noted incomplete (trace.ReadOptions.Incomplete)
// with the byte offset of the cut; if no event is complete, it is an error.
// Trace objects one after the other (Triton's Proton writes its
// .chrome_trace as one object per line: per GPU stream, or per flushed
// phase) are read as one trace, with a warning counting them.
// Two things JSON forbids are accepted, as Perfetto's parser accepts them
// and real files hold them: a comma before a closing '}' or ']', and raw
// control characters (a newline copied from a log) inside strings; the
// arguments kept for a sink are rewritten as strict JSON. Otherwise,
// malformed JSON and invalid UTF-8 are errors giving the byte offset (in
// the decompressed text) and, past the first line, the line: many traces
// are written on one line.
//
// Times (ts, dur) are microseconds, written as integers, decimals or, in
// some files, strings. They are converted to nanoseconds from their decimal
// text, never through a float64, so microsecond timestamps of 16 digits
// with three decimals keep every nanosecond. Digits past the third decimal
// are rounded half away from zero. An event whose ts or dur is a string
// holding no number ("invalid", "100a") is dropped and counted, as
// Perfetto drops it; metadata events need no ts. baseTimeNanoseconds is not added: times
// stay as the trace viewers show them. One producer's exact times are
// taken instead: rocprof v1's JSON (results.json) writes ts and dur as
// strings of whole microseconds, truncated, and the nanoseconds in
// args.BeginNs and args.EndNs; a complete event whose ts is a string and
// whose BeginNs, truncated to the microsecond, is its ts starts at BeginNs
// and ends at EndNs (its args are read when they come after ts, as rocprof
// writes them).
//
// # Model
//
// Containers are processes (pid) holding threads (tid); for Kineto GPU
// traces a process is a device and a thread a stream. A thread is its
// (pid, tid), never its name: two threads named alike stay two containers,
// and so do two processes; a name shared within a process (or by two
// processes) is followed by the id ("main 12", "main 13") so that no two
// containers share a path, which tables and views use as the key. pid and tid may be numbers or strings; both are
// compared as text, as the trace viewer does, so 7 and "7" are the same
// process and "Spans" is a process of its own. Metadata events (ph M) name
// them wherever they come in the file: process_name and thread_name give
// the container names, without the white space around them, which no
// viewer shows and no one types in a path (Kineto names its GPU streams
// "stream 7 "; a name of white space alone leaves the id);
// process_labels, if it differs from the name, is appended in
// parentheses; process_sort_index and thread_sort_index give their
// order. Without a sort index, a numeric pid or tid is its own index, as
// Kineto writes it explicitly; containers with no index at all come last.
// Ties keep the order of first appearance. Other metadata
// (process_uptime_seconds, num_cpus...) is counted in the notes by name.
// An event without pid is on pid 0, one without tid on the thread whose
// tid is its pid (its process's main thread), as in Perfetto (counted in a
// warning). The thread (pid, tid) of every event
// that has one is a container, async events included, as the trace viewers
// create it; counters and process or global instants need no thread.
// Containers live from the first to the last instant of the trace.
//
// Phases and what they become:
//
//   - X (complete) and B/E pairs: states of type "Slice" on their thread,
//     valued by the event name. B and E of a thread are matched in time
//     order, file order breaking ties: an E (whose name may be missing)
//     closes the latest open B. An E with nothing open is counted and
//     dropped. An X without dur, or a B never closed, was still running
//     when the recording stopped: it lasts until the last instant seen on
//     its thread, as in the trace viewer, and is counted in a warning (the
//     B never closed with their threads, trace.Unended's words).
//   - i, I and R: point events "Instant" on the thread, or with scope "p"
//     a "Process instant" on the process, or with scope "g" a "Global
//     instant" on the root container.
//   - C (counter): each numeric series of args becomes a variable type
//     named "<name> <series>" ("<name> id: <id> <series>" with an id) on
//     the process; a sample holds until the next sample of that series,
//     the last until the end of the trace. Values that are not numbers are
//     counted.
//   - b, e, n (nestable async) and S, T, p, F (legacy async): async
//     tracks, one per async id: (cat, id) for nestable events, (name, id)
//     for legacy ones, id2.local ids scoped by pid, as the trace viewer
//     keys them. b..e and S..F are states "Async slice" nested per track:
//     an end closes the innermost open begin of the same name, begins
//     opened above it end with it, begins never ended end at the last
//     event of their track (both counted in warnings), ends that close
//     nothing are counted. n is an "Async instant", T and p are "Async
//     step" events valued by args.step when given. The tracks are shown
//     as Perfetto and the trace viewer show them: grouped by the process
//     and name of their first event in the file, each group packed into
//     lanes, containers of type "Async track" (of role
//     trace.RoleAsyncLane) under the process, "<name>"
//     then "<name> (overlap lane k)"; a group named as a thread of its
//     process is "<name> (async)" (or "(async 2)"... where that is
//     taken), so that no two containers share a path. A track's operations (a top-level
//     slice with what nests in it and the track's instants and steps
//     while it is open; an instant or step outside any slice is one of no
//     duration) go, in order of start, each to the lowest lane whose last
//     operation has ended by then: a group has as many lanes as it has
//     operations open at once, not one per id. An operation stays whole
//     on its lane, so that each lane is a proper call stack; one lane
//     holds the operations of several ids one after the other. The id
//     of a track is the first member of the args of its slices and
//     events, {"id":"0x1b",...} (args that are not an object stay as they
//     are).
//   - s, t, f (flows), and the flow_in / flow_out flags with bind_id on X
//     events (Perfetto's form): links of type "Flow" between threads,
//     declared in the root container, valued by the flow name, with Key
//     "cat:id" (see Flows). Kineto's launch flows (categories ac2g,
//     async_cpu_to_gpu, and async for the flows named "launch") have
//     values of role trace.RoleLaunchFlow, apart from the values of other
//     flows of the same name.
//   - X events of Kineto's GPU categories, by their args.correlation:
//     links of type "Correlation" (role trace.RoleLaunchSynced) from a runtime or driver call
//     (cuda_runtime, cuda_driver) to each GPU operation or
//     synchronisation (kernel, gpu_memcpy, gpu_memset, cuda_sync) of its
//     correlation id, where no matched launch flow (ac2g,
//     async_cpu_to_gpu) of that id exists, valued by the call's name; and
//     links of type "CUDA event wait" (role trace.RoleEventWait) from the stream a cudaEventRecord
//     call recorded on (args.wait_on_stream), at the call's start, to the
//     synchronisation that waits for it (its
//     args.wait_on_cuda_event_record_corr_id). Key: the correlation id.
//     The synchronisations' values (cuda_sync) have the roles
//     trace.RoleStreamSync ("Stream Sync"), RoleContextSync ("Context
//     Sync"), RoleEventSync ("Event Sync") and RoleStreamWaitEvent
//     ("Stream Wait Event"); the kernels NCCL names nccl...Kernel... have
//     trace.RoleCommunicationKernel (trace.NCCLKernel). The CPU events
//     of Kineto's categories cpu_op, cuda_runtime and cuda_driver
//     (Operator and Runtime in PyTorch 1.8 and 1.9) have
//     trace.RoleHostCall, and the calls of the GPUs' runtimes that launch
//     or block (trace.GPUCallRole: cudaLaunchKernel, cudaMemcpyAsync,
//     cudaStreamSynchronize..., in any category) RoleLaunchCall,
//     RoleBlockingLaunchCall or RoleBlockingCall instead. PyTorch
//     profiler's steps (ProfilerStep#N) have trace.RoleStep on the host
//     (RoleStepCall in a call category) and N as their Step
//     (trace.ProfilerStep), as PaddlePaddle's profiler's steps do
//     (category ProfileStep, "ProfileStep#N[<duration>]"), none in their
//     copies on the GPU
//     (gpu_user_annotation), which are read on a thread of their own
//     beside their stream, "<stream> (annotations)" (see
//     splitGPUAnnotations), and whose values, like every value of that
//     category, have trace.RoleDeviceAnnotation. The spans Kineto writes of its own recording
//     (category Trace, on process "Spans" and a thread named after the
//     span, named "[<prefix>]<span> (<iteration>)": "PyTorch Profiler
//     (0)", "__cupti_profiler__ (-1)") have trace.RoleRecording; another
//     producer's category Trace keeps no role, even "Iteration (3)". A sink that asks
//     for streams (trace.StreamSink) is told the args.stream of each
//     state that has an integer one, as a 32-bit id (Kineto writes -1 as
//     4294967295).
//   - The values of events named as the compilers name the outlined
//     bodies of OpenMP's parallel regions (f._omp_fn.N, .omp_outlined.:
//     trace.OutlinedParallelBody) have the role trace.RoleParallelRegion,
//     whatever their category.
//   - M: names and sort indexes, see above.
//   - P events "Profile" and "ProfileChunk" (V8's CPU profile, as DevTools
//     records it), and Chrome 66's "CpuProfile" instants (ph I): the
//     nested states of the sampled thread's stacks, on a thread container
//     "<thread> (CPU profile)" beside it (see profile.go).
//   - Phases the model does not hold are counted in the notes, never
//     refused: object snapshots (N, O, D), other samples (P), memory dumps (v,
//     V), clock syncs (c), contexts ( and ), unknown phases, entries
//     without ph (such as the {} rocprof writes first), and events lacking
//     a field their phase needs (ts, id).
//
// The category (cat) of slices, instants and async events is the Category
// of their value: values are told apart by (type, name, category). The
// arguments (args) of states and events are kept, as JSON text, when the
// sink asks for them (trace.ArgsSink, Trace.KeepArgs); a slice made of a
// begin and an end (B/E, b/e, S/F) has the members of both, the end's last.
//
// # Nesting
//
// The depth of a slice is computed from containment on its thread: slices
// are sorted by start, longer first, then in file order, and a slice is
// the child of the innermost open slice that contains it. Intervals are
// closed, so a zero-length slice at the very end of another is its child;
// these are the rules of HTA's call-stack tests. A slice that starts
// inside another and ends after it cannot nest: it is placed, with its own
// descendants, on an overlap lane, a sibling container of the thread named
// "<thread> (overlap lane k)" (alias "<tid>#k"), so that every container
// holds a proper call stack. Each slice goes to the lane whose innermost
// open slice encloses it (the latest started), else to the first lane with
// nothing open, else to a new lane. Real Kineto traces need a few lanes
// (GPU work that outlives its annotation); more than 4096 on one thread is
// an error.
//
// # Flows
//
// Flow events belong to the same flow when they share cat and id (id2
// "local" ids are also scoped by pid; bind_id, when given, is the id).
// A complete event with flow_out starts a flow from itself, one with
// flow_in ends a flow on itself, one with both is a step; they are matched
// by bind_id across categories. A flow's points are matched in time
// order as Perfetto does (at one instant, a start before a step, a step
// before an end, whatever their order in the file): s opens the flow, t
// links from the latest point and becomes it, and f links from the latest
// point without closing the flow, so one CUDA graph launch fans out to
// each of its kernels. Each
// point binds to a slice, which decides the lane container and the time:
// s, t, and f with bp "e" bind to the innermost slice enclosing their time
// (the link keeps the event's time); an f without bp "e" binds to the
// next slice starting at or after it, and the link ends where that slice
// starts. A point with no slice to bind to stays on its thread at its own
// time. Points that no link uses (Kineto writes many flow ends whose start
// was never recorded) become point events of type "Unmatched flow" valued
// "<cat>: end without start", "<cat>: step without start" or "<cat>: start
// without end", so nothing in the file is dropped silently.
//
// # Memory
//
// The JSON text is streamed through a window (4 KB growing to 256 KB, more
// only for a longer token) and never held whole. A plain file of 1 MiB or
// more is mapped in memory instead (on Linux) and read in place, which
// spares copying it: the pages passed are given back every 2 MiB, so the
// process holds a window of it, not the file (see mapped.go); a file that
// another program truncates while it is read stops the read with an
// error naming it.
// Events come in no particular time order and the metadata that names and
// orders the containers may come last, so until the end of the input the
// reader keeps one compact record per slice (40 bytes), counter sample,
// B/E event, instant or async event (32 bytes) and flow point (56 bytes),
// with all strings interned: about 7 MB for the 455,739 events of the
// largest Kineto trace of the corpus, whose JSON text is 87 MB. Arguments,
// when the sink keeps them, are gathered as text in one buffer. The sink is
// called only once the whole input is read; the records are released when
// Read returns. Read on several cores (see Speed), a few parts of 1 MiB
// and their events are in flight besides.
//
// # Speed
//
// The reader has two paths over the same text. The ordinary one reads
// token by token, refilling the window as needed, decides every leniency
// and writes every error. In front of it, fast paths read the common case
// in one pass over the window: a whole event made of plain strings and
// numbers, with args skipped or holding metadata names and counter values
// (readEventFast), and any value the reader skips (skipFast). They look at
// eight bytes at a time for quotes, backslashes, control characters and
// multi-byte UTF-8 (SWAR, in portable Go: no assembly, so nothing differs
// between architectures), check numbers' grammar while scanning them, and
// parse times from their decimal text as the ordinary path does. A fast
// path only ever accepts: on anything else (an escape, null, args before
// ph, a trailing comma, an event cut by the end of the window, an error)
// it gives up without consuming anything and the ordinary path reads the
// same bytes, so results and error messages are those of the ordinary
// path; fuzz tests compare the two. Strings interned before a fast path
// gives up are the ones the ordinary path interns first, in the same
// order, so their ids do not change either. The slices of a thread, which
// writers emit nearly in order, are merged rather than sorted.
//
// On more than one core (GOMAXPROCS), once the first event is read, the
// rest of the event array is read in parts. One goroutine reads the input
// (a mapped file: finds its way through it) and cuts it every megabyte or
// so after a comma that looks like one between two events ('}', the
// comma, '{', blanks aside). The cut is only
// a guess, since a string or a nested value may hold the same text: each
// part is parsed on its own core, by the same code, as a run of whole
// events each followed by its comma, which confirms the cut. A part that
// does not parse to its end keeps the events before its last comma read,
// and the rest of it is read again with the next part from that comma,
// which is a safe point; if that too fails (damaged input) the ordinary
// path reads the rest of the input and reports what it finds. Parts
// count lines and intern strings on their own; the reading goroutine
// takes them in input order, moves their events' lines and hands the
// events to the collector one by one, interning their strings in the
// order of their first use, so that the collector, the ids and all that
// is built from them are exactly those of a read on one core. Tests read
// the corpus and generated traces whose strings hold brackets, commas and
// escapes both ways and compare everything, notes and errors included.
package chrome
