package otf2

// Event record types (OTF2 3.0). Records of unknown types are skipped by
// their length, which every event record written since OTF2 1.1 carries.
const (
	evBufferFlush          = 10
	evMeasurementOnOff     = 11
	evEnter                = 12
	evLeave                = 13
	evMpiSend              = 14
	evMpiIsend             = 15
	evMpiIsendComplete     = 16
	evMpiIrecvRequest      = 17
	evMpiRecv              = 18
	evMpiIrecv             = 19
	evMpiRequestTest       = 20
	evMpiRequestCancelled  = 21
	evMpiCollectiveBegin   = 22
	evMpiCollectiveEnd     = 23
	evOmpFork              = 24
	evOmpTaskCreate        = 28
	evOmpTaskSwitch        = 29
	evOmpTaskComplete      = 30
	evMetric               = 31
	evParameterString      = 32
	evParameterInt         = 33
	evParameterUnsignedInt = 34
	evThreadEnd            = 65
	evProgramBegin         = 83
	evProgramEnd           = 84
)

// recordNames names the event record types of OTF2 3.0 by type.
var recordNames = [...]string{
	10: "BufferFlush", "MeasurementOnOff", "Enter", "Leave", "MpiSend", "MpiIsend",
	"MpiIsendComplete", "MpiIrecvRequest", "MpiRecv", "MpiIrecv", "MpiRequestTest",
	"MpiRequestCancelled", "MpiCollectiveBegin", "MpiCollectiveEnd", "OmpFork",
	"OmpJoin", "OmpAcquireLock", "OmpReleaseLock", "OmpTaskCreate", "OmpTaskSwitch",
	"OmpTaskComplete", "Metric", "ParameterString", "ParameterInt",
	"ParameterUnsignedInt", "RmaWinCreate", "RmaWinDestroy", "RmaCollectiveBegin",
	"RmaCollectiveEnd", "RmaGroupSync", "RmaRequestLock", "RmaAcquireLock",
	"RmaTryLock", "RmaReleaseLock", "RmaSync", "RmaWaitChange", "RmaPut", "RmaGet",
	"RmaAtomic", "RmaOpCompleteBlocking", "RmaOpCompleteNonBlocking", "RmaOpTest",
	"RmaOpCompleteRemote", "ThreadFork", "ThreadJoin", "ThreadTeamBegin",
	"ThreadTeamEnd", "ThreadAcquireLock", "ThreadReleaseLock", "ThreadTaskCreate",
	"ThreadTaskSwitch", "ThreadTaskComplete", "ThreadCreate", "ThreadBegin",
	"ThreadWait", "ThreadEnd", "CallingContextEnter", "CallingContextLeave",
	"CallingContextSample", "IoCreateHandle", "IoDestroyHandle", "IoDuplicateHandle",
	"IoSeek", "IoChangeStatusFlags", "IoDeleteFile", "IoOperationBegin",
	"IoOperationTest", "IoOperationIssued", "IoOperationComplete",
	"IoOperationCancelled", "IoAcquireLock", "IoReleaseLock", "IoTryLock",
	"ProgramBegin", "ProgramEnd", "NonBlockingCollectiveRequest",
	"NonBlockingCollectiveComplete", "CommCreate", "CommDestroy",
}

// recordName names an event record type, "" for types OTF2 3.0 does not
// define.
func recordName(kind uint8) string {
	if int(kind) < len(recordNames) {
		return recordNames[kind]
	}
	return ""
}

// singleton tells the event records of OTF2 1.1 that consist of a single
// compressed attribute: they are written without a record length. Records
// defined later always carry one, so this list is final.
func singleton(kind uint8) bool {
	switch kind {
	case evEnter, evLeave, evMpiIsendComplete, evMpiIrecvRequest, evMpiRequestTest,
		evMpiRequestCancelled, evOmpFork, evOmpTaskCreate, evOmpTaskSwitch, evOmpTaskComplete:
		return true
	}
	return false
}

// collectiveOps names MPI collective operations as otf2-print does.
var collectiveOps = [...]string{
	"BARRIER", "BCAST", "GATHER", "GATHERV", "SCATTER", "SCATTERV", "ALLGATHER",
	"ALLGATHERV", "ALLTOALL", "ALLTOALLV", "ALLTOALLW", "ALLREDUCE", "REDUCE",
	"REDUCE_SCATTER", "SCAN", "EXSCAN", "REDUCE_SCATTER_BLOCK", "CREATE_HANDLE",
	"DESTROY_HANDLE", "ALLOCATE", "DEALLOCATE", "CREATE_HANDLE_AND_ALLOCATE",
	"DESTROY_HANDLE_AND_DEALLOCATE",
}

func collectiveName(op uint32) string {
	if int(op) < len(collectiveOps) {
		return collectiveOps[op]
	}
	return "OP_" + itoa(uint64(op))
}
