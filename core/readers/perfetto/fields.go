package perfetto

import (
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"
)

// Field numbers of the messages read, from Perfetto's .proto files
// (protos/perfetto/trace/...). Only the fields the reader uses are named.

// TracePacket (trace_packet.proto).
const (
	pktFtraceEvents        = 1
	pktProcessTree         = 2
	pktTrustedUID          = 3
	pktClockSnapshot       = 6
	pktTimestamp           = 8
	pktSequenceID          = 10
	pktTrackEvent          = 11
	pktInternedData        = 12
	pktSequenceFlags       = 13
	pktIncrementalCleared  = 41
	pktPreviousDropped     = 42
	pktProcessDescriptor   = 43
	pktThreadDescriptor    = 44
	pktCompressedPackets   = 50
	pktClockID             = 58
	pktDefaults            = 59
	pktTrackDescriptor     = 60
	pktFrameTimeline       = 76
	pktTrustedPID          = 79
	pktFirstOnSequence     = 87
	pktMachineID           = 98
	pktZstdCompressed      = 133
	seqIncrementalCleared  = 1  // SequenceFlags.SEQ_INCREMENTAL_STATE_CLEARED
	seqNeedsIncremental    = 2  // SequenceFlags.SEQ_NEEDS_INCREMENTAL_STATE
	defaultsTrackEvent     = 11 // TracePacketDefaults.track_event_defaults
	defaultsClockID        = 58 // TracePacketDefaults.timestamp_clock_id
	clockBoottime          = 6  // ClockSnapshot.Clock.BuiltinClocks.BOOTTIME
	firstSequenceScopedClk = 64 // clock ids from 64 on are scoped to a sequence
)

// TrackEvent and TrackEventDefaults (track_event.proto).
const (
	teTimestampDeltaUS   = 1
	teThreadTimeDeltaUS  = 2
	teInstrDelta         = 8
	teThreadTimeAbsUS    = 17
	teInstrAbs           = 20
	teCategoryIIDs       = 3
	teLegacyEvent        = 6
	teType               = 9
	teNameIID            = 10
	teTrackUUID          = 11
	teExtraCounterValues = 12
	teTimestampAbsUS     = 16
	teCategories         = 22
	teName               = 23
	teCounterValue       = 30
	teExtraCounterUUIDs  = 31
	teFlowIDsOld         = 36
	teTerminatingOld     = 42
	teDoubleCounterValue = 44
	teExtraDoubleUUIDs   = 45
	teExtraDoubleValues  = 46
	teFlowIDs            = 47
	teTerminatingFlowIDs = 48

	typeSliceBegin = 1
	typeSliceEnd   = 2
	typeInstant    = 3
	typeCounter    = 4
	typeState      = 5

	// TrackEvent.LegacyEvent
	legacyNameIID       = 1
	legacyPhase         = 2
	legacyDurationUS    = 3
	legacyUnscopedID    = 6
	legacyIDScope       = 7
	legacyBindID        = 8
	legacyLocalID       = 10
	legacyGlobalID      = 11
	legacyBindEnclosing = 12
	legacyFlowDirection = 13
	legacyPIDOverride   = 18

	// LegacyEvent.FlowDirection
	flowIn    = 1
	flowOut   = 2
	flowInOut = 3
)

// TrackDescriptor, ProcessDescriptor, ThreadDescriptor, CounterDescriptor.
const (
	tdUUID        = 1
	tdName        = 2
	tdProcess     = 3
	tdThread      = 4
	tdParentUUID  = 5
	tdCounter     = 8
	tdStaticName  = 10
	tdState       = 18
	tdAtraceName  = 13
	pdPID         = 1
	pdCmdline     = 2
	pdProcessName = 6
	thPID         = 1
	thTID         = 2
	thThreadName  = 5
	thRefTimeUS   = 6
	cdUnitMult    = 4
	cdIncremental = 5
)

// InternedData and its entries (interned_data.proto, track_event.proto).
const (
	idEventCategories = 1
	idEventNames      = 2
	internIID         = 1
	internName        = 2
)

// ClockSnapshot (clock_snapshot.proto).
const (
	csClocks       = 1
	clkID          = 1
	clkTimestamp   = 2
	clkIncremental = 3
	clkUnitMultNS  = 4
)

// ProcessTree (ps/process_tree.proto).
const (
	ptProcesses = 1
	ptThreads   = 2
	ptpPID      = 1
	ptpCmdline  = 3
	pttTID      = 1
	pttName     = 2
	pttTGID     = 3
)

// FtraceEventBundle, FtraceEvent, SchedSwitchFtraceEvent and CompactSched
// (ftrace/ftrace_event_bundle.proto, ftrace_event.proto, sched.proto).
const (
	fbCPU          = 1
	fbEvent        = 2
	fbCompactSched = 4
	fbFtraceClock  = 5
	// The two clocks read at one instant, when ftrace's is not boot time.
	fbFtraceTimestamp = 6
	fbBootTimestamp   = 7
	feTimestamp       = 1
	fePID             = 2
	fePrint           = 3
	feSchedSwitch     = 4
	printBuf          = 2
	// TracingMarkWriteFtraceEvent (mdss.proto): a kernel's own encoding of
	// atrace begins and ends.
	feTracingMarkWrite = 80
	// CpuFrequencyFtraceEvent and GpuFrequencyFtraceEvent (power.proto):
	// a CPU's and a GPU's clock, in kHz and Hz as the kernel writes them.
	feCPUFrequency = 11
	feGPUFrequency = 332
	// CpuIdleFtraceEvent (power.proto): the idle state a CPU enters, or
	// PWR_EVENT_EXIT ((u32)-1) when it leaves idle.
	feCPUIdle = 13
	// BinderTransactionFtraceEvent and BinderTransactionReceivedFtraceEvent
	// (binder.proto): an Android binder call's send and its receipt.
	feBinderTransaction         = 50
	feBinderTransactionReceived = 51
	btDebugID                   = 1
	btReply                     = 5
	btFlags                     = 7
	ciState                     = 1
	ciCPU                       = 2
	cfState                     = 1
	cfCPU                       = 2
	gfGPU                       = 1
	gfState                     = 2
	tmwPID                      = 1
	tmwName                     = 2
	tmwBegin                    = 3
	ssNextComm                  = 5
	ssNextPID                   = 6
	csInternTable               = 5
	csSwitchTS                  = 1
	csSwitchPID                 = 3
	csSwitchComm                = 6
	csWakingTS                  = 7
)

// packetKinds names the data fields of TracePacket the reader does not
// model, for the notes of what was skipped.
var packetKinds = map[protowire.Number]string{
	4: "inode_file_map", 5: "chrome_events", 7: "sys_stats", 9: "process_stats",
	33: "trace_config", 34: "ftrace_stats", 35: "trace_stats", 36: "synchronization_marker",
	37: "profile_packet", 38: "battery", 39: "android_log", 40: "power_rails",
	45: "system_info", 46: "trigger", 47: "packages_list", 48: "chrome_benchmark_metadata",
	49: "perfetto_metatrace", 51: "chrome_metadata", 52: "gpu_counter_event",
	53: "gpu_render_stage_event", 54: "streaming_profile_packet", 56: "heap_graph",
	57: "graphics_frame_event", 61: "module_symbols", 62: "vulkan_memory_event", 63: "gpu_log",
	64: "deobfuscation_mapping", 65: "vulkan_api_event", 66: "perf_sample", 67: "cpu_info",
	68: "smaps_packet", 69: "service_event", 70: "initial_display_state",
	71: "gpu_mem_total_event", 72: "extension_descriptor", 73: "memory_tracker_snapshot",
	74: "streaming_allocation", 75: "streaming_free", 76: "frame_timeline_event",
	77: "android_energy_estimation_breakdown", 78: "ui_state", 82: "translation_table",
	83: "android_game_intervention_list", 84: "statsd_atom", 86: "android_system_property",
	88: "network_packet", 89: "trace_uuid", 90: "track_event_range_of_interest",
	91: "entity_state_residency", 92: "network_packet_bundle",
	93: "winscope/surfaceflinger_layers_snapshot", 94: "winscope/surfaceflinger_transactions",
	95: "etw_events", 96: "winscope/shell_transition", 97: "winscope/shell_handler_mappings",
	99: "v8_js_code", 100: "v8_internal_code", 101: "v8_wasm_code", 102: "v8_reg_exp_code",
	103: "v8_code_move", 104: "winscope/protolog_message", 105: "winscope/protolog_viewer_config",
	107: "remote_clock_sync", 109: "chrome_trigger", 110: "pixel_modem_events",
	111: "pixel_modem_token_database", 112: "winscope/winscope_extensions",
	113: "clone_snapshot_trigger", 114: "bluetooth_trace_event", 115: "kernel_wakelock_data",
	116: "app_wakelock_bundle", 117: "generic_kernel_task_state_event",
	118: "generic_kernel_cpu_freq_event", 119: "cpu_per_uid_data",
	120: "generic_kernel_task_rename_event", 121: "evdev_event", 122: "generic_kernel_process_tree",
	123: "user_list", 124: "trace_provenance", 125: "protovms", 126: "trace_attributes",
	127: "android_aflags", 128: "gpu_info", 129: "generic_gpu_frequency_event",
	130: "interrupt_info", 131: "art_process_metadata", 132: "journald_event",
	134: "concurrent_session_event", 135: "stack_sample", 138: "recovered_trace_info",
	139: "source_file", 140: "module_disassembly", 900: "for_testing",
}

// packetKind words the kind of a packet whose data field is num.
func packetKind(num protowire.Number) string {
	if name, ok := packetKinds[num]; ok {
		return "packets of kind " + name
	}
	return "packets of kind " + strconv.Itoa(int(num)) + " (a TracePacket field this reader does not know)"
}

// isPacketMeta tells the TracePacket fields that are not its data (the
// oneof): timestamps, sequence bookkeeping, interning, defaults.
func isPacketMeta(num protowire.Number) bool {
	switch num {
	case pktTrustedUID, pktTimestamp, pktSequenceID, pktInternedData, pktSequenceFlags,
		pktIncrementalCleared, pktPreviousDropped, pktClockID, pktDefaults, pktTrustedPID,
		pktFirstOnSequence, pktMachineID:
		return true
	}
	return false
}
