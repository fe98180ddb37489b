package rocprof

import (
	"database/sql"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/readers/sqlitedb"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// An RPD file (rocmProfileData's tracer) is a SQLite database: rocpd_api
// holds the host API calls (pid, tid, start, end, apiName_id), rocpd_op
// the GPU operations (gpuId, queueId, start, end, description_id: the
// kernel name, opType_id: KernelExecution, CopyHostToDevice...),
// rocpd_string the names, rocpd_api_ops which call launched which
// operation, and rocpd_monitor samples of device clocks and the like.

// readRPD reads an RPD database into sink.
func readRPD(path string, sink trace.Sink, opt trace.ReadOptions) error {
	db, err := sqlitedb.Open(path)
	if err != nil {
		return err
	}
	defer db.Close()
	db.Watch(opt.Cancel)
	if err := db.Expect("rocpd_op", "rocpd_api", "rocpd_string", "rocpd_api_ops", "rocpd_copyapi", "rocpd_monitor"); err != nil {
		return err
	}
	for _, t := range []string{"rocpd_op", "rocpd_api", "rocpd_string"} {
		if !db.HasTable(t) {
			return db.Errorf("not an RPD database: %s", db.Missing(t))
		}
	}
	m := newModel(opt)
	defer m.release() // a read that stops early gives back what the model held
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
		if m.err != nil {
			// The budget refused the model: sqlitedb.Scan places it at
			// this row.
			return m.err
		}
		rows++
		if rows%4096 == 0 {
			return opt.Canceled()
		}
		return nil
	}

	// Host API calls, by id for the links.
	apiRec := map[int64]int32{}
	err = rpdRows(db, "rocpd_api", `SELECT id, pid, tid, start, "end", apiName_id, args_id FROM rocpd_api ORDER BY id`, 7,
		func(v []any) error {
			var id, pid, tid, start, end, nameID, argsID int64
			if !ints(v, &id, &pid, &tid, &start, &end, &nameID, &argsID) {
				unreadable++
				return nil
			}
			if end < start {
				reversed++
				return nil
			}
			c := m.thread(host, pid, tid)
			kind, label := kindHIP, name(nameID)
			if label == "UserMarker" { // roctx ranges: the message is in args
				kind, label = kindMarker, name(argsID)
				if start == end {
					m.addMark(c, label, trace.Time(start))
					return nil
				}
			}
			apiRec[id] = m.add(c, kind, label, trace.Time(start), trace.Time(end), id, nan)
			return tick()
		})
	if err != nil {
		return err
	}

	// GPU operations: kernels (their description is the kernel name) and
	// copies, fills, barriers (named by their type).
	opRec := map[int64]int32{}
	err = rpdRows(db, "rocpd_op", `SELECT id, gpuId, queueId, start, "end", description_id, opType_id FROM rocpd_op ORDER BY id`, 7,
		func(v []any) error {
			var id, gpu, queue, start, end, desc, typ int64
			if !ints(v, &id, &gpu, &queue, &start, &end, &desc, &typ) {
				unreadable++
				return nil
			}
			if end < start {
				reversed++
				return nil
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
			return tick()
		})
	if err != nil {
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
	return emitDatabase(m, sink, path, opt)
}

// emitDatabase ends the read of a database held whole: it delivers the
// model unless the read was canceled, after reporting every byte read
// (the database's rows are not read in file order, so progress jumps to
// the end).
func emitDatabase(m *model, sink trace.Sink, path string, opt trace.ReadOptions) error {
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

// rpdRows calls row with the values of each row of query, n columns of
// any type: RPD writers sometimes store text in integer columns (an empty
// copy size), which ints tells.
func rpdRows(db *sqlitedb.DB, table, query string, n int, row func(v []any) error) error {
	vals := make([]any, n)
	ptrs := make([]any, n)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	return db.Scan(table, query, ptrs, func() error { return row(vals) })
}

// ints converts the values of integer columns; it reports false when one
// is not an integer.
func ints(vals []any, out ...*int64) bool {
	ok := true
	for i, v := range vals {
		n, good := asInt(v)
		*out[i] = n
		ok = ok && good
	}
	return ok
}

func rpdStrings(db *sqlitedb.DB) (map[int64]string, error) {
	names := map[int64]string{}
	var id int64
	var str string
	err := db.Scan("rocpd_string", `SELECT id, string FROM rocpd_string`, []any{&id, &str}, func() error {
		names[id] = str
		return nil
	})
	return names, err
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
		err := rpdRows(db, "rocpd_copyapi", `SELECT api_ptr_id, size FROM rocpd_copyapi`, 2, func(v []any) error {
			var api, size int64
			if ints(v, &api, &size) { // an empty size leaves the link without one
				sizes[api] = size
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return rpdRows(db, "rocpd_api_ops", `SELECT api_id, op_id FROM rocpd_api_ops ORDER BY id`, 2, func(v []any) error {
		var api, op int64
		ints(v, &api, &op)
		a, okA := apiRec[api]
		o, okO := opRec[op]
		if okA && okO {
			m.links = append(m.links, [2]int32{a, o})
			if size, ok := sizes[api]; ok {
				m.recs[o].bytes = float64(size)
			}
		}
		return nil
	})
}

// rpdMonitor reads the device samples (clocks...) of rocpd_monitor as
// variables of their GPU; samples of other devices, or whose value is not
// a number, are counted as skipped.
func rpdMonitor(db *sqlitedb.DB, m *model, host int32, opt trace.ReadOptions) error {
	if !db.HasTable("rocpd_monitor") {
		return nil
	}
	var skipped int64
	var devType, monType, value sql.NullString
	var vals [3]any
	err := db.Scan("rocpd_monitor", `SELECT deviceType, deviceId, monitorType, start, "end", value FROM rocpd_monitor ORDER BY id`,
		[]any{&devType, &vals[0], &monType, &vals[1], &vals[2], &value}, func() error {
			var dev, start, end int64
			okInts := ints(vals[:], &dev, &start, &end)
			v, err := strconv.ParseFloat(strings.TrimSpace(value.String), 64)
			if devType.String != "gpu" || !okInts || err != nil || math.IsNaN(v) || end < start {
				skipped++
				return nil
			}
			g := strconv.FormatInt(dev, 10)
			m.addSample(m.agent(host, g, dev, "GPU "+g), monType.String, trace.Time(start), trace.Time(end), v)
			return nil
		})
	opt.Skip("rocpd_monitor samples not of a GPU or not numbers", skipped)
	return err
}
