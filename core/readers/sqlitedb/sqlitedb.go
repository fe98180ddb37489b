// Package sqlitedb opens the SQLite databases profilers write (Nsight
// Systems exports, rocprof's RPD) for reading, with a pure-Go driver so
// that the Python extension needs no C library beyond its own, and tells
// which tables and columns a database has: the schemas move from one
// version of a profiler to the next, and readers adapt to what is there.
package sqlitedb

import (
	"bytes"
	"database/sql"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// Magic is the first 16 bytes of every SQLite 3 database file.
const Magic = "SQLite format 3\x00"

// Looks reports whether head (the first bytes of a file) is a SQLite
// database's.
func Looks(head []byte) bool { return bytes.HasPrefix(head, []byte(Magic)) }

// DB is a database opened for reading.
type DB struct {
	*sql.DB
	Path   string
	tables map[string]map[string]bool // table -> its columns
}

// Open opens the database at path read-only. A file that is not a SQLite
// database, or whose schema cannot be read (truncated, corrupt), is a
// FormatError naming the file.
func Open(path string) (*DB, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	head := make([]byte, len(Magic))
	_, err = io.ReadFull(f, head)
	f.Close()
	if err != nil || !Looks(head) {
		return nil, errs.Format(path, 0, "not a SQLite database (no %q header)", strings.TrimRight(Magic, "\x00"))
	}
	// immutable=1: the file does not change while we read it, so SQLite
	// neither locks it nor looks for a journal (the corpus is read-only).
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?mode=ro&immutable=1&_pragma=query_only(1)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, errs.Format(path, 0, "cannot open the database: %v", err)
	}
	d := &DB{DB: db, Path: path, tables: map[string]map[string]bool{}}
	if err := d.loadSchema(); err != nil {
		db.Close()
		return nil, err
	}
	return d, nil
}

func (d *DB) loadSchema() error {
	rows, err := d.Query(`SELECT name FROM sqlite_master WHERE type IN ('table', 'view')`)
	if err != nil {
		return d.Errorf("cannot read the schema: %v", err)
	}
	var names []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return d.Errorf("cannot read the schema: %v", err)
		}
		names = append(names, name)
	}
	if err := rows.Close(); err != nil {
		return d.Errorf("cannot read the schema: %v", err)
	}
	if err := rows.Err(); err != nil {
		return d.Errorf("cannot read the schema: %v", err)
	}
	for _, name := range names {
		cols := map[string]bool{}
		r, err := d.Query(fmt.Sprintf(`SELECT name FROM pragma_table_info(%s)`, quote(name)))
		if err != nil {
			return d.Errorf("cannot read the columns of %s: %v", name, err)
		}
		for r.Next() {
			var c string
			if err := r.Scan(&c); err != nil {
				r.Close()
				return d.Errorf("cannot read the columns of %s: %v", name, err)
			}
			cols[c] = true
		}
		r.Close()
		d.tables[name] = cols
	}
	return nil
}

// HasTable reports whether the database has the table (or view) name.
func (d *DB) HasTable(name string) bool { _, ok := d.tables[name]; return ok }

// HasColumn reports whether table has the column.
func (d *DB) HasColumn(table, column string) bool { return d.tables[table][column] }

// Tables returns the names of the tables and views.
func (d *DB) Tables() []string {
	out := make([]string, 0, len(d.tables))
	for name := range d.tables {
		out = append(out, name)
	}
	return out
}

// Errorf returns a FormatError naming the database.
func (d *DB) Errorf(format string, args ...any) error {
	return errs.Format(d.Path, 0, format, args...)
}

func quote(name string) string { return "'" + strings.ReplaceAll(name, "'", "''") + "'" }

// Scan runs query and calls row for each of its rows, once dest holds
// the row's values. Errors, from SQLite (a corrupt page) or a value of the
// wrong type, are FormatErrors naming the table and the row.
func (d *DB) Scan(table, query string, dest []any, row func() error) error {
	rows, err := d.Query(query)
	if err != nil {
		return d.Errorf("cannot read table %s: %v", table, err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
		if err := rows.Scan(dest...); err != nil {
			return d.Errorf("table %s, row %d: %v", table, n, err)
		}
		if err := row(); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return d.Errorf("cannot read table %s (after %d rows): %v", table, n, err)
	}
	return nil
}
