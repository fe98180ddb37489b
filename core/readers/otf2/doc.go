// Package otf2 reads OTF2 archives, the trace format of Score-P, and
// streams them into a trace.Sink. It decodes the binary format itself: no
// OTF2 library is needed.
//
// # Archives
//
// An archive is an anchor file (traces.otf2), a global definitions file
// (traces.def) and, for each location, an event file (traces/<id>.evt) and
// possibly a local definitions file (traces/<id>.def) whose mapping tables
// translate the location's IDs to global ones and whose clock offsets move
// its timestamps onto the global clock. The other files are named after
// the anchor, whatever its name (APEX writes APEX.otf2, APEX.def, APEX/).
// Read accepts the anchor file or the directory that holds it, where the
// anchor is the one *.otf2 file that starts like an anchor (several
// archives in one directory are an error listing them). Archives written by OTF2 1.x to 3.x are read;
// records and attributes from later versions are skipped by their length,
// as the format allows. Archives of the SIONlib file substrate and
// zlib-compressed archives are refused with an error that says so.
//
// A definition whose ID its kind already defined is an error, save a Group
// or a Comm: EZTrace 2.0 gives Group 0 to MPI_COMM_WORLD's locations, to
// its group and to MPI_COMM_SELF's, and Comm 0 to both communicators. Such
// an ID keeps its first definition, the world's, and the read warns once
// (otf2-print warns too; python3-otf2 refuses them).
//
// Regions still entered when their location's ThreadEnd comes end with it
// (EZTrace 2.0's OMPT module leaves pool threads' implicit tasks so), with
// a warning counting them; those open at the end of the trace end with it,
// with a warning counting them and their locations (trace.Unended).
//
// # Time
//
// A timestamp of t ticks becomes (t - globalOffset) * 1e9 / resolution
// nanoseconds, computed exactly in 128-bit integers and rounded to the
// nearest nanosecond (halves away from zero), with the global offset and
// resolution of the ClockProperties definition: the trace starts at 0.
// Clock offsets are applied first, exactly as the OTF2 library does (linear
// interpolation between synchronisation points, rounded to the nearest
// tick), so timestamps agree with otf2-print and every OTF2-based tool. The
// trace ends at the global offset plus the trace length of ClockProperties,
// or at the last record if that comes later.
//
// # Containers
//
// The system tree, the location groups and the locations become a
// hierarchy of containers that all live for the whole trace:
//
//   - a system tree node is a container of its class ("machine", "node",
//     "ROCm Device"...) in its parent node;
//   - a location group is a "process", an "accelerator" or a "location
//     group" (unknown type) in its system tree node;
//   - a location is a "thread" (CPU thread, of role trace.RoleThread), an "accelerator stream", a
//     "metric" (metric recorder) or a "location" (unknown type) in its
//     location group.
//
// Containers are named as in the archive; unnamed ones take their alias.
// Aliases identify the OTF2 definitions: "systemtreenode:<id>",
// "locationgroup:<id>" and "location:<id>".
//
// # Entities
//
// Types are derived from what the archive holds and defined on first use,
// one per kind of container they live in:
//
//   - Enter and Leave records become states of type "Region", whose values
//     are region names, categorised by the region's paradigm as OTF2
//     names it ("MPI", "USER", "COMPILER", "OPENMP", "MEASUREMENT_SYSTEM"...;
//     none for archives older than OTF2 1.1, which do not say), with the
//     roles POP reads (trace.Role): trace.RoleMeasurement for the
//     measurement system's regions (its paradigm, or Score-P's "TRACE
//     BUFFER FLUSH", "MEASUREMENT OFF"), trace.RoleParallelWait for
//     OpenMP's waits (barriers, taskwaits, locks, flushes),
//     trace.RoleParallelRegion for its other regions and the compilers'
//     outlined parallel bodies; Depth is the nesting level (0 outermost) and Order
//     the rank of the Enter on its location. A Leave closes the innermost
//     open region even when it names another one (hand-instrumented
//     programs do that, and EZTrace's OMPT module), as Scalasca's PEARL
//     and ViTE do, and the read counts such Leaves in a warning; but
//     regions entered at the same time have no
//     order: if it names one of those entered at the innermost one's time,
//     that one is taken as the inner (writers put such Enters in either
//     order); a Leave with no open region is an error. Regions
//     still open at the end of the trace end with it.
//   - Metric samples become variables named after the metric members. A
//     sample holds until the next sample of the same series (piecewise
//     constant) or the end of the trace. Samples of a metric class belong
//     to the location that recorded them; samples of a metric instance to
//     its scope (a location, location group or system tree node; the
//     recorder when the scope is a group). Values are the recorded numbers,
//     as otf2-print shows them: accumulated counters (PAPI) are not
//     differentiated and the unit's base and exponent are not applied.
//     Non-finite values are an error. The types of PAPI's instructions
//     and cycles (PAPI_TOT_INS, PAPI_TOT_CYC) have the roles
//     trace.RoleInstructions and RoleCycles.
//   - MPI point-to-point messages (MpiSend or MpiIsend, and MpiRecv or
//     MpiIrecv) become links of type "MPI message" from the sender's
//     location to the receiver's, from the send to the receive, with the
//     message length as Size, the communicator name as value and the tag as
//     Key. Sends and receives match in order per sender, receiver,
//     communicator and tag, as MPI delivers them. If the clocks of two
//     locations disagree, a link may end before it starts. A send or
//     receive whose other end never comes becomes an event of type
//     "Unmatched MPI message" ("send" or "receive") at the end of the
//     reading.
//   - Other records become events: "MPI collective" (MpiCollectiveEnd,
//     valued by the operation: "BARRIER", "ALLREDUCE"..., the value's
//     Category naming the communicator, so that the analyses tell the
//     collectives of one from another's: an unnamed one by its ID ("Comm
//     5"), one whose name other definitions share with it by name and ID
//     ("row (Comm 5)"), a self communicator's with the location's ID
//     ("MPI_COMM_SELF of location 3": each location's is its own); its
//     Alias "root" on the location whose rank is the record's root; the
//     type has the role trace.RoleCollectiveEnd, the root's values
//     trace.RoleRoot, for the analyses of message passing),
//     "Program"
//     (ProgramBegin, ProgramEnd), "Measurement" (MeasurementOn,
//     MeasurementOff, BufferFlush), "Parameter" (valued by the parameter's
//     name) and "Other" for the remaining records of OTF2 3.0, valued by
//     the record's name ("ThreadFork", "RmaPut", "IoOperationBegin"...).
//     MPI request bookkeeping (MpiIsendComplete, MpiIrecvRequest,
//     MpiRequestTest, MpiRequestCancelled) and MpiCollectiveBegin add
//     nothing to the trace model and are dropped, as are attribute lists.
//
// # Order and memory
//
// The event files are decoded in parallel and merged: records reach the
// sink in the order of their timestamps (in ticks, after clock correction),
// then of their locations' definitions, then of the files, whatever the
// scheduling. Containers and their types come first; a state is sent when
// its region is left, a variable piece when the next sample arrives, a link
// when both ends have been seen. Memory holds the open regions, the latest
// sample of each series, the messages in flight and a bounded window of
// decoded records per location, not the events.
package otf2
