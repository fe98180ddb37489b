// Package mpi finds the message passing of a trace: the MPI calls of each
// resource, the point-to-point messages tied to the calls that sent and
// received them, and the instances of collective operations tied to the
// calls of their members. It is the material of the analyses that reason
// about waiting for other processes: the POP efficiencies' ideal-network
// replay (package pop), the critical path (critpath) and stragglers.
//
// The model holds no notion of MPI; the package recognises it by the
// conventions of the tools that write traces:
//
//   - a state whose value is named MPI_* or PMPI_* (in any case) is an MPI
//     call: Score-P's regions (OTF2), SimGrid SMPI's states (Pajé),
//     HPCToolkit's frames. When MPI calls nest (a profiling layer calling
//     MPI inside MPI), the outermost is the call;
//   - Extrae's events (Paraver) of types 50000001 to 50000005 (point to
//     point, collective, other, I/O and one-sided calls): a non-zero value
//     enters the call the value names, zero leaves it; at a collective's
//     entry, event 50100004 gives its communicator and 50100003 (1) marks
//     the root;
//   - a link between two resources that make MPI calls is a message, from
//     the send (the link's start) to the receipt (its end): Paraver's
//     "Communication", OTF2's "MPI message", SMPI's links. Its send call
//     is the sender's call the start falls in; its receive call the
//     receiver's call the end falls in (the MPI_Recv, or the MPI_Wait* that
//     completes an MPI_Irecv), else the next call that completes receipts;
//   - the k-th collective call of each resource on a communicator is
//     instance k of that communicator. The communicator comes from
//     Extrae's event 50100004 (local to the call's application: in a
//     Paraver trace of several applications, communicator 1 of each is
//     its own, named "1 of APPL 2" where applications share the id) or
//     from the category of OTF2's "MPI collective" event inside the call; in other traces (Pajé) it is
//     unknown, and all collectives are taken to be on one communicator.
//     Calls paired into one instance must be the same operation, or the
//     Run is refused with an error naming them.
//
// Calls are classified by how they may wait (Class): blocking sends,
// receives, completions of requests, and collectives by their pattern
// (all to all, one to all, all to one, scan); the others are local.
//
// A Builder is a trace.Sink: it gathers the Run while a reader streams a
// trace, keeping only the MPI calls, the links and the collectives'
// communicators, so its memory grows with those, not with the trace.
// Blocks gathers the same a resource at a time, the calls set aside in
// spools (spilled to a temporary file) and the messages handed over as
// they are tied, for the analyses that read each resource's calls
// forwards (POP's ideal replay): their memory does not grow with the
// calls.
package mpi
