// Package dbrows lets a fuzz target change the rows of a small SQLite
// database rather than its bytes.
//
// A damaged byte of a database file mostly gives SQLite's "malformed"
// error before the reader sees a row; the reader's own logic (ids that
// name nothing, times reversed or at the ends of int64, NULLs, text where
// a number is expected, rows missing or repeated) is reached through rows.
// A Template is built once per target; each input is then a list of
// inserts, updates and deletes applied to a copy of it.
//
// It is a package of its own so that only the targets of the database
// readers link the SQLite driver.
package dbrows

import (
	"database/sql"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Template is a database whose rows an input changes.
type Template struct {
	data   []byte
	tables []table
	extra  []any
}

type table struct {
	name    string
	columns []string
	rows    int64 // rows in the template
}

// MaxOps bounds the changes one input makes: each costs a statement, and
// a few dozen rows reach every case a reader has.
const MaxOps = 64

// New writes a database with the statements stmts and reads its tables
// and their columns. extra are values (a producer's ids, names) the
// inputs may write besides small numbers and the corner cases every
// reader meets.
func New(tb testing.TB, stmts []string, extra ...any) *Template {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "template.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			tb.Fatalf("%s: %v", s, err)
		}
	}
	t := &Template{extra: extra}
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		tb.Fatal(err)
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			tb.Fatal(err)
		}
		t.tables = append(t.tables, table{name: name})
	}
	rows.Close()
	for i := range t.tables {
		tab := &t.tables[i]
		cols, err := db.Query(`SELECT name FROM pragma_table_info(?)`, tab.name)
		if err != nil {
			tb.Fatal(err)
		}
		for cols.Next() {
			var c string
			if err := cols.Scan(&c); err != nil {
				tb.Fatal(err)
			}
			tab.columns = append(tab.columns, c)
		}
		cols.Close()
		if err := db.QueryRow(`SELECT count(*) FROM ` + quote(tab.name)).Scan(&tab.rows); err != nil {
			tb.Fatal(err)
		}
	}
	db.Close()
	if t.data, err = os.ReadFile(path); err != nil {
		tb.Fatal(err)
	}
	return t
}

// Bytes is the template database's file.
func (t *Template) Bytes() []byte { return t.data }

func quote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// corner are the values every input may write: NULL, the ends of the
// integers, numbers past float64's exact integers, reals, text where a
// number is expected, empty and invalid UTF-8 text, a blob.
var corner = []any{nil, int64(-1), int64(math.MaxInt64), int64(math.MinInt64), int64(1<<53 + 1),
	int64(-1 << 40), 0.5, -1e300, math.Inf(1), "", "x", "12abc", "\xff\xfe", "é\u2028", []byte{0, 1}, "NaN"}

// value is the value byte b stands for: 0-99 itself, 100-199 a hundred
// times (b-100) (times in the templates' range), above that one of the
// extra values or a corner case.
func (t *Template) value(b byte) any {
	switch {
	case b < 100:
		return int64(b)
	case b < 200:
		return int64(b-100) * 100
	}
	i := int(b-200) % (len(t.extra) + len(corner))
	if i < len(t.extra) {
		return t.extra[i]
	}
	return corner[i-len(t.extra)]
}

// Write writes the template to path with the changes input describes,
// applied in order. Each change starts with a byte o: the table is
// o % tables, and (o / tables) % 4 says what is done to it:
//   - 0, 1: insert a row, one byte per column, each a value (see value);
//   - 2: update a row: a byte for the column, one for the row, one for
//     the value;
//   - 3: delete a row: a byte for the row.
//
// A row byte r names rowid r % (rows + 2) + 1, a row past the last
// sometimes. A change the schema refuses (a constraint) is left out.
// It returns the changes made, as SQL, to show in a failure.
func (t *Template) Write(path string, input []byte) (string, error) {
	os.Remove(path + "-journal")
	if err := os.WriteFile(path, t.data, 0o644); err != nil {
		return "", err
	}
	if len(input) == 0 || len(t.tables) == 0 {
		return "", nil
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return "", err
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		return "", err
	}
	rows := make([]int64, len(t.tables))
	for i, tab := range t.tables {
		rows[i] = tab.rows
	}
	var done strings.Builder
	next := func() (byte, bool) {
		if len(input) == 0 {
			return 0, false
		}
		b := input[0]
		input = input[1:]
		return b, true
	}
	rowOf := func(i int, r byte) int64 { return int64(r)%(rows[i]+2) + 1 }
	for op := 0; op < MaxOps; op++ {
		o, ok := next()
		if !ok {
			break
		}
		i := int(o) % len(t.tables)
		tab := t.tables[i]
		var q string
		var args []any
		switch (int(o) / len(t.tables)) % 4 {
		case 0, 1:
			marks := make([]string, len(tab.columns))
			for c := range tab.columns {
				b, ok := next()
				if !ok {
					break
				}
				marks[c] = "?"
				args = append(args, t.value(b))
			}
			if len(args) < len(tab.columns) {
				op = MaxOps
				continue
			}
			q = "INSERT INTO " + quote(tab.name) + " VALUES (" + strings.Join(marks, ", ") + ")"
		case 2:
			c, ok1 := next()
			r, ok2 := next()
			v, ok3 := next()
			if !ok1 || !ok2 || !ok3 || len(tab.columns) == 0 {
				op = MaxOps
				continue
			}
			q = "UPDATE " + quote(tab.name) + " SET " + quote(tab.columns[int(c)%len(tab.columns)]) + " = ? WHERE rowid = ?"
			args = []any{t.value(v), rowOf(i, r)}
		case 3:
			r, ok := next()
			if !ok {
				op = MaxOps
				continue
			}
			q = "DELETE FROM " + quote(tab.name) + " WHERE rowid = ?"
			args = []any{rowOf(i, r)}
		}
		res, err := tx.Exec(q, args...)
		if err != nil {
			continue // a constraint of the schema
		}
		if n, err := res.RowsAffected(); err == nil && n > 0 && strings.HasPrefix(q, "INSERT") {
			rows[i]++
		}
		fmt.Fprintf(&done, "%s -- %v\n", q, args)
	}
	if err := tx.Commit(); err != nil {
		return done.String(), err
	}
	return done.String(), db.Close()
}
