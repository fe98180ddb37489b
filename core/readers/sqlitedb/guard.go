package sqlitedb

import (
	"fmt"
	"strings"
	"sync"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// MaxValue is the most bytes a string or blob of a database may hold
// (SQLite's SQLITE_LIMIT_LENGTH on the connection): a name in a profile
// is a few hundred bytes, a kernel's demangled name a few kilobytes. A
// value past it (an overflow chain claiming a gigabyte) is an error, not
// an allocation.
const MaxValue = 16 << 20

// limits are the connection's SQLite limits: a value's size, and small
// bounds on what a statement may hold (the reader's own statements are
// short), so that nothing in the file makes SQLite build a huge program.
var limits = map[int]int{
	sqlite3.SQLITE_LIMIT_LENGTH:              MaxValue,
	sqlite3.SQLITE_LIMIT_SQL_LENGTH:          1 << 20,
	sqlite3.SQLITE_LIMIT_EXPR_DEPTH:          100,
	sqlite3.SQLITE_LIMIT_COMPOUND_SELECT:     4,
	sqlite3.SQLITE_LIMIT_VDBE_OP:             100_000,
	sqlite3.SQLITE_LIMIT_FUNCTION_ARG:        8,
	sqlite3.SQLITE_LIMIT_ATTACHED:            0,
	sqlite3.SQLITE_LIMIT_LIKE_PATTERN_LENGTH: 1000,
	sqlite3.SQLITE_LIMIT_TRIGGER_DEPTH:       1,
}

// authorizer decides, as SQLite compiles each statement, what it may do:
// read columns of the real tables of the schema (and the schema itself),
// count, and list a table's columns. Everything else is refused: a view
// (the reader's statement may name one the file defines in place of a
// table), what runs inside a view or trigger, virtual tables, columns
// computed on read, other functions, attaching files, writing.
type authorizer struct {
	db     *DB
	mu     sync.Mutex
	denied string // why the last statement was refused
}

// functions are the SQL functions the readers' statements may call.
var functions = map[string]bool{"count": true}

func (a *authorizer) decide(action sqlite.AuthorizerActionCode, arg1, arg2, database, within string) sqlite.AuthorizerReturnCode {
	if within != "" {
		if _, isTable := a.db.tables[within]; !isTable && a.db.others[within] == "view" {
			return a.deny("%s", a.db.Missing(within))
		}
		return a.deny("it would run SQL stored in the file (%s %s)", a.db.kind(within), errs.Quote(within))
	}
	switch action {
	case sqlite.AuthSelect:
		return sqlite.AuthorizerOK
	case sqlite.AuthRead:
		// arg1 the table, arg2 the column ("" for count(*), whose
		// database is "" too: the driver passes a NULL as "").
		if database != "main" && database != "" {
			return a.deny("it reads table %s of database %s", errs.Quote(arg1), errs.Quote(database))
		}
		if arg1 == "sqlite_master" || arg1 == "sqlite_schema" {
			return sqlite.AuthorizerOK
		}
		t, ok := a.db.tables[arg1]
		if !ok {
			return a.deny("%s", a.db.Missing(arg1))
		}
		if t.computed[arg2] {
			return a.deny("column %s of %s is computed on read by SQL stored in the file, which Macroscope does not run", errs.Quote(arg2), errs.Quote(arg1))
		}
		return sqlite.AuthorizerOK
	case sqlite.AuthFunction:
		// arg2 the function.
		if functions[strings.ToLower(arg2)] {
			return sqlite.AuthorizerOK
		}
		return a.deny("it calls the SQL function %s", errs.Quote(arg2))
	case sqlite.AuthPragma:
		if strings.EqualFold(arg1, "table_xinfo") && a.db.HasTable(arg2) {
			return sqlite.AuthorizerOK
		}
		return a.deny("PRAGMA %s(%s)", errs.Quote(arg1), errs.Quote(arg2))
	}
	return a.deny("action %d (%s, %s)", action, errs.Quote(arg1), errs.Quote(arg2))
}

func (a *authorizer) deny(format string, args ...any) sqlite.AuthorizerReturnCode {
	a.mu.Lock()
	if a.denied == "" {
		a.denied = "refused: " + fmt.Sprintf(format, args...)
	}
	a.mu.Unlock()
	return sqlite.AuthorizerDeny
}

// reset forgets the last refusal, before a statement.
func (a *authorizer) reset() {
	a.mu.Lock()
	a.denied = ""
	a.mu.Unlock()
}

// why says why the last statement was refused ("" if it was not).
func (a *authorizer) why() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.denied
}

// kind says what the schema's entry name is.
func (d *DB) kind(name string) string {
	if k, ok := d.others[name]; ok {
		return k
	}
	return "schema entry"
}
