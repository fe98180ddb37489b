// Package mpi finds the message passing of a trace: the MPI calls of each
// resource, the point-to-point messages tied to the calls that sent and
// received them, and the instances of collective operations tied to the
// calls of their members. It is the material of the analyses that reason
// about waiting for other processes: the POP efficiencies' ideal-network
// replay (package pop), the critical path (critpath) and stragglers.
//
// The package knows no trace format: it recognises MPI by the names of
// MPI's calls and by the roles the readers give the types and values
// whose meaning their format fixes (trace.Role):
//
//   - a state whose value is named MPI_* or PMPI_* (in any case) is an MPI
//     call (the regions, states or frames of the tools that record calls
//     as intervals). When MPI calls nest (a profiling layer calling MPI
//     inside MPI), the outermost is the call;
//   - events of role trace.RoleCall or RoleCollectiveCall (the Paraver
//     reader gives them to Extrae's): an event enters the call its value
//     names, a value of role RoleOff leaves it; at a collective's entry,
//     an event of role RoleCommunicator gives its communicator and one of
//     RoleRootFlag marks the root;
//   - a link between two resources that make MPI calls is a message, from
//     the send (the link's start) to the receipt (its end). Its send call
//     is the sender's call the start falls in; its receive call the
//     receiver's call the end falls in (the MPI_Recv, or the MPI_Wait*
//     that completes an MPI_Irecv), else the next call that completes
//     receipts;
//   - the k-th collective call of each resource on a communicator is
//     instance k of that communicator. The communicator comes from the
//     RoleCommunicator event at the call's entry (local to the call's
//     application, trace.RoleApplication: in a trace of several
//     applications, communicator 1 of each is its own, named "1 of APPL 2"
//     where applications share the id; the runs of a trace read from
//     several OTF2 archives or Paraver traces are applications too), or
//     from the category of the
//     RoleCollectiveEnd event inside the call, whose value's role
//     RoleRoot marks the root; in other traces it is unknown, and all
//     collectives are taken to be on one communicator.
//     Calls paired into one instance must be the same operation, or the
//     Run is refused with an error naming them.
//   - a resource whose container type is a thread's (trace.IsThread)
//     belongs to the process its parent is; any other is a process.
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
