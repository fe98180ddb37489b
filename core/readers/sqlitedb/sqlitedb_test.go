package sqlitedb

import (
	"crypto/sha256"
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// write creates the database at path with stmts, through the driver,
// and closes it (no log or journal left).
func write(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// fingerprint is what must not change when a database is read: its
// bytes, its time of modification, and the files of its directory.
type fingerprint struct {
	sum   [32]byte
	mtime time.Time
	files string
}

func fingerprintOf(t *testing.T, path string) fingerprint {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	entries, _ := os.ReadDir(filepath.Dir(path))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return fingerprint{sha256.Sum256(b), st.ModTime(), strings.Join(names, ",")}
}

// strings reads column 1 of query on table, in order.
func column(t *testing.T, db *DB, table, query string) ([]string, error) {
	t.Helper()
	var out []string
	var s sql.NullString
	err := db.Scan(table, query, []any{&s}, func() error {
		out = append(out, s.String)
		return nil
	})
	return out, err
}

func TestOpenSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a b.sqlite")
	write(t, path, "CREATE TABLE k(start INT, name TEXT)", "INSERT INTO k VALUES (1, 'x'), (2, 'y')")
	before := fingerprintOf(t, path)
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if !db.HasTable("k") || !db.HasColumn("k", "name") || db.HasColumn("k", "end") || db.HasTable("nope") {
		t.Errorf("schema: %v", db.tables)
	}
	names, err := column(t, db, "k", `SELECT name FROM k ORDER BY start`)
	if err != nil || strings.Join(names, ",") != "x,y" {
		t.Errorf("names = %v, %v", names, err)
	}
	if n, err := db.Count("k"); n != 2 || err != nil {
		t.Errorf("count = %d, %v", n, err)
	}
	db.Close()
	if after := fingerprintOf(t, path); after != before {
		t.Errorf("the read changed the database or its directory: %+v, then %+v", before, after)
	}
}

func TestOpenRefusesOtherFiles(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"empty": "", "text": "hello, world, not a database", "cut": Magic[:10]} {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(body), 0o644)
		if db, err := Open(path); err == nil {
			db.Close()
			t.Errorf("%s: opened", name)
		}
	}
	// A database compressed: refused by what it is, with the command
	// that decompresses it.
	for kind, cmd := range map[string]string{"gzip": "gunzip -k", "zstd": "zstd -d"} {
		path := filepath.Join(dir, "db.rpd."+kind)
		os.WriteFile(path, readertest.Compress(t, append([]byte(Magic), make([]byte, 200)...), kind), 0o644)
		var fe *errs.FormatError
		want := "is " + kind + "-compressed: a SQLite database is read uncompressed; decompress it first (" + cmd + ")"
		if _, err := Open(path); !errors.As(err, &fe) || fe.File != path || !strings.Contains(err.Error(), want) {
			t.Errorf("%s database: %v, want %q", kind, err, want)
		}
	}
	// A database header followed by garbage.
	path := filepath.Join(dir, "garbage")
	os.WriteFile(path, append([]byte(Magic), make([]byte, 200)...), 0o644)
	if db, err := Open(path); err == nil {
		db.Close()
		t.Errorf("garbage: opened")
	}
	// A FIFO: refused at once, never waited on.
	fifo := filepath.Join(dir, "fifo.sqlite")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFO here:", err)
	}
	var fe *errs.FormatError
	if _, err := Open(fifo); !errors.As(err, &fe) || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("FIFO: %v", err)
	}
}

// The SQL a file stores is never run: a reader's query naming a view, a
// virtual table or a column computed on read is refused as SQLite
// compiles it, and says why; the hostile views below would otherwise run
// forever or allocate gigabytes.
func TestStoredSQLNotRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hostile.sqlite")
	write(t, path,
		`CREATE TABLE real(id INTEGER PRIMARY KEY, value TEXT)`,
		`INSERT INTO real VALUES (1, 'one')`,
		// An infinite recursive query.
		`CREATE VIEW StringIds AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT x AS id, 'v' AS value FROM c`,
		// A billion rows of a gigabyte each.
		`CREATE VIEW huge AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 1000000000) SELECT x AS id, randomblob(1000000000) AS value FROM c`,
		// A view reading a real table: still SQL of the file.
		`CREATE VIEW wrapper AS SELECT id, value FROM real`,
		`CREATE TRIGGER t AFTER INSERT ON real BEGIN DELETE FROM real; END`,
		`CREATE VIRTUAL TABLE v USING fts5(value)`,
		`CREATE TABLE gen(id INTEGER, value AS (hex(zeroblob(100000000))) VIRTUAL, kept AS (id * 2) STORED)`,
		`INSERT INTO gen(id) VALUES (7)`,
		`CREATE TABLE "x"" UNION SELECT sqlite_version() --"(a)`,
		`INSERT INTO "x"" UNION SELECT sqlite_version() --" VALUES ('quoted')`,
	)
	before := fingerprintOf(t, path)
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		db.Close()
		if after := fingerprintOf(t, path); after != before {
			t.Errorf("the read changed the database: %+v, then %+v", before, after)
		}
	}()
	for _, name := range []string{"StringIds", "huge", "wrapper", "v", "t"} {
		if db.HasTable(name) {
			t.Errorf("%s taken for a table", name)
		}
	}
	if got := db.Missing("StringIds"); !strings.Contains(got, "is a view, not a table") {
		t.Errorf("Missing(StringIds) = %q", got)
	}
	if got := db.Missing("v"); !strings.Contains(got, "is a virtual table") {
		t.Errorf("Missing(v) = %q", got)
	}
	if got := db.Missing("absent"); got != `no "absent" table` {
		t.Errorf("Missing(absent) = %q", got)
	}
	// The views are listed by name (a format is told by them), not the
	// trigger or the virtual table.
	if got := db.Views(); !slices.Equal(got, []string{"StringIds", "huge", "wrapper"}) {
		t.Errorf("Views() = %q", got)
	}
	for _, q := range []struct{ table, query, why string }{
		{"StringIds", `SELECT value FROM StringIds`, "is a view"},
		{"huge", `SELECT value FROM huge`, "is a view"},
		{"wrapper", `SELECT value FROM wrapper`, "is a view"},
		{"v", `SELECT value FROM v`, "is a virtual table"},
		{"gen", `SELECT value FROM gen`, "computed on read"},
		{"real", `SELECT hex(randomblob(1000000000)) FROM real`, "SQL function"},
		{"real", `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT x FROM c`, "refused"},
		{"real", `SELECT name FROM pragma_table_info('real')`, "refused"},
	} {
		_, err := column(t, db, q.table, q.query)
		var fe *errs.FormatError
		if !errors.As(err, &fe) || fe.File != path || !strings.Contains(err.Error(), q.why) {
			t.Errorf("%s: %v, want a FormatError saying %q", q.query, err, q.why)
		}
	}
	if _, err := db.Count("StringIds"); err == nil || !strings.Contains(err.Error(), "is a view") {
		t.Errorf("count of a view: %v", err)
	}
	// The stored generated column reads as a column; the computed one is
	// not a column of the table.
	if !db.HasColumn("gen", "kept") || db.HasColumn("gen", "value") {
		t.Errorf("gen's columns: %v", db.columns("gen"))
	}
	if got, err := column(t, db, "gen", `SELECT kept FROM gen`); err != nil || strings.Join(got, ",") != "14" {
		t.Errorf("stored generated column: %v, %v", got, err)
	}
	// A table named to be spliced into a query stays a name.
	name := `x" UNION SELECT sqlite_version() --`
	if !db.HasTable(name) {
		t.Fatalf("tables: %v", db.Tables())
	}
	if n, err := db.Count(name); n != 1 || err != nil {
		t.Errorf("count of %q = %d, %v", name, n, err)
	}
	if got, err := column(t, db, name, `SELECT a FROM `+Ident(name)); err != nil || strings.Join(got, ",") != "quoted" {
		t.Errorf("%v, %v", got, err)
	}
}

// A value past MaxValue (which an overflow chain of a corrupt file may
// claim) is an error, not an allocation of its size.
func TestValueLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.sqlite")
	write(t, path, `CREATE TABLE k(v BLOB)`, `INSERT INTO k VALUES (zeroblob(20000000)), (x'00')`)
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = column(t, db, "k", `SELECT v FROM k`)
	if err == nil || !strings.Contains(err.Error(), "too big") {
		t.Errorf("a 20 MB value: %v", err)
	}
}

// A table giving more rows than its file can hold is refused (a b-tree
// whose pages loop); the limit, lowered here, bounds every scan.
func TestRowLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rows.sqlite")
	write(t, path, `CREATE TABLE k(v)`, `INSERT INTO k VALUES (1), (2), (3)`)
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db.maxRows < 3 || db.maxRows != rowLimit(fileSize(t, path)) {
		t.Fatalf("maxRows = %d", db.maxRows)
	}
	db.maxRows = 2
	if _, err := column(t, db, "k", `SELECT v FROM k`); err == nil || !strings.Contains(err.Error(), "more rows (3)") {
		t.Errorf("scan: %v", err)
	}
	if _, err := db.Count("k"); err == nil || !strings.Contains(err.Error(), "more rows (3)") {
		t.Errorf("count: %v", err)
	}
}

func fileSize(t *testing.T, path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// A canceled read stops the query inside SQLite, with trace.ErrCanceled.
func TestWatchCancels(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.sqlite")
	write(t, path, `CREATE TABLE k(v)`, `INSERT INTO k VALUES (1), (2)`)
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stop := make(chan struct{})
	close(stop)
	db.Watch(stop)
	if _, err := db.Count("k"); !errors.Is(err, trace.ErrCanceled) {
		t.Errorf("count: %v", err)
	}
}

// snapshot copies the database at src and the files beside it (its log,
// its journal) into dir, as a copy of a database being written would be.
func snapshot(t *testing.T, src, dir string) string {
	t.Helper()
	dst := filepath.Join(dir, filepath.Base(src))
	for _, suffix := range []string{"", "-wal", "-journal"} {
		b, err := os.ReadFile(src + suffix)
		if err != nil {
			continue
		}
		if err := os.WriteFile(dst+suffix, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// oracle reads query from a copy of the database at path (its log or
// journal with it) with the sqlite3 command, which applies them.
func oracle(t *testing.T, path, query string) string {
	t.Helper()
	if _, err := exec.LookPath("sqlite3"); err != nil {
		t.Skip("sqlite3 is not installed: it is the oracle")
	}
	copyPath := snapshot(t, path, t.TempDir())
	out, err := exec.Command("sqlite3", copyPath, query).CombinedOutput()
	if err != nil {
		t.Fatalf("sqlite3: %v\n%s", err, out)
	}
	return strings.ReplaceAll(strings.TrimSpace(string(out)), "\n", ",")
}

// A database in WAL mode whose log was not checkpointed is read with its
// log, as SQLite reads it (the rows deleted since are gone, those added
// there), without writing beside it.
func TestWriteAheadLog(t *testing.T) {
	dir := t.TempDir()
	live := filepath.Join(dir, "live.sqlite")
	w, err := sql.Open("sqlite", live)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	for _, s := range []string{`PRAGMA journal_mode=WAL`, `CREATE TABLE k(v TEXT)`,
		`INSERT INTO k VALUES ('a'), ('b'), ('c')`, `PRAGMA wal_checkpoint(TRUNCATE)`,
		`PRAGMA wal_autocheckpoint=0`, `DELETE FROM k WHERE v = 'b'`, `INSERT INTO k VALUES ('d')`} {
		if _, err := w.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	path := snapshot(t, live, t.TempDir())
	if st, err := os.Stat(path + "-wal"); err != nil || st.Size() <= walHeaderSize {
		t.Fatalf("no log to apply: %v", err)
	}
	want := oracle(t, path, `SELECT v FROM k ORDER BY rowid`)
	if want != "a,c,d" {
		t.Fatalf("sqlite3 reads %q", want)
	}
	before, walBefore := fingerprintOf(t, path), fingerprintOf(t, path+"-wal")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := column(t, db, "k", `SELECT v FROM k ORDER BY rowid`)
	if err != nil || strings.Join(got, ",") != want {
		t.Errorf("read %v, %v; sqlite3 reads %s", got, err, want)
	}
	private := db.private
	db.Close()
	if _, err := os.Stat(private); !os.IsNotExist(err) {
		t.Errorf("the private copy %s is left: %v", private, err)
	}
	if fingerprintOf(t, path) != before || fingerprintOf(t, path+"-wal") != walBefore {
		t.Errorf("the read changed the database, its log or its directory")
	}
}

// A hot journal (a writer stopped in the middle of a transaction that
// had already written pages into the file) is rolled back, as SQLite
// does: the rows read are those before the transaction.
func TestHotJournal(t *testing.T) {
	dir := t.TempDir()
	live := filepath.Join(dir, "live.sqlite")
	w, err := sql.Open("sqlite", live)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	for _, s := range []string{`PRAGMA journal_mode=DELETE`, `PRAGMA cache_size=2`,
		`CREATE TABLE k(v TEXT)`,
		`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 200) INSERT INTO k SELECT printf('%0500d', x) FROM c`,
		`BEGIN`, `UPDATE k SET v = 'changed'`} {
		if _, err := w.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	path := snapshot(t, live, t.TempDir())
	w.Exec(`ROLLBACK`)
	if !hotJournal(path+"-journal", fileSize(t, path+"-journal")) {
		t.Fatal("the journal copied is not hot")
	}
	want := oracle(t, path, `SELECT count(*) FROM k WHERE v = 'changed'`)
	if want != "0" {
		t.Fatalf("sqlite3 counts %s changed rows", want)
	}
	// The file alone holds changed pages: read without its journal, it
	// gives half a transaction.
	alone := filepath.Join(t.TempDir(), "alone.sqlite")
	b, _ := os.ReadFile(path)
	os.WriteFile(alone, b, 0o644)
	if db, err := Open(alone); err == nil {
		changed, _ := column(t, db, "k", `SELECT v FROM k WHERE v = 'changed'`)
		db.Close()
		if len(changed) == 0 {
			t.Fatal("the transaction wrote nothing into the file: the test proves nothing")
		}
	}
	before := fingerprintOf(t, path)
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := column(t, db, "k", `SELECT v FROM k WHERE v = 'changed'`)
	db.Close()
	if err != nil || len(got) != 0 {
		t.Errorf("%d changed rows read, %v; want none (rolled back)", len(got), err)
	}
	if fingerprintOf(t, path) != before {
		t.Errorf("the read changed the database or its directory")
	}
}

// A log or journal beside the database that is not a regular file, or a
// link leading out of its directory, is refused, never opened.
func TestCompanionChecked(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "d.sqlite")
	write(t, path, `CREATE TABLE k(v)`)
	if err := syscall.Mkfifo(path+"-wal", 0o644); err != nil {
		t.Skip("no FIFO here:", err)
	}
	if _, err := Open(path); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("FIFO log: %v", err)
	}
	os.Remove(path + "-wal")
	outside := filepath.Join(t.TempDir(), "elsewhere")
	os.WriteFile(outside, []byte("not a journal"), 0o644)
	os.Symlink(outside, path+"-journal")
	if _, err := Open(path); err == nil || !strings.Contains(err.Error(), "outside the directory") {
		t.Errorf("journal linked outside: %v", err)
	}
}
