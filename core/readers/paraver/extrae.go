package paraver

import "github.com/macroscope-hpc/macroscope/core/trace"

// Extrae's conventions for MPI, which the reader hands on as the roles of
// the types and values it defines (trace.Role), so that the analyses of
// message passing know no event number: the event types 50000001 to
// 50000005 record the MPI calls (point to point, collective, other, I/O
// and one-sided), a non-zero value entering the call it names and zero
// leaving it; at a collective's entry, 50100004 gives its communicator
// (numbered within its application) and 50100003 (non-zero) marks the
// root.
//
// For the POP efficiencies: the state 1 (Running) is useful computation;
// the events 42000050 and 42000059 count the instructions and cycles
// (PAPI_TOT_INS, PAPI_TOT_CYC) since the thread's previous ones; those of
// types 60000001, 60000005, 60000018 and 60000023 (OpenMP's parallel
// regions, barriers, executed parallel functions and tasks, which
// pypop's configurations count as inside OpenMP) enter a construct by a
// non-zero value and leave it by zero.
const (
	extraeCollectiveType = 50000002
	extraeCommType       = 50100004
	extraeRootType       = 50100003
	extraeInstructions   = 42000050
	extraeCycles         = 42000059
	extraeRunning        = 1
)

// extraeOpenMPTypes are the OpenMP event types of Extrae that enter and
// leave a construct.
var extraeOpenMPTypes = map[int64]bool{60000001: true, 60000005: true, 60000018: true, 60000023: true}

// eventRole returns the role of the Paraver event type id.
func eventRole(id int64) trace.Role {
	switch {
	case id == extraeCollectiveType:
		return trace.RoleCollectiveCall
	case id >= 50000001 && id <= 50000005:
		return trace.RoleCall
	case id == extraeCommType:
		return trace.RoleCommunicator
	case id == extraeRootType:
		return trace.RoleRootFlag
	case id == extraeInstructions:
		return trace.RoleInstructions
	case id == extraeCycles:
		return trace.RoleCycles
	case extraeOpenMPTypes[id]:
		return trace.RoleParallelConstruct
	}
	return trace.RoleNone
}

// valueRole returns the role of value v of an event type of role typ:
// zero leaves a call, or denies the root.
func valueRole(typ trace.Role, v eventValue) trace.Role {
	switch typ {
	case trace.RoleCall, trace.RoleCollectiveCall, trace.RoleRootFlag, trace.RoleParallelConstruct:
		if v == (eventValue{}) {
			return trace.RoleOff
		}
	}
	return trace.RoleNone
}

// stateRole returns the role of the state number n named name: Running
// is useful computation.
func stateRole(n int64, name string) trace.Role {
	if n == extraeRunning || name == "Running" {
		return trace.RoleUseful
	}
	return trace.RoleNone
}
