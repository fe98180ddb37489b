// Package xplane reads the XSpace files of the TensorFlow and JAX
// profilers (<host>.xplane.pb, which jax.profiler.trace,
// jax.profiler.start_trace and TensorFlow's profiler write into
// plugins/profile/<run>/ of their log directory) and streams them into a
// trace.Sink.
//
// # Input
//
// An XSpace is one protobuf message (tsl/profiler/protobuf/xplane.proto):
// planes (a host's threads, each device), each made of lines (a thread,
// a stream, a timeline the profiler derives: "XLA Modules", "XLA Ops",
// "Steps"), each of events. An event gives its metadata id (the plane's
// event_metadata names it), its start as an offset in picoseconds from
// its line's timestamp_ns, and its duration in picoseconds. The reader
// decodes the fields it uses by hand with
// google.golang.org/protobuf/encoding/protowire; unknown fields are
// skipped, as protobuf parsers skip them. The file may be compressed with
// gzip, bzip2 or zstd. It is read whole (its planes' metadata come after
// their lines), counted against the read's memory budget. A corrupt or
// cut file (a length past the end of its message, a known field of the
// wrong wire type, an event of negative duration or out of range of
// int64 nanoseconds) is a FormatError giving the byte offset of the
// field at fault. A space that names no host is read with a warning: the
// profilers write the hostnames after the planes, so a space cut between
// two planes lacks them (but xprof's own TPU test spaces name none).
//
// A directory is read as the profile of one run: its .xplane.pb files,
// one per host; or, given the log directory (or its plugins/profile),
// the latest run's.
//
// # What is read
//
// As xprof's trace viewer shows a space (xplane_to_trace_container.cc):
// the planes of the host's threads (/host:CPU), of the GPUs
// (/device:GPU:N), or of the TPUs when there is no GPU (/device:TPU:N),
// and of custom devices (/device:CUSTOM:...); other planes hold metadata
// (the HLO modules, the task's environment) and are not read. Lines with
// no event and counter lines ("_counters_", "counters_*") are left out,
// as are the host events the trace viewer hides (TensorFlow's
// MemoryAllocation, tf.data's producers and consumers) and aggregated
// events (num_occurrences, no time): the read's notes count them.
//
// # Model
//
// Containers: Host (a file; named by the space's first hostname, else by
// the file's name) > Plane (named as in the file) > Line (its
// display_name, else its name). Lines with the same display id (else id)
// are one container, as the trace viewer draws them in one row.
//
// States: one state type, Event. An event's value is its metadata's
// display_name, else its name, or the value of its step_name stat when
// it has one (the trace viewer's rule); the names are kept as the
// profiler wrote them, for package names to group (XLA's fusion numbers,
// kernels). Times are nanoseconds: start = timestamp_ns + offset_ps,
// end = start + duration_ps, each rounded to the nearest nanosecond
// from the exact picoseconds, so that nested events stay nested. Events
// of a line nest as its call stack (package nesting); events that
// overlap without nesting go to an overlap lane of the line.
//
// Roles: the events of a "Steps" line (a TPU's steps, or a TensorFlow
// GPU run's, named by their number) are steps (trace.RoleStep,
// numbered); NCCL kernels communicate (trace.RoleCommunicationKernel).
package xplane
