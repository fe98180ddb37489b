// Package sqlitedb opens the SQLite databases profilers write (Nsight
// Systems exports, rocprof's RPD) for reading, with a pure-Go driver so
// that the Python extension needs no C library beyond its own, and tells
// which tables and columns a database has: the schemas move from one
// version of a profiler to the next, and readers adapt to what is there.
//
// A database is a file a stranger may have written, and SQLite runs SQL
// stored in it: a view's query, a generated column's expression, a
// virtual table's module. So the package reads only real tables, by the
// names the reader asks for, and never that stored SQL: the schema is
// sorted from sqlite_master's type and text (views, virtual tables and
// triggers are listed apart, never opened), and an authorizer on the
// connection refuses, at the compilation of every statement, whatever is
// not a read of such a table or a count (see guard.go). Limits bound a
// value's size, a statement's length and the rows a table may yield for
// the size of the file; every query stops when the read is canceled.
//
// The file is never written: it is opened read-only and immutable (SQLite
// takes no lock and creates no file beside it). A write-ahead log or a hot
// rollback journal beside it holds changes SQLite would apply when it
// opens the database; the database is then read as SQLite reads it, from
// a private copy with its log or journal (see journal.go).
package sqlitedb

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"strings"

	"modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Magic is the first 16 bytes of every SQLite 3 database file.
const Magic = "SQLite format 3\x00"

// Looks reports whether head (the first bytes of a file) is a SQLite
// database's.
func Looks(head []byte) bool { return bytes.HasPrefix(head, []byte(Magic)) }

// DB is a database opened for reading.
type DB struct {
	Path string

	db   *sql.DB
	conn *sql.Conn // the one connection, with the authorizer and limits
	// tables are the real tables (table -> its columns, read when first
	// asked for); others, the names of the schema's views, virtual tables
	// and triggers, with what they are.
	tables map[string]*table
	others map[string]string
	// maxRows bounds the rows a table may yield: no more cells than a
	// file of this size holds (see rowLimit).
	maxRows int64
	cancel  <-chan struct{}
	auth    *authorizer
	private string // the private copy's directory (journal.go), removed by Close
}

// table is a real table of the schema.
type table struct {
	columns map[string]bool // nil until read
	// computed are its columns generated on read (VIRTUAL generated
	// columns): their values come from an expression stored in the file.
	computed map[string]bool
}

// Open opens the database at path read-only. A file that is not a SQLite
// database, or whose schema cannot be read (truncated, corrupt), is a
// FormatError naming the file.
func Open(path string) (*DB, error) { return open(path, true) }

// Peek opens the database at path as its file holds it, a log or journal
// beside it not applied (no copy made): enough to tell which tables it
// has (to recognise a format), not to read them.
func Peek(path string) (*DB, error) { return open(path, false) }

// decompressCommand names the command that decompresses a file, by its
// compression.
var decompressCommand = map[ingest.Compression]string{ingest.Gzip: "gunzip -k", ingest.Bzip2: "bunzip2 -k", ingest.Zstd: "zstd -d"}

func open(path string, whole bool) (*DB, error) {
	st, err := ingest.CheckPath(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, errs.Format(path, 0, "is a directory, not a SQLite database")
	}
	f, err := ingest.OpenFile(path)
	if err != nil {
		return nil, err
	}
	head := make([]byte, len(Magic))
	_, err = io.ReadFull(f, head)
	f.Close()
	if c := ingest.Sniff(head); err == nil && c != ingest.Plain {
		// A database is read where its pages lie, not as a stream: one
		// shared compressed (rocmProfileData keeps mytrace.rpd.gz) is
		// refused by what it is, with the way to read it.
		return nil, errs.Format(path, 0, "is %s-compressed: a SQLite database is read uncompressed; decompress it first (%s)", c, decompressCommand[c])
	}
	if err != nil || !Looks(head) {
		return nil, errs.Format(path, 0, "not a SQLite database (no %q header)", strings.TrimRight(Magic, "\x00"))
	}
	d := &DB{Path: path, tables: map[string]*table{}, others: map[string]string{}}
	open, size := path, st.Size()
	if whole {
		if open, size, err = d.pending(size); err != nil {
			d.Close()
			return nil, err
		}
	}
	d.maxRows = rowLimit(size)
	if err := d.connect(open); err != nil {
		d.Close()
		return nil, err
	}
	if err := d.loadSchema(); err != nil {
		d.Close()
		return nil, err
	}
	// The columns of every table, now: the authorizer needs them, and may
	// not query the connection it guards.
	for name := range d.tables {
		d.columns(name)
	}
	return d, nil
}

// connect opens the one connection to the file at path (the database,
// or its private copy), sets its limits and installs the authorizer.
func (d *DB) connect(path string) error {
	// immutable=1: SQLite takes no lock and creates no file beside the
	// database (no -shm, no journal); the database's own log or journal,
	// if any, was applied to the private copy (pending).
	q := "?mode=ro&immutable=1"
	if d.private != "" {
		q = "?mode=rw" // the copy, which SQLite may need to roll back
	}
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + q +
		"&_pragma=query_only(1)&_pragma=trusted_schema(0)&_pragma=cell_size_check(1)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return d.Errorf("cannot open the database: %v", err)
	}
	db.SetMaxOpenConns(1)
	d.db = db
	conn, err := db.Conn(context.Background())
	if err != nil {
		return d.Errorf("cannot open the database: %v", err)
	}
	d.conn = conn
	for id, v := range limits {
		if _, err := sqlite.Limit(conn, id, v); err != nil {
			return d.Errorf("cannot open the database: %v", err)
		}
	}
	d.auth = &authorizer{db: d}
	return conn.Raw(func(c any) error {
		r, ok := c.(sqlite.AuthorizerRegisterer)
		if !ok {
			return fmt.Errorf("the SQLite driver has no authorizer (%T)", c)
		}
		return r.RegisterAuthorizer(d.auth.decide)
	})
}

// Close releases the database (and removes its private copy, if any).
func (d *DB) Close() error {
	var err error
	if d.conn != nil {
		d.conn.Close()
	}
	if d.db != nil {
		err = d.db.Close()
	}
	if d.private != "" {
		os.RemoveAll(d.private)
	}
	return err
}

// Watch makes every query stop once cancel is closed (a read canceled,
// Ctrl-C) with trace.ErrCanceled: SQLite is interrupted inside the
// statement, be it a sort or a count of millions of rows.
func (d *DB) Watch(cancel <-chan struct{}) { d.cancel = cancel }

// context returns the context of a query: done once the read is
// canceled.
func (d *DB) context() (context.Context, context.CancelFunc) {
	ctx, stop := context.WithCancel(context.Background())
	if d.canceled() {
		stop()
	} else if d.cancel != nil {
		go func() {
			select {
			case <-d.cancel:
				stop()
			case <-ctx.Done():
			}
		}()
	}
	return ctx, stop
}

// loadSchema sorts the schema: real tables apart from views, virtual
// tables and triggers, told by sqlite_master's type and the text of
// their definition, which is read, never run.
func (d *DB) loadSchema() error {
	ctx, stop := d.context()
	defer stop()
	rows, err := d.conn.QueryContext(ctx, `SELECT type, name, sql FROM sqlite_master`)
	if err != nil {
		return d.Errorf("cannot read the schema: %v", err)
	}
	defer rows.Close()
	n := int64(0)
	for rows.Next() {
		var typ, name, text sql.NullString
		if err := rows.Scan(&typ, &name, &text); err != nil {
			return d.Errorf("cannot read the schema: %v", err)
		}
		if n++; n > d.maxRows {
			return d.Errorf("cannot read the schema: %s", d.tooMany("sqlite_master", n))
		}
		switch kind := kindOf(typ.String, text.String); kind {
		case "table":
			d.tables[name.String] = &table{}
		case "index":
		default:
			if _, ok := d.others[name.String]; !ok {
				d.others[name.String] = kind
			}
		}
	}
	if err := rows.Err(); err != nil {
		return d.Errorf("cannot read the schema: %v", err)
	}
	return nil
}

// kindOf tells what an entry of sqlite_master is, from its type and the
// text of its definition: "table" only for a table whose rows are stored
// in the file (CREATE TABLE), not a virtual table (CREATE VIRTUAL TABLE,
// whose rows a module computes).
func kindOf(typ, text string) string {
	switch typ {
	case "table":
		if strings.HasPrefix(strings.ToUpper(strings.Join(strings.Fields(text), " ")), "CREATE TABLE ") {
			return "table"
		}
		if strings.HasPrefix(strings.ToUpper(strings.TrimSpace(text)), "CREATE VIRTUAL") {
			return "virtual table"
		}
		return "table of unknown definition"
	case "view", "trigger", "index":
		return typ
	}
	return "schema entry of type " + errs.Quote(typ)
}

// columns returns the stored columns of table (nil for a table not in
// the schema), read once with PRAGMA table_xinfo.
func (d *DB) columns(name string) *table {
	t := d.tables[name]
	if t == nil || t.columns != nil {
		return t
	}
	t.columns, t.computed = map[string]bool{}, map[string]bool{}
	ctx, stop := d.context()
	defer stop()
	rows, err := d.conn.QueryContext(ctx, `PRAGMA table_xinfo(`+QuoteString(name)+`)`)
	if err != nil {
		return t // no column: the reader's queries fail, with their own message
	}
	defer rows.Close()
	for rows.Next() {
		var cid, notnull, pk, hidden sql.NullInt64
		var col, typ sql.NullString
		var dflt any
		if rows.Scan(&cid, &col, &typ, &notnull, &dflt, &pk, &hidden) != nil {
			break
		}
		// hidden: 0 a column, 1 a virtual table's hidden column, 2 a
		// VIRTUAL generated column (computed on read), 3 a STORED one.
		if hidden.Int64 == 2 {
			t.computed[col.String] = true
			continue
		}
		t.columns[col.String] = true
	}
	return t
}

// HasTable reports whether the database has the table name, a real
// table: a view, a virtual table or a trigger of that name does not
// count (see Missing).
func (d *DB) HasTable(name string) bool { _, ok := d.tables[name]; return ok }

// HasColumn reports whether table has the column, stored (a column
// generated on read does not count).
func (d *DB) HasColumn(table, column string) bool {
	t := d.columns(table)
	return t != nil && t.columns[column]
}

// Tables returns the names of the real tables.
func (d *DB) Tables() []string {
	out := make([]string, 0, len(d.tables))
	for name := range d.tables {
		out = append(out, name)
	}
	return out
}

// Views returns the names of the schema's views, sorted: a reader may
// recognise a format by them, never read them (their rows come from SQL
// stored in the file).
func (d *DB) Views() []string {
	var out []string
	for name, kind := range d.others {
		if kind == "view" {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// Missing says why the database has no table name, for a reader's error:
// "no table X", or what X is instead (a view...), which Macroscope does
// not read.
func (d *DB) Missing(name string) string {
	if kind, ok := d.others[name]; ok {
		return fmt.Sprintf("%s is a %s, not a table: its rows would come from SQL stored in the file, which Macroscope does not run", errs.Quote(name), kind)
	}
	return "no " + errs.Quote(name) + " table"
}

// Expect returns an error when one of names, the tables a reader reads
// when they are there, is in the schema as something else than a table
// (a view...): the profiler writes them as tables, and reading the file
// as if they were absent would give a trace without their rows, complete
// in appearance.
func (d *DB) Expect(names ...string) error {
	for _, name := range names {
		if _, ok := d.others[name]; ok {
			return d.Errorf("%s", d.Missing(name))
		}
	}
	return nil
}

// Errorf returns a FormatError naming the database.
func (d *DB) Errorf(format string, args ...any) error {
	return errs.Format(d.Path, 0, format, args...)
}

// QuoteString returns s as an SQL string literal.
func QuoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// Ident returns name as an SQL identifier: in double quotes, a double
// quote in it doubled. Table names come from the file: spliced in a query
// unquoted, one would be SQL of the file's choosing.
func Ident(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// Scan runs query and calls row for each of its rows, once dest holds
// the row's values. Errors, from SQLite (a corrupt page, a value past the
// size limit, a refusal of the authorizer) or a value of the wrong type,
// are FormatErrors naming the table and the row. A table yielding more
// rows than the file can hold (corrupt pages that loop) is an error.
func (d *DB) Scan(table, query string, dest []any, row func() error) error {
	ctx, stop := d.context()
	defer stop()
	d.auth.reset()
	rows, err := d.conn.QueryContext(ctx, query)
	if err != nil {
		return d.failed(table, 0, err)
	}
	defer rows.Close()
	n := int64(0)
	for rows.Next() {
		if n++; n > d.maxRows {
			return d.Errorf("table %s: %s", table, d.tooMany(table, n))
		}
		if n%4096 == 0 && d.canceled() {
			return trace.ErrCanceled
		}
		if err := rows.Scan(dest...); err != nil {
			return d.Errorf("table %s, row %d: %v", table, n, err)
		}
		if err := row(); err != nil {
			return d.placed(table, n, err)
		}
	}
	if err := rows.Err(); err != nil {
		return d.failed(table, n, err)
	}
	return nil
}

// placed returns the error a row's callback gave, placed at table and row
// n when it names no place: the memory budget's refusal (a reader weighs
// what it gathered as it reads the rows), which the front ends report
// with its place (budget.Named). A FormatError, already placed, and a
// cancel pass as they are.
func (d *DB) placed(table string, n int64, err error) error {
	var fe *errs.FormatError
	if errors.As(err, &fe) || errors.Is(err, trace.ErrCanceled) {
		return err
	}
	return &errs.FormatError{File: d.Path, Where: fmt.Sprintf("table %s, row %d", table, n), Err: err}
}

// Count returns the number of rows of table, a real table.
func (d *DB) Count(table string) (int64, error) {
	if !d.HasTable(table) {
		return 0, d.Errorf("cannot count the rows of %s: %s", table, d.Missing(table))
	}
	ctx, stop := d.context()
	defer stop()
	d.auth.reset()
	var n int64
	if d.canceled() {
		return 0, trace.ErrCanceled
	}
	if err := d.conn.QueryRowContext(ctx, `SELECT count(*) FROM `+Ident(table)).Scan(&n); err != nil {
		return 0, d.failed(table, -1, err)
	}
	if n > d.maxRows {
		return 0, d.Errorf("table %s: %s", table, d.tooMany(table, n))
	}
	return n, nil
}

// failed returns the error of a query of table that SQLite stopped after
// n rows (n < 0: a count), saying why in words when the authorizer
// refused it or the read was canceled.
func (d *DB) failed(table string, n int64, err error) error {
	if d.canceled() {
		return trace.ErrCanceled
	}
	what := "cannot read table " + table
	switch {
	case n < 0:
		what = "cannot count the rows of " + table
	case n > 0:
		what = fmt.Sprintf("cannot read table %s (after %d rows)", table, n)
	}
	if why := d.auth.why(); why != "" {
		return d.Errorf("%s: %s", what, why)
	}
	return d.Errorf("%s: %v", what, err)
}

// canceled reports whether the channel Watch gave is closed.
func (d *DB) canceled() bool {
	if d.cancel == nil {
		return false
	}
	select {
	case <-d.cancel:
		return true
	default:
		return false
	}
}

// rowLimit is the most rows a database of size bytes can hold in a
// table: a page of p bytes holds at most (p-8)/6 cells (SQLite's
// MX_CELL), a cell pointer and 4 bytes of cell at least; the smallest
// page, 512 bytes, gives 84 cells per 512 bytes. More rows mean pages
// visited more than once: a corrupt file whose b-tree loops.
func rowLimit(size int64) int64 { return size/6 + 1024 }

func (d *DB) tooMany(table string, n int64) string {
	return fmt.Sprintf("it gives more rows (%d) than a database file of %d bytes can hold: its pages are corrupt (a b-tree that loops)",
		n, (d.maxRows-1024)*6)
}
