package sqlitedb

import (
	"bytes"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
)

// hostileSeed is a small database with what a hostile file holds: tables,
// a view of an endless query, a trigger, a virtual table, a generated
// column, a quoted name.
func hostileSeed(t testing.TB) []byte {
	dir := t.TempDir()
	path := filepath.Join(dir, "seed.sqlite")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		`PRAGMA page_size=512`,
		`CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT)`,
		`INSERT INTO StringIds VALUES (1, 'a'), (2, 'b')`,
		`CREATE VIEW v AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT x FROM c`,
		`CREATE TRIGGER tr AFTER INSERT ON StringIds BEGIN DELETE FROM StringIds; END`,
		`CREATE VIRTUAL TABLE f USING fts5(x)`,
		`CREATE TABLE g(a INT, b AS (a * 2) VIRTUAL)`,
		`INSERT INTO g(a) VALUES (3)`,
		`CREATE TABLE "q""x"(a)`,
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	db.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzDatabase opens damaged copies of a hostile database and reads every
// table it finds: every error is a FormatError naming the file, the file
// is never written, and nothing the schema holds is run (a run of the
// view's endless query would hang the target).
func FuzzDatabase(f *testing.F) {
	readertest.BoundMinimization(f)
	seed := hostileSeed(f)
	f.Add(seed, uint16(0), byte(0))
	f.Add(seed, uint16(100), byte(0xff))
	f.Add(seed, uint16(1500), byte(0x76))
	dir := readertest.FuzzDir(f)
	f.Fuzz(func(t *testing.T, data []byte, at uint16, b byte) {
		if len(data) > 16<<10 {
			return
		}
		data = bytes.Clone(data)
		if int(at) < len(data) {
			data[at] = b
		}
		path := filepath.Join(dir, "in.sqlite")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		check := func(err error) {
			var fe *errs.FormatError
			if err != nil && (!errors.As(err, &fe) || fe.File != path) {
				t.Fatalf("%v (%T), want a FormatError naming the file", err, err)
			}
		}
		db, err := Open(path)
		check(err)
		if err != nil {
			return
		}
		for _, table := range db.Tables() {
			var v any
			check(db.Scan(table, "SELECT rowid FROM "+Ident(table), []any{&v}, func() error { return nil }))
			_, err := db.Count(table)
			check(err)
		}
		db.Close()
		after, _ := os.ReadFile(path)
		if !bytes.Equal(after, data) {
			t.Fatal("the database was written")
		}
	})
}
