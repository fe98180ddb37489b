package mpi

import "strings"

// Class says how an MPI call may wait for other processes, which is all
// the analyses need to know of it.
type Class uint8

// The classes of MPI calls.
const (
	// Local calls return without waiting for a partner: MPI_Isend,
	// MPI_Irecv, MPI_Test*, MPI_Comm_rank, MPI_Init, MPI_Finalize, the
	// non-blocking collectives, and any call not named below.
	Local Class = iota
	// Send is a blocking send (MPI_Send, MPI_Ssend, MPI_Bsend,
	// MPI_Rsend): it may wait for the receiver to post its receive.
	Send
	// Recv is a blocking receive (MPI_Recv, MPI_Mrecv): it waits for the
	// message.
	Recv
	// SendRecv is MPI_Sendrecv or MPI_Sendrecv_replace: both at once.
	SendRecv
	// Wait completes requests (MPI_Wait, MPI_Waitall, MPI_Waitany,
	// MPI_Waitsome): it waits for the messages they receive.
	Wait
	// AllToAll collectives need every member to have entered before any
	// can leave: MPI_Barrier, MPI_Allreduce, MPI_Alltoall(v,w),
	// MPI_Allgather(v), MPI_Reduce_scatter(_block).
	AllToAll
	// OneToAll collectives wait for the root: MPI_Bcast, MPI_Scatter(v).
	OneToAll
	// AllToOne collectives make the root wait for the others: MPI_Reduce,
	// MPI_Gather(v).
	AllToOne
	// Scan collectives make rank n wait for ranks 0..n-1: MPI_Scan,
	// MPI_Exscan.
	Scan
)

var classNames = [...]string{"local", "send", "receive", "sendrecv", "wait", "all-to-all", "one-to-all", "all-to-one", "scan"}

func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return "Class(?)"
}

// Collective tells whether calls of the class are collective operations.
func (c Class) Collective() bool { return c >= AllToAll }

// Completes tells whether a call of the class completes the receipt of
// messages, and so may wait for their senders.
func (c Class) Completes() bool { return c == Recv || c == SendRecv || c == Wait }

// Blocks tells whether a call of the class may wait for a partner.
func (c Class) Blocks() bool { return c != Local }

var classOf = map[string]Class{
	"send": Send, "ssend": Send, "bsend": Send, "rsend": Send,
	"recv": Recv, "mrecv": Recv,
	"sendrecv": SendRecv, "sendrecv_replace": SendRecv,
	"wait": Wait, "waitall": Wait, "waitany": Wait, "waitsome": Wait,
	"barrier": AllToAll, "allreduce": AllToAll, "alltoall": AllToAll, "alltoallv": AllToAll,
	"alltoallw": AllToAll, "allgather": AllToAll, "allgatherv": AllToAll,
	"reduce_scatter": AllToAll, "reduce_scatter_block": AllToAll,
	"bcast": OneToAll, "scatter": OneToAll, "scatterv": OneToAll,
	"reduce": AllToOne, "gather": AllToOne, "gatherv": AllToOne,
	"scan": Scan, "exscan": Scan,
}

// Operation returns the MPI operation a name stands for, in lower case
// without its prefix ("allreduce" for "MPI_Allreduce", "PMPI_Allreduce"
// or Fortran's "mpi_allreduce_"), and whether the name is an MPI call's:
// a name starting with MPI_ or PMPI_, in any case.
func Operation(name string) (string, bool) {
	n := strings.ToLower(name)
	switch {
	case strings.HasPrefix(n, "pmpi_"):
		n = n[5:]
	case strings.HasPrefix(n, "mpi_"):
		n = n[4:]
	default:
		return "", false
	}
	n = strings.TrimSuffix(n, "_")
	return n, n != ""
}

// Classify returns the class of the MPI call named name (an operation as
// Operation returns it, or a full name such as "MPI_Allreduce").
func Classify(name string) Class {
	if op, ok := Operation(name); ok {
		name = op
	}
	return classOf[strings.ToLower(name)]
}
