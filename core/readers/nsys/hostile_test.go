package nsys

import (
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
