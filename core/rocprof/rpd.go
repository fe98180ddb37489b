package rocprof

import (
	"database/sql"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/sqlitedb"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// An RPD file (rocmProfileData's tracer) is a SQLite database: rocpd_api
// holds the host API calls (pid, tid, start, end, apiName_id), rocpd_op
// the GPU operations (gpuId, queueId, start, end, description_id: the
// kernel name, opType_id: KernelExecution, CopyHostToDevice...),
// rocpd_string the names, rocpd_api_ops which call launched which
// operation, and rocpd_monitor samples of device clocks and the like.

// ReadRPD reads an RPD database into sink.
func ReadRPD(path string, sink trace.Sink, opt trace.ReadOptions) error {
	db, err := sqlitedb.Open(path)
	if err != nil {
		return err
	}
	defer db.Close()
	for _, t := range []string{"rocpd_op", "rocpd_api", "rocpd_string"} {
		if !db.HasTable(t) {
			return db.Errorf("not an RPD database: no %s table", t)
		}
	}
	m := newModel()
	host := m.host("")
	names, err := rpdStrings(db)
	if err != nil {
		return err
	}
	name := func(id int64) string {
		if s, ok := names[id]; ok {
			return s
		}
		return "string " + strconv.FormatInt(id, 10)
	}
	var reversed, unreadable, rows int64
	tick := func() error {
		rows++
		if rows%4096 == 0 {
			return opt.Canceled()
		}
		return nil
	}

	// Host API calls, by id for the links.
	apiRec := map[int64]int32{}
	rs, err := db.Query(`SELECT id, pid, tid, start, "end", apiName_id, args_id FROM rocpd_api ORDER BY id`)
	if err != nil {
		return db.Errorf("reading rocpd_api: %v", err)
	}
	for rs.Next() {
		var id, pid, tid, start, end, nameID, argsID int64
		ok, err := scanInts(rs, &id, &pid, &tid, &start, &end, &nameID, &argsID)
		if err != nil {
			rs.Close()
			return db.Errorf("reading rocpd_api: %v", err)
		}
		if !ok {
			unreadable++
			continue
		}
		if end < start {
			reversed++
			continue
		}
		c := m.thread(host, pid, tid)
		kind, label := kindHIP, name(nameID)
		if label == "UserMarker" { // roctx ranges: the message is in args
			kind, label = kindMarker, name(argsID)
			if start == end {
				m.addMark(c, label, trace.Time(start))
				continue
			}
		}
		apiRec[id] = m.add(c, kind, label, trace.Time(start), trace.Time(end), id, nan)
		if err := tick(); err != nil {
			rs.Close()
			return err
		}
	}
	if err := closeRows(db, rs, "rocpd_api"); err != nil {
		return err
	}

	// GPU operations: kernels (their description is the kernel name) and
	// copies, fills, barriers (named by their type).
	opRec := map[int64]int32{}
	rs, err = db.Query(`SELECT id, gpuId, queueId, start, "end", description_id, opType_id FROM rocpd_op ORDER BY id`)
	if err != nil {
		return db.Errorf("reading rocpd_op: %v", err)
	}
	for rs.Next() {
		var id, gpu, queue, start, end, desc, typ int64
		ok, err := scanInts(rs, &id, &gpu, &queue, &start, &end, &desc, &typ)
		if err != nil {
			rs.Close()
			return db.Errorf("reading rocpd_op: %v", err)
		}
		if !ok {
			unreadable++
			continue
		}
		if end < start {
			reversed++
			continue
		}
		opType, label := name(typ), name(desc)
		kind := kindCopy
		if strings.Contains(opType, "Kernel") {
			kind = kindKernel
		}
		if label == "" {
			label = opType
		}
		g := strconv.FormatInt(gpu, 10)
		a := m.agent(host, g, gpu, "GPU "+g)
		c := m.queue(a, "Queue "+strconv.FormatInt(queue, 10), queue)
		opRec[id] = m.add(c, kind, label, trace.Time(start), trace.Time(end), 0, nan)
		if err := tick(); err != nil {
			rs.Close()
			return err
		}
	}
	if err := closeRows(db, rs, "rocpd_op"); err != nil {
		return err
	}

	if err := rpdLinks(db, m, apiRec, opRec); err != nil {
		return err
	}
	if err := rpdMonitor(db, m, host, opt); err != nil {
		return err
	}
	opt.Skip("RPD rows ending before they start", reversed)
	opt.Skip("RPD rows whose ids or times are not integers", unreadable)
	if err := opt.Canceled(); err != nil {
		return err
	}
	if opt.Progress != nil {
		if st, err := os.Stat(path); err == nil {
			opt.Progress(st.Size(), st.Size())
		}
	}
	return m.emit(sink, path)
}

// asInt converts a value of a column declared integer. SQLite keeps what
// it was given, and RPD writers sometimes store text there (an empty copy
// size): ok is false when the value is not an integer.
func asInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case string:
		n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		return n, err == nil
	case []byte:
		n, err := strconv.ParseInt(strings.TrimSpace(string(x)), 10, 64)
		return n, err == nil
	}
	return 0, false
}

// scanInts scans a row of integer columns; ok is false when one is not an
// integer.
func scanInts(rs interface{ Scan(...any) error }, out ...*int64) (ok bool, err error) {
	vals := make([]any, len(out))
	ptrs := make([]any, len(out))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rs.Scan(ptrs...); err != nil {
		return false, err
	}
	ok = true
	for i, v := range vals {
		n, good := asInt(v)
		*out[i] = n
		ok = ok && good
	}
	return ok, nil
}

func closeRows(db *sqlitedb.DB, rs interface {
	Close() error
	Err() error
}, table string) error {
	if err := rs.Err(); err != nil {
		rs.Close()
		return db.Errorf("reading %s: %v", table, err)
	}
	if err := rs.Close(); err != nil {
		return db.Errorf("reading %s: %v", table, err)
	}
	return nil
}

func rpdStrings(db *sqlitedb.DB) (map[int64]string, error) {
	rs, err := db.Query(`SELECT id, string FROM rocpd_string`)
	if err != nil {
		return nil, db.Errorf("reading rocpd_string: %v", err)
	}
	names := map[int64]string{}
	for rs.Next() {
		var id int64
		var s string
		if err := rs.Scan(&id, &s); err != nil {
			rs.Close()
			return nil, db.Errorf("reading rocpd_string: %v", err)
		}
		names[id] = s
	}
	return names, closeRows(db, rs, "rocpd_string")
}

// rpdLinks links each API call to the operations it launched
// (rocpd_api_ops), the correlation RPD records explicitly. A copy's link
// carries its size, from rocpd_copyapi.
func rpdLinks(db *sqlitedb.DB, m *model, apiRec, opRec map[int64]int32) error {
	if !db.HasTable("rocpd_api_ops") {
		return nil
	}
	sizes := map[int64]int64{}
	if db.HasColumn("rocpd_copyapi", "api_ptr_id") && db.HasColumn("rocpd_copyapi", "size") {
		rs, err := db.Query(`SELECT api_ptr_id, size FROM rocpd_copyapi`)
		if err != nil {
			return db.Errorf("reading rocpd_copyapi: %v", err)
		}
		for rs.Next() {
			var api, size int64
			ok, err := scanInts(rs, &api, &size)
			if err != nil {
				rs.Close()
				return db.Errorf("reading rocpd_copyapi: %v", err)
			}
			if ok { // an empty size leaves the link without one
				sizes[api] = size
			}
		}
		if err := closeRows(db, rs, "rocpd_copyapi"); err != nil {
			return err
		}
	}
	rs, err := db.Query(`SELECT api_id, op_id FROM rocpd_api_ops ORDER BY id`)
	if err != nil {
		return db.Errorf("reading rocpd_api_ops: %v", err)
	}
	for rs.Next() {
		var api, op int64
		if _, err := scanInts(rs, &api, &op); err != nil {
			rs.Close()
			return db.Errorf("reading rocpd_api_ops: %v", err)
		}
		a, okA := apiRec[api]
		o, okO := opRec[op]
		if okA && okO {
			m.links = append(m.links, [2]int32{a, o})
			if size, ok := sizes[api]; ok {
				m.recs[o].bytes = float64(size)
			}
		}
	}
	return closeRows(db, rs, "rocpd_api_ops")
}

// rpdMonitor reads the device samples (clocks...) of rocpd_monitor as
// variables of their GPU; samples of other devices, or whose value is not
// a number, are counted as skipped.
func rpdMonitor(db *sqlitedb.DB, m *model, host int32, opt trace.ReadOptions) error {
	if !db.HasTable("rocpd_monitor") {
		return nil
	}
	rs, err := db.Query(`SELECT deviceType, deviceId, monitorType, start, "end", value FROM rocpd_monitor ORDER BY id`)
	if err != nil {
		return db.Errorf("reading rocpd_monitor: %v", err)
	}
	var skipped int64
	for rs.Next() {
		var devType, monType, value sql.NullString
		var dev, start, end int64
		var vals [3]any
		if err := rs.Scan(&devType, &vals[0], &monType, &vals[1], &vals[2], &value); err != nil {
			rs.Close()
			return db.Errorf("reading rocpd_monitor: %v", err)
		}
		var okD, okS, okE bool
		dev, okD = asInt(vals[0])
		start, okS = asInt(vals[1])
		end, okE = asInt(vals[2])
		v, err := strconv.ParseFloat(strings.TrimSpace(value.String), 64)
		if devType.String != "gpu" || !okD || !okS || !okE || err != nil || math.IsNaN(v) || end < start {
			skipped++
			continue
		}
		g := strconv.FormatInt(dev, 10)
		m.addSample(m.agent(host, g, dev, "GPU "+g), monType.String, trace.Time(start), trace.Time(end), v)
	}
	opt.Skip("rocpd_monitor samples not of a GPU or not numbers", skipped)
	return closeRows(db, rs, "rocpd_monitor")
}
