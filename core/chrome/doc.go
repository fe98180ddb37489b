// Package chrome reads traces in the Chrome trace-event JSON format, the
// format of chrome://tracing and Perfetto written by the PyTorch profiler
// (Kineto), PerfFlowAspect and many others, and streams them into a
// trace.Sink.
//
// # Input
//
// The input is plain JSON or gzip-compressed JSON, told apart by the gzip
// magic bytes. Both forms of the format are accepted: an object whose
// traceEvents key holds the events (other keys, such as distributedInfo,
// deviceProperties or displayTimeUnit, are checked for syntax and ignored),
// and a bare array of events. As the format allows, the array form may miss
// its closing bracket, which happens when the traced process is killed: the
// input may then end after any complete event. Input that ends inside an
// event, compressed data that is cut short, malformed JSON and invalid
// UTF-8 are errors giving the line and byte offset (in the decompressed
// text).
//
// Times (ts, dur) are microseconds, written as integers, decimals or, in
// some files, strings. They are converted to nanoseconds from their decimal
// text, never through a float64, so microsecond timestamps of 16 digits
// with three decimals keep every nanosecond. Digits past the third decimal
// are rounded half away from zero. baseTimeNanoseconds is not added: times
// stay as the trace viewers show them.
//
// # Model
//
// Containers are processes (pid) holding threads (tid); for Kineto GPU
// traces a process is a device and a thread a stream. pid and tid may be
// numbers or strings; both are compared as text, so 7 and "7" are the same
// process. Metadata events (ph M) name them: process_name and thread_name
// give the container names (process_labels, if it differs from the name, is
// appended in parentheses), process_sort_index and thread_sort_index their
// order. Without a sort index, a numeric pid or tid is its own index, as
// Kineto writes it explicitly; containers with no index at all come last.
// Ties keep the order of first appearance. Other metadata is ignored.
// Containers live from the first to the last instant of the trace.
//
// Phases and what they become:
//
//   - X (complete: ts and dur) and B/E pairs: states of type "Slice" on
//     their thread, valued by the event name. B and E of a thread are
//     matched in time order, file order breaking ties; an E with nothing
//     open is an error, a B never closed ends with the trace.
//   - i, I, R and n: point events "Instant" on the thread, or with scope
//     "p" a "Process instant" on the process, or with scope "g" a "Global
//     instant" on the root container.
//   - C (counter): each series of args becomes a variable type named
//     "<name> <series>" ("<name> id: <id> <series>" with an id) on the
//     process; a sample holds until the next sample of that series, the
//     last until the end of the trace.
//   - s, t, f (flows): links of type "Flow" between threads, declared in
//     the root container, valued by the flow name, with Key "cat:id".
//   - Any other phase (async b/e, objects, samples...) is an error naming
//     it, rather than being dropped silently.
//
// The category (cat) of slices and instants is not kept.
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
// "local" ids are also scoped by pid). A flow's points are matched in time
// order as Perfetto does: s opens the flow, t links from the latest point
// and becomes it, and f links from the latest point without closing the
// flow, so one CUDA graph launch fans out to each of its kernels. Each
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
// The JSON text is streamed through a fixed window and never held whole.
// Events come in no particular time order and the metadata that names and
// orders the containers may come last, so until the end of the input the
// reader keeps one compact record per slice or counter sample (32 bytes),
// B/E event or instant (24 bytes) and flow point (48 bytes), with all
// strings interned: about 6 MB for the 455,739 events of the largest
// Kineto trace of the corpus, whose JSON text is 87 MB. The sink is called only once the whole input is read and
// valid; the records are released when Read returns.
package chrome
