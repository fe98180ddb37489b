// Package pop computes the POP efficiencies of a parallel run (the
// metrics of the POP Centre of Excellence, pop-coe.eu/node/69), as BSC's
// modelfactors.py (bsc-performance-tools/basicanalysis) and pypop
// (numericalalgorithmsgroup/pypop) compute them from Extrae traces, from
// any trace with MPI calls.
//
// For one run, the raw data (Run): the trace's duration T; each
// resource's useful computation U_r (the states of role
// trace.RoleUseful: Extrae's Running state, in Paraver traces; elsewhere its time outside MPI calls and the measurement
// system's regions, between its first and last records); the useful
// instructions and cycles (the hardware counters PAPI_TOT_INS and
// PAPI_TOT_CYC: the events of roles trace.RoleInstructions and
// RoleCycles, Extrae's, with Paraver's "next event value" semantics, or
// the variables of those roles, OTF2's accumulated metrics); and the
// runtime IR on an ideal network, with the largest time outside MPI
// calls it keeps (Replay).
//
// For a series of runs (ComputeFactors), the factors, multiplicative as
// BSC computes them (modelfactors.py, compute_model_factors) and additive
// as pypop's MPI_Metrics do (pypop/metrics/mpi.py), the reference being
// the run with the fewest resources (then threads per process, as pypop
// chooses it):
//
//	load balance            LB  = mean_r U_r / max_r U_r        (additive: 1 - (max U - mean U) / T)
//	communication eff.      CommE = max_r U_r / T
//	serialisation eff.      SerE = max_r O_r / IR               (additive: 1 - (IR - max U) / T)
//	transfer eff.           TE  = CommE / SerE                  (additive: IR / T)
//	parallel eff.           PE  = mean_r U_r / T = LB x CommE
//	computation scal.       CompS = sum U (ref) / sum U         (weak: x R / R_ref)
//	global eff.             GE  = PE x CompS
//	IPC, its scalability    IPC = instructions / cycles, IPC / IPC_ref
//	instruction scal.       instructions_ref / instructions     (weak: x R / R_ref)
//	frequency, its scal.    cycles / sum U (GHz), f / f_ref
//	speed-up                T_ref / T                           (weak: x R / R_ref)
//
// where O_r is r's time outside MPI calls from the trace's start to its
// last record and R the run's resources (threads of all processes, BSC's
// CPUs). Weak scaling is recognised as BSC does: the useful instructions,
// over the reference's, over the ratio of resources, average above 0.9
// (Scaling Auto).
//
// The ideal network is not simulated by Dimemas but replayed from the
// trace's own MPI calls and messages (Replay): on pypop's EPOCH runs the
// ideal runtime equals Dimemas' to the 0.01 us it prints on 1 to 8
// processes, and is 0.0075 % shorter on 16.
//
// Runs of several threads per process (hybrid MPI+OpenMP) add the hybrid
// model's factors (Factors.Hybrid): BSC's (modelfactors.py's hybrid
// table: MPI parallel efficiency, its load balance, communication,
// serialisation and transfer, from each process's time outside MPI calls
// on its main thread; OpenMP parallel efficiency, load balance and
// communication, the standard factors over the MPI ones) and pypop's
// (pypop/metrics/hybrid.py: process and thread level efficiency, OpenMP
// region and serial region efficiency, from the main thread's time in
// OpenMP constructs and serial useful computation), additive and
// multiplicative. OpenMP constructs are the events of role
// trace.RoleParallelConstruct (Extrae's OpenMP events, stacked) and the
// states of role trace.RoleParallelRegion or trace.RoleParallelWait (OTF2's
// regions of paradigm OPENMP, the compilers' outlined parallel bodies);
// the states of role trace.RoleParallelIdle (HPCToolkit's "<omp idle>"...)
// are waits outside them, and those of role trace.RoleMeasurement
// (Score-P's buffer flushes) the measurement system's own time. The
// readers set the roles; this package knows no format's names.
//
// A series without MPI calls whose runs use OpenMP or threads
// (Factors.WithoutMPI) has pypop's OpenMP_Metrics instead
// (pypop/metrics/openmp.py): global and parallel efficiency, OpenMP and
// serial region efficiency, computation, instruction, IPC and frequency
// scalability, in that order, and in the multiplicative form BSC's load
// balance and communication efficiency; no factor of the MPI model.
//
// The Accumulator is a trace.Sink: the useful times and counters are
// computed while the trace streams by, with the MPI calls and messages
// the replay needs (the mpi package's Builder), not the other states;
// for hybrid runs the intervals of the OpenMP constructs and Extrae's
// Running bursts are kept per thread. The calls are set aside resource
// by resource (mpi.Blocks, spilled to a temporary file beyond
// Options.SpillMemory) and the messages become the replay's waits as
// they are tied to them: the replay reads each resource's calls
// forwards and holds only what partners still wait for, so memory grows
// with the messages in flight, not with the calls.
package pop
