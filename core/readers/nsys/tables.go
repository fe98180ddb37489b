package nsys

import (
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/readers/sqlitedb"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The state types, each its own so that a view can pick one.
const (
	typeRuntime  = "CUDA runtime API"
	typeDriver   = "CUDA driver API"
	typeKernel   = "CUDA kernel"
	typeNCCL     = "NCCL kernel"
	typeMemcpy   = "CUDA memcpy"
	typeMemset   = "CUDA memset"
	typePushPop  = "NVTX push/pop range"
	typeStartEnd = "NVTX start/end range"
	typeOSRT     = "OS runtime"
	typeMark     = "NVTX mark"
	typeLaunch   = "CUDA launch"
	typeSync     = "CUDA synchronization"
	typeWait     = "CUDA event wait"
)

// readAPI reads the CUDA runtime or driver API calls: states on the
// calling thread, valued by the function name, and the correlation ids
// that tie them to the GPU work they launch.
func (r *reader) readAPI(table, typeName string, driver bool) error {
	var start, end, gtid, corr, nameID sql.NullInt64
	var name sql.NullString
	q := fmt.Sprintf(`SELECT start, end, %s, %s, %s, %s FROM %s`, r.col(table, "globalTid"),
		r.col(table, "correlationId"), r.col(table, "nameId"), r.col(table, "name"), sqlitedb.Ident(table))
	t := r.stateType(typeName, kThread)
	r.stypes[t].role = apiRole
	return r.db.Scan(table, q, []any{&start, &end, &gtid, &corr, &nameID, &name}, func() error {
		if err := r.tick(); err != nil {
			return err
		}
		if !r.interval(table, start, end) {
			return nil
		}
		if !gtid.Valid {
			r.opt.Skip("rows of "+table+" without a thread (null globalTid)", 1)
			return nil
		}
		fn := r.str(nameID)
		if fn == "" {
			fn = r.text.String(name.String)
		}
		if fn == "" {
			fn = "(unknown function)"
		}
		g, seq := r.add(r.h.thread(gtid.Int64), t, start.Int64, end.Int64, r.value(t, fn))
		if corr.Valid {
			k := corrKey{gtid.Int64 &^ idMask, corr.Int64}
			old, ok := r.apis[k]
			// The runtime call wins over a driver call; of two calls of one
			// table (older exports record cudaLaunchKernel around
			// cudaLaunchKernel_v7000), the outermost.
			if !ok || old.driver && !driver || old.driver == driver &&
				(start.Int64 < old.start || start.Int64 == old.start && end.Int64 > old.end) {
				r.apis[k] = apiRef{g: g, seq: seq, start: start.Int64, end: end.Int64, driver: driver}
			}
		}
		return nil
	})
}

// gpuRow reads the columns every GPU activity table shares, and more.
type gpuRow struct {
	start, end, device, context, stream, corr, gpid sql.NullInt64
}

func (r *reader) gpuQuery(table string, more ...string) string {
	cols := []string{"start", "end", r.col(table, "deviceId"), r.col(table, "contextId"), r.col(table, "streamId"),
		r.col(table, "correlationId"), r.col(table, "globalPid")}
	for _, m := range more {
		cols = append(cols, r.col(table, m))
	}
	return `SELECT ` + strings.Join(cols, ", ") + ` FROM ` + sqlitedb.Ident(table)
}

func (g *gpuRow) dest(more ...any) []any {
	return append([]any{&g.start, &g.end, &g.device, &g.context, &g.stream, &g.corr, &g.gpid}, more...)
}

// place records a GPU operation on its stream, and its correlation id.
func (r *reader) place(table string, row *gpuRow, t int32, value string, what string, size float64) error {
	if err := r.tick(); err != nil {
		return err
	}
	if !r.interval(table, row.start, row.end) {
		return nil
	}
	if !row.device.Valid || !row.context.Valid || !row.stream.Valid {
		r.opt.Skip("rows of "+table+" without a device, context or stream", 1)
		return nil
	}
	gpid := row.gpid.Int64 &^ idMask // null: process 0 of host 0
	n := r.h.stream(gpid, row.device.Int64, row.context.Int64, row.stream.Int64)
	g, seq := r.add(n, t, row.start.Int64, row.end.Int64, r.value(t, value))
	if row.corr.Valid {
		r.gpuOp = append(r.gpuOp, gpuRef{corr: corrKey{gpid, row.corr.Int64}, g: g, seq: seq,
			start: row.start.Int64, what: what, size: size})
	}
	return nil
}

// isNCCL tells a kernel of NCCL, the collective communication library:
// its kernels are named ncclDevKernel_* (ncclKernel_* in older versions).
func isNCCL(short, demangled string) bool {
	return strings.HasPrefix(short, "nccl") || strings.HasPrefix(demangled, "nccl")
}

// kernelRole is the role of the kernels named name: NCCL's communicate
// (their names as Holistic Trace Analysis tells them, whichever names
// the options show).
func kernelRole(name string) trace.Role {
	if trace.NCCLKernel(name) {
		return trace.RoleCommunicationKernel
	}
	return trace.RoleNone
}

// apiRole is the role of the CUDA API calls named name: launching or
// blocking, by the name without the version suffix Nsight Systems gives
// some ("cudaLaunchKernel_v7000").
func apiRole(name string) trace.Role {
	if i := strings.LastIndex(name, "_v"); i >= 0 && i+2 < len(name) && strings.Trim(name[i+2:], "0123456789") == "" {
		name = name[:i]
	}
	return trace.GPUCallRole(name)
}

func (r *reader) readKernels() error {
	const table = "CUPTI_ACTIVITY_KIND_KERNEL"
	var row gpuRow
	var short, demangled sql.NullInt64
	kernel, nccl := int32(-1), int32(-1)
	return r.db.Scan(table, r.gpuQuery(table, "shortName", "demangledName"), row.dest(&short, &demangled), func() error {
		s, d := r.str(short), r.str(demangled)
		name := s
		if r.o.DemangledNames && d != "" || name == "" {
			name = d
		}
		if name == "" {
			name = "(unnamed kernel)"
		}
		var t int32
		if isNCCL(s, d) {
			if nccl < 0 {
				nccl = r.stateType(typeNCCL, kStream)
				r.stypes[nccl].role = kernelRole
			}
			t = nccl
		} else {
			if kernel < 0 {
				kernel = r.stateType(typeKernel, kStream)
				r.stypes[kernel].role = kernelRole
			}
			t = kernel
		}
		return r.place(table, &row, t, name, "kernel", nan)
	})
}

// copyKinds are CUPTI's memcpy kinds (ENUM_CUDA_MEMCPY_OPER), shortened
// as the CUDA tools print them.
var copyKinds = []string{"Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP",
	"UVM HtoD", "UVM DtoH", "UVM DtoD"}

func copyKind(k sql.NullInt64) string {
	if k.Valid && k.Int64 >= 0 && k.Int64 < int64(len(copyKinds)) {
		return copyKinds[k.Int64]
	}
	if k.Valid {
		return fmt.Sprintf("kind %d", k.Int64)
	}
	return copyKinds[0]
}

func size(b sql.NullInt64) float64 {
	if b.Valid {
		return float64(b.Int64)
	}
	return nan
}

func (r *reader) readMemcpy() error {
	const table = "CUPTI_ACTIVITY_KIND_MEMCPY"
	var row gpuRow
	var kind, bytes sql.NullInt64
	t := r.stateType(typeMemcpy, kStream)
	return r.db.Scan(table, r.gpuQuery(table, "copyKind", "bytes"), row.dest(&kind, &bytes), func() error {
		return r.place(table, &row, t, "Memcpy "+copyKind(kind), "memcpy", size(bytes))
	})
}

func (r *reader) readMemset() error {
	const table = "CUPTI_ACTIVITY_KIND_MEMSET"
	var row gpuRow
	var bytes sql.NullInt64
	t := r.stateType(typeMemset, kStream)
	return r.db.Scan(table, r.gpuQuery(table, "bytes"), row.dest(&bytes), func() error {
		return r.place(table, &row, t, "Memset", "memset", size(bytes))
	})
}

// noStream is CUPTI's stream id of the synchronisations of no one
// stream (CUPTI_SYNCHRONIZATION_INVALID_VALUE: an event's, a context's),
// whose states go to a stream container of that name.
const (
	noStream     = 1<<32 - 1
	noStreamName = "Synchronization (no stream)"
)

// syncNames name CUPTI's synchronisation records (ENUM_CUPTI_SYNC_TYPE)
// as Kineto and Holistic Trace Analysis do.
var syncNames = []string{"Unknown Sync", "Event Sync", "Stream Wait Event", "Stream Sync", "Context Sync"}

// syncRoles are the roles of the synchronisations of syncNames.
var syncRoles = []trace.Role{trace.RoleNone, trace.RoleEventSync, trace.RoleStreamWaitEvent, trace.RoleStreamSync,
	trace.RoleContextSync}

func syncRole(name string) trace.Role {
	if i := slices.Index(syncNames, name); i >= 0 {
		return syncRoles[i]
	}
	return trace.RoleNone
}

// readSync reads the synchronisation records: a state on the stream (the
// wait's stream for "Stream Wait Event", else the one CUPTI names) for
// each call that waited, linked to it by correlation id, and for the
// waits for a CUDA event, the event they wait for (see readCUDAEvents).
// CUPTI's record names no device (the exports say 0): the device is that
// of the context, as the process' GPU operations place it; read after
// them.
func (r *reader) readSync() error {
	const table = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"
	var row gpuRow
	var kind, eventSync sql.NullInt64
	t := int32(-1)
	eventCol, byID := eventColumn(r, table)
	return r.db.Scan(table, r.gpuQuery(table, "syncType", eventCol), row.dest(&kind, &eventSync), func() error {
		if t < 0 {
			t = r.stateType(typeSync, kStream) // defined by the first row, as the others' types
			r.stypes[t].role = syncRole
		}
		name := syncNames[0]
		if kind.Valid && kind.Int64 > 0 && kind.Int64 < int64(len(syncNames)) {
			name = syncNames[kind.Int64]
		}
		if row.context.Valid {
			if d, ok := r.h.deviceOf(row.gpid.Int64&^idMask, row.context.Int64); ok {
				row.device = sql.NullInt64{Int64: d, Valid: true}
			}
		}
		n := len(r.gpuOp)
		if err := r.place(table, &row, t, name, "synchronization", nan); err != nil {
			return err
		}
		if len(r.gpuOp) > n && eventSync.Valid && (name == syncNames[1] || name == syncNames[2]) {
			op := r.gpuOp[n]
			r.waits = append(r.waits, waitRef{event: corrKey{op.corr.proc, eventSync.Int64}, g: op.g, seq: op.seq, start: op.start,
				byID: byID, corr: op.corr.id})
		}
		return nil
	})
}

// eventColumn is the column of table that names the CUDA event a wait is
// for and a record of: eventSyncId, one per record, since CUPTI 12.x
// (Nsight Systems 2024); in older exports eventId, the event's (byID).
func eventColumn(r *reader, table string) (col string, byID bool) {
	const syncID, eventID = "eventSyncId", "eventId"
	if !r.db.HasColumn(table, syncID) && r.db.HasColumn(table, eventID) &&
		!r.db.HasColumn("CUPTI_ACTIVITY_KIND_CUDA_EVENT", syncID) && !r.db.HasColumn("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", syncID) {
		return eventID, true
	}
	return syncID, false
}

// readCUDAEvents reads the records of CUDA events the synchronisations
// wait for: the stream each was recorded on and the cudaEventRecord call
// (by correlation id).
func (r *reader) readCUDAEvents() error {
	const table = "CUPTI_ACTIVITY_KIND_CUDA_EVENT"
	var device, context, stream, corr, gpid, eventSync sql.NullInt64
	eventCol, byID := eventColumn(r, table)
	q := `SELECT ` + strings.Join([]string{r.col(table, "deviceId"), r.col(table, "contextId"), r.col(table, "streamId"),
		r.col(table, "correlationId"), r.col(table, "globalPid"), r.col(table, eventCol)}, ", ") + ` FROM ` + sqlitedb.Ident(table)
	return r.db.Scan(table, q, []any{&device, &context, &stream, &corr, &gpid, &eventSync}, func() error {
		if err := r.tick(); err != nil {
			return err
		}
		if !device.Valid || !context.Valid || !stream.Valid || !corr.Valid || !eventSync.Valid {
			r.opt.Skip("rows of "+table+" without a device, context, stream, correlation or event sync id", 1)
			return nil
		}
		p := gpid.Int64 &^ idMask
		rec := recordRef{corr: corrKey{p, corr.Int64}, device: device.Int64, context: context.Int64, stream: stream.Int64}
		if byID {
			if r.byEvent == nil {
				r.byEvent = map[corrKey][]recordRef{}
			}
			r.byEvent[corrKey{p, eventSync.Int64}] = append(r.byEvent[corrKey{p, eventSync.Int64}], rec)
			return nil
		}
		if r.records == nil {
			r.records = map[corrKey]recordRef{}
		}
		r.records[corrKey{p, eventSync.Int64}] = rec
		return nil
	})
}

func (r *reader) readOSRT() error {
	const table = "OSRT_API"
	var start, end, gtid, nameID sql.NullInt64
	q := `SELECT start, end, ` + r.col(table, "globalTid") + `, ` + r.col(table, "nameId") + ` FROM OSRT_API`
	t := r.stateType(typeOSRT, kThread)
	return r.db.Scan(table, q, []any{&start, &end, &gtid, &nameID}, func() error {
		if err := r.tick(); err != nil {
			return err
		}
		if !r.interval(table, start, end) {
			return nil
		}
		if !gtid.Valid {
			r.opt.Skip("rows of "+table+" without a thread (null globalTid)", 1)
			return nil
		}
		fn := r.str(nameID)
		if fn == "" {
			fn = "(unknown function)"
		}
		r.add(r.h.thread(gtid.Int64), t, start.Int64, end.Int64, r.value(t, fn))
		return nil
	})
}

// nvtxSkipped names the NVTX event types not modeled, for the notes.
var nvtxSkipped = map[int64]string{
	nvtxCategory: "category definitions", nvtxtCategory: "category definitions", nvtxDomainDestroy: "domain destructions",
	nvtxNameCudaDevice: "CUDA device names", 98: "CUDA context names", 99: "CUDA stream names",
}

// readNVTX reads the NVTX annotations: push/pop ranges and start/end
// ranges become states on the thread that opened them, one state type per
// kind and domain (each domain has its own stack), and marks point
// events. Domain creations and thread names were read with the names.
func (r *reader) readNVTX() error {
	const table = "NVTX_EVENTS"
	var start, end, typ, gtid, textID, domain sql.NullInt64
	var text sql.NullString
	q := `SELECT start, end, eventType, ` + r.col(table, "globalTid") + `, ` + r.col(table, "text") + `, ` +
		r.col(table, "textId") + `, ` + r.col(table, "domainId") + ` FROM NVTX_EVENTS`
	return r.db.Scan(table, q, []any{&start, &end, &typ, &gtid, &text, &textID, &domain}, func() error {
		if err := r.tick(); err != nil {
			return err
		}
		var base string
		switch typ.Int64 {
		case nvtxPushPop, nvtxtPushPop:
			base = typePushPop
		case nvtxStartEnd, nvtxtStartEnd:
			base = typeStartEnd
		case nvtxMark, nvtxtMark:
			base = typeMark
		case nvtxThread, nvtxDomainCreate:
			return nil // read with the names
		default:
			what := nvtxSkipped[typ.Int64]
			if what == "" {
				what = "events"
			}
			r.opt.Skip(fmt.Sprintf("NVTX %s (eventType %d)", what, typ.Int64), 1)
			return nil
		}
		if !gtid.Valid {
			r.opt.Skip("rows of "+table+" without a thread (null globalTid)", 1)
			return nil
		}
		msg := r.text.String(text.String)
		if !text.Valid {
			msg = r.str(textID)
		}
		if msg == "" {
			msg = "(no message)"
		}
		thread := r.h.thread(gtid.Int64)
		if base == typeMark {
			if !start.Valid {
				r.opt.Skip("NVTX marks without a time", 1)
				return nil
			}
			r.marks = append(r.marks, mark{node: thread, at: start.Int64, value: r.markValue(msg)})
			r.extend(start.Int64, start.Int64)
			return nil
		}
		if !r.interval(table, start, end) {
			return nil
		}
		name := base
		if domain.Valid && domain.Int64 != 0 {
			name += " (" + r.domainName(gtid.Int64&^idMask, domain.Int64) + ")"
		}
		t := r.stateType(name, kThread)
		r.stypes[t].role = nvtxRole
		r.add(thread, t, start.Int64, end.Int64, r.value(t, msg))
		return nil
	})
}

// nvtxRole is the role of the NVTX ranges named name: PyTorch profiler's
// steps ("ProfilerStep#N", which PyTorch's emit_nvtx writes as
// "ProfilerStep#N, op_id = K") are steps of the program's main loop, N
// their Step (trace.ProfilerStep); other ranges have none.
func nvtxRole(name string) trace.Role {
	if _, ok := trace.ProfilerStep(name); ok {
		return trace.RoleStep
	}
	return trace.RoleNone
}

func (r *reader) domainName(gpid, id int64) string {
	if name, ok := r.domains[[2]int64{gpid, id}]; ok {
		return name
	}
	if name, ok := r.domainByID[id]; ok {
		return name
	}
	return fmt.Sprintf("domain %d", id)
}
