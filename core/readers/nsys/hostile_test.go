package nsys

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// An export whose StringIds is a view running forever, or whose activity
// table is a view of a billion rows of a gigabyte each, is refused at
// once, naming the file and what the table is: reading a database never
// runs the SQL it stores.
func TestHostileSchema(t *testing.T) {
	cases := map[string][]string{
		"StringIds is a view": {
			`CREATE VIEW StringIds AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT x AS id, 'v' AS value FROM c`,
			`CREATE TABLE NVTX_EVENTS(start INT, end INT, eventType INT, text TEXT, globalTid INT)`,
		},
		"is a view, not a table": {
			`CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT)`,
			`CREATE TABLE TARGET_INFO_SESSION_START_TIME(utcEpochNs INT)`,
			`CREATE VIEW CUPTI_ACTIVITY_KIND_RUNTIME AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 1000000000) ` +
				`SELECT x AS start, x + 1 AS end, 1 AS globalTid, x AS correlationId, randomblob(1000000000) AS nameId FROM c`,
		},
	}
	for want, stmts := range cases {
		path := filepath.Join(t.TempDir(), "hostile.sqlite")
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range stmts {
			if _, err := db.Exec(s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
		db.Close()
		err = Read(path, trace.New(), trace.ReadOptions{})
		var fe *errs.FormatError
		if want == "StringIds is a view" {
			want = `"StringIds" is a view`
		}
		if !errors.As(err, &fe) || fe.File != path || !strings.Contains(err.Error(), want) {
			t.Errorf("%v, want a FormatError saying %q", err, want)
		}
	}
}

// Reading an export changes nothing: not its bytes, not its time of
// modification, no file beside it.
func TestReadWritesNothing(t *testing.T) {
	path := filepath.Join("testdata", "tiny.sqlite")
	before, mtime, listing := fingerprint(t, path)
	if err := Read(path, trace.New(), trace.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	after, mtime2, listing2 := fingerprint(t, path)
	if before != after || mtime != mtime2 || listing != listing2 {
		t.Errorf("the read changed the export or its directory")
	}
}

func fingerprint(t *testing.T, path string) ([32]byte, int64, string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	entries, _ := os.ReadDir(filepath.Dir(path))
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return sha256.Sum256(b), st.ModTime().UnixNano(), strings.Join(names, ",")
}

// Damaged copies of tiny.sqlite: values of the wrong type, NULLs, ids
// that name nothing, triggers, a header announcing 2^31 pages, pages
// overwritten. Each read ends with a FormatError naming the file (and the
// table and row when a value is at fault), or reads with the rows it
// cannot use skipped and counted; none panics or runs the file's SQL.
func TestDamagedExport(t *testing.T) {
	tiny, err := os.ReadFile(filepath.Join("testdata", "tiny.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	// Columns declared NOT NULL in tiny.sqlite lose the constraint.
	loose := func(table string) []string {
		return []string{"CREATE TABLE tmp AS SELECT * FROM " + table, "DROP TABLE " + table, "ALTER TABLE tmp RENAME TO " + table}
	}
	cases := []struct {
		name  string
		stmts []string
		patch func(b []byte)
		err   string // "" the read succeeds, with the warning skip
		skip  string
	}{
		{name: "text in an integer column", stmts: []string{"UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET end = 'zz'"},
			err: `table CUPTI_ACTIVITY_KIND_RUNTIME, row 1: sql: Scan error on column index 1, name "end"`},
		{name: "a blob time", stmts: []string{"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = x'00112233'"},
			err: `table CUPTI_ACTIVITY_KIND_KERNEL, row 1: sql: Scan error on column index 0, name "start"`},
		{name: "an infinite time", stmts: []string{"UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET start = 9e999"},
			err: `table CUPTI_ACTIVITY_KIND_RUNTIME, row 1`},
		{name: "NULL times and threads", stmts: append(append(loose("CUPTI_ACTIVITY_KIND_KERNEL"), loose("CUPTI_ACTIVITY_KIND_RUNTIME")...),
			"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = NULL, end = NULL", "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET globalTid = NULL, nameId = NULL"),
			skip: "skipped 5 rows of CUPTI_ACTIVITY_KIND_KERNEL with a null time or an end before the start"},
		{name: "ids naming nothing", stmts: []string{"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET shortName = 999999999, deviceId = -5, streamId = 9223372036854775807",
			"UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET nameId = -1"}},
		{name: "ends before starts", stmts: []string{"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = start - 1000000000"},
			skip: "skipped 5 rows of CUPTI_ACTIVITY_KIND_KERNEL with a null time or an end before the start"},
		{name: "a trigger", stmts: []string{"CREATE TRIGGER t AFTER INSERT ON StringIds BEGIN INSERT INTO StringIds VALUES (new.id + 1, 'x'); END"}},
		{name: "2^31 pages announced", patch: func(b []byte) { copy(b[28:], []byte{0x7f, 0xff, 0xff, 0xff}) }, err: "malformed"},
		{name: "the schema page overwritten", patch: func(b []byte) { copy(b[100:], bytes.Repeat([]byte{0xff}, 200)) }, err: "cannot read the schema"},
		{name: "a table's page overwritten", patch: func(b []byte) { copy(b[4096:], bytes.Repeat([]byte{0xff}, 200)) }, err: "malformed"},
		{name: "cut", patch: func(b []byte) {}, err: "malformed"},
	}
	for _, c := range cases {
		path := filepath.Join(t.TempDir(), "damaged.sqlite")
		data := bytes.Clone(tiny)
		if c.name == "cut" {
			data = data[:6000]
		}
		os.WriteFile(path, data, 0o644)
		if len(c.stmts) > 0 {
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range c.stmts {
				if _, err := db.Exec(s); err != nil {
					t.Fatalf("%s: %s: %v", c.name, s, err)
				}
			}
			db.Close()
		}
		if c.patch != nil {
			b, _ := os.ReadFile(path)
			c.patch(b)
			os.WriteFile(path, b, 0o644)
		}
		notes := &trace.Notes{}
		err := Read(path, trace.New(), trace.ReadOptions{Notes: notes})
		if c.err != "" {
			var fe *errs.FormatError
			if !errors.As(err, &fe) || fe.File != path || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %v, want a FormatError of the file saying %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if c.skip != "" && !strings.Contains(strings.Join(notes.Messages(), "\n"), c.skip) {
			t.Errorf("%s: notes %q, want %q", c.name, notes.Messages(), c.skip)
		}
	}
}
