package rocprof

import (
	"strconv"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/readers/sqlitedb"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// rocprof v1 writes, beside results.csv, results.db: the same kernel
// dispatches in a SQLite table KERN, with results.csv's columns and the
// kernel's name kept in its CSV quotes ("\"laplacian_kernel\""). Its
// name is rocprofv3's rocpd database's, so the rocpd format reads it.

// legacyDBColumns are the columns of KERN the reader needs.
var legacyDBColumns = []string{"KernelName", "gpu-id", "queue-id", "BeginNs", "EndNs"}

// looksLegacyDB reports whether db holds rocprof v1's kernel table.
func looksLegacyDB(db *sqlitedb.DB) bool {
	if !db.HasTable("KERN") {
		return false
	}
	for _, c := range legacyDBColumns {
		if !db.HasColumn("KERN", c) {
			return false
		}
	}
	return true
}

// readLegacyDB reads rocprof v1's results.db as results.csv is read:
// each row of KERN a kernel dispatch on a queue of a GPU. Its other
// tables (API traces, which it keeps in other layouts) are counted as
// skipped.
func readLegacyDB(db *sqlitedb.DB, path string, sink trace.Sink, opt trace.ReadOptions) error {
	m := newModel(opt)
	defer m.release() // a read that stops early gives back what the model held
	host := m.host("")
	cols := make([]string, len(legacyDBColumns))
	for i, c := range legacyDBColumns {
		cols[i] = sqlitedb.Ident(c)
	}
	q := "SELECT " + strings.Join(cols, ", ") + " FROM KERN ORDER BY rowid"
	var reversed, unreadable int64
	err := rpdRows(db, "KERN", q, len(cols), func(v []any) error {
		var gpu, queue, start, end int64
		if !ints(v[1:], &gpu, &queue, &start, &end) {
			unreadable++
			return nil
		}
		if end < start {
			reversed++
			return nil
		}
		name := ""
		switch x := v[0].(type) {
		case string:
			name = x
		case []byte:
			name = string(x)
		}
		if len(name) >= 2 && name[0] == '"' && name[len(name)-1] == '"' {
			name = name[1 : len(name)-1]
		}
		g := strconv.FormatInt(gpu, 10)
		a := m.agent(host, g, gpu, "GPU "+g)
		c := m.queue(a, "Queue "+strconv.FormatInt(queue, 10), queue)
		m.add(c, kindKernel, name, trace.Time(start), trace.Time(end), 0, nan)
		if m.err != nil {
			// The budget refused the model: sqlitedb.Scan places it at
			// this row.
			return m.err
		}
		return opt.Canceled()
	})
	if err != nil {
		return err
	}
	opt.Skip("rocprof v1 kernel rows ending before they start", reversed)
	opt.Skip("rocprof v1 kernel rows whose times or ids are not integers", unreadable)
	for _, t := range db.Tables() {
		if t == "KERN" {
			continue
		}
		n, err := db.Count(t)
		if err != nil {
			return err
		}
		opt.Skip("rows of rocprof v1 table "+t+" (not modelled)", n)
	}
	return emitDatabase(m, sink, path, opt)
}
