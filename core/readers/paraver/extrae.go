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
const (
	extraeCollectiveType = 50000002
	extraeCommType       = 50100004
	extraeRootType       = 50100003
)

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
	}
	return trace.RoleNone
}

// valueRole returns the role of value v of an event type of role typ:
// zero leaves a call, or denies the root.
func valueRole(typ trace.Role, v eventValue) trace.Role {
	switch typ {
	case trace.RoleCall, trace.RoleCollectiveCall, trace.RoleRootFlag:
		if v == (eventValue{}) {
			return trace.RoleOff
		}
	}
	return trace.RoleNone
}
