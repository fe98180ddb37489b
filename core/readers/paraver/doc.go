// Package paraver reads traces in the Paraver format of the BSC tools
// (Extrae, Dimemas) and ovni: a .prv file of records, possibly compressed (gzip, bzip2, zstd), with
// a .pcf file naming states, event types and event values, and a .row file
// naming resources. It streams them into a trace.Sink.
//
// # Header
//
// The first line is
//
//	#Paraver (date):duration[_unit]:resources:nApps:app1:...[,nComms]
//
// The unit is _ns, _us, _ms or _s; without one, or with another _suffix
// (noted in a warning), the times are microseconds, as Paraver's own
// reader takes them (the .pcf of such traces says UNITS MICROSEC). Every time is converted to nanoseconds exactly (the records
// hold integers). The resources are 0 (none), a number of nodes of one CPU
// each, or nNodes(cpus,...); each application is nTasks(threads:node,...).
// With resources 0 the tasks' node numbers are taken as they come, as
// Paraver's parser does (it checks them only against declared nodes).
//
// Extrae's intermediate files (*.mpit, one per thread, listed by
// TRACE.mpits, in set-N directories) are not a trace yet: given one of
// them, the list, or a directory of them, the reader says so and names
// the mpi2prv command that merges them into the .prv.
//
// # Hierarchy
//
// By default (the option view "thread") the containers are applications,
// their tasks and the tasks' threads, as the header declares them, named
// by the .row file (levels APPL, TASK, THREAD) or after Paraver's labels:
// "APPL 1", "TASK 1.2", "THREAD 1.2.1" (aliases "1", "1.2", "1.2.1"). The
// view "cpu" places the same records on nodes and their CPUs instead (levels
// NODE and CPU; "NODE 1", "CPU 3"), using the CPU field of each record;
// records with CPU 0 (unknown) cannot be placed and are an error. All
// containers live from 0 to the end of the trace.
//
// A .row level that names fewer resources than the header declares leaves
// the others their default names, and one that names more leaves the
// last names unused, as Paraver does; either is said in a warning naming
// the .row and the line of its LEVEL. Likewise a .pcf state named or
// colored twice keeps the last line, as Paraver's map keeps it, and a
// negative state (Paraver reads states as unsigned 32-bit numbers) still
// names records with that number: both are counted in a warning naming
// the .pcf and the line of the first one. So is an event type given again
// with another name (it keeps the last, and gathers its values from all
// its blocks; a type repeated with its name, as Extrae repeats its
// hardware counters in each set, is not said), and a value given again
// with another name (the last is kept), as Paraver's PCFFileParser keeps
// them. Numbers are read as they are, past 2^31 and 2^32 too (Paraver's
// stoi drops such .pcf lines; a state is never wrapped into another): a
// .pcf line whose state, type or value is beyond 64 bits is skipped and
// said, since no record can carry it (a record's field beyond 64 bits is
// skipped, naming its line and field). A line of the .pcf or the .row
// that starts with '#' is a comment, skipped as Paraver's parsers skip it.
//
// # Records
//
//   - 1:cpu:appl:task:thread:begin:end:state is a state of type "State",
//     valued by the .pcf's name for the state (or its number), colored by
//     STATES_COLOR. States of a thread do not nest: depth is 0. Zero-length
//     states are kept (Paraver's viewer skips them).
//   - 2:cpu:appl:task:thread:time:type:value[:type:value...] is one point
//     event per pair. Each Paraver event type becomes an event type (alias:
//     its number) named by the .pcf, and each value a value named by the
//     .pcf's VALUES or its number. Counters and call-stack samples are
//     events too: the reader does not turn Extrae's conventions (value 0
//     ending what a non-zero value began) into states. It tells those of
//     MPI by the roles of the types and values (trace.Role), for the
//     analyses of message passing: the types 50000001 to 50000005 (MPI
//     calls) have the role RoleCall (50000002, the collectives,
//     RoleCollectiveCall), 50100004 (a collective's communicator)
//     RoleCommunicator, 50100003 (its root) RoleRootFlag, and their
//     values 0 RoleOff; the applications have the role RoleApplication
//     (Extrae numbers communicators in each) and the threads RoleThread.
//     For the POP efficiencies, the state Running (1) has the role
//     RoleUseful, the counters 42000050 and 42000059 RoleInstructions and
//     RoleCycles, and the OpenMP types 60000001, 60000005, 60000018 and
//     60000023 RoleParallelConstruct (their values 0 RoleOff). Values are integers
//     from -2^63 to 2^64-1: Extrae writes them unsigned (hardware
//     counters, addresses), and Paraver's kernel stores them in an int64_t
//     where those above 2^63-1 wrap to negatives. Here each keeps its exact
//     decimal text as its alias (and name, when the .pcf does not name
//     it), so 18446744073709551615 and -1 remain two values; no float is
//     involved, so nothing rounds (a float64 would above 2^53). A value
//     past that range is an error naming it.
//   - 3:sender cpu:appl:task:thread:logical send:physical send:receiver
//     cpu:appl:task:thread:logical receive:physical receive:size:tag is a
//     link of type "Communication" from the sender to the receiver,
//     declared in the root, valued by the tag, with Size in bytes. It runs
//     from the logical send (when the sender issued it) to the physical
//     receive (when the data arrived), the span that clock skew between
//     nodes cannot make negative in practice; a link that still ends
//     before it starts is an error.
//   - 4:cpu:appl:task:thread:time:communicator:send size:receive
//     size:operation:root, the collective operations of older traces
//     (which Paraver's reader skips), becomes a point event "Global
//     operation" valued by the operation number.
//   - c:appl:id:n:task... (or C:) declares a communicator, i: or I: an
//     intercommunicator (counted in the notes); it is skipped, the
//     model having no place for it. Paraver keeps these lines as text, so
//     one naming an application or tasks the header does not declare (as
//     tools that append an application to a trace leave them) is counted
//     in a warning, not refused.
//
// ovni's traces (ovniemu's cpu.prv, thread.prv and the like, told by the
// fixed date 19/01/38 at 03:14 that ovni writes in their header) hold
// events only, each event type a channel whose value lasts until the next
// event of that type on the row, 0 being none (the "Last Evt Val" of
// ovni's .cfg files). Their events become states instead: one state type
// per event type, named by the .pcf, from each non-zero value to the next
// event of the type on the row or to the end of the trace, the values
// named by the .pcf and colored by its STATES_COLOR, as ovni's windows
// color them. A type whose values the .pcf does not name (TIDs, PIDs,
// task and body IDs, ranks, the number of running threads) holds numbers,
// not states: it becomes a variable of that name, its value held the same
// way, 0 leaving a gap. Such a trace is read whole, never in byte ranges
// (see ovni.go).
//
// In the header, applications are separated by ':' or ',' (Paraver reads
// any one character there), and ',' or ':' precedes the number of
// communicators.
//
// Lines starting with # after the header are comments. A state whose end
// is -1 lasts, as Paraver draws it, until the end the header gives. A
// record Paraver's own reader rejects (it reports the line and goes on) is
// skipped the same way: unknown record types, malformed numbers, records
// naming resources the header does not declare, negative times, states
// ending before they begin, communications received before they are sent.
// They are counted in the notes by kind of record, with the line and cause
// of the first one. Only a bad header refuses the file, with an error
// giving the file, the line and the cause.
//
// # Memory
//
// Records are turned into sink calls as they are read; the reader keeps
// only the containers declared by the header and the types and values
// seen, so memory does not grow with the number of records.
package paraver
