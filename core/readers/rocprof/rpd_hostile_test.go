package rocprof

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

// An RPD file whose rocpd_api is a view (here, of an endless recursive
// query) is refused at once, naming the file and the view; one whose
// rocpd_string holds a value past the size limit fails on it.
func TestRPDHostile(t *testing.T) {
	tables := []string{
		`CREATE TABLE rocpd_op(id INTEGER PRIMARY KEY, gpuId INT, queueId INT, start INT, "end" INT, description_id INT, opType_id INT)`,
		`CREATE TABLE rocpd_string(id INTEGER PRIMARY KEY, string TEXT)`,
	}
	for want, stmts := range map[string][]string{
		`"rocpd_api" is a view`: append(tables, `CREATE VIEW rocpd_api AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) `+
			`SELECT x AS id, 1 AS pid, 1 AS tid, x AS start, x AS "end", 1 AS apiName_id, 1 AS args_id FROM c`),
		"too big": append(tables,
			`CREATE TABLE rocpd_api(id INTEGER PRIMARY KEY, pid INT, tid INT, start INT, "end" INT, apiName_id INT, args_id INT)`,
			`INSERT INTO rocpd_string VALUES (1, CAST(zeroblob(17000000) AS TEXT))`),
	} {
		path := filepath.Join(t.TempDir(), "hostile.rpd")
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
		err = readRPD(path, trace.New(), trace.ReadOptions{})
		var fe *errs.FormatError
		if !errors.As(err, &fe) || fe.File != path || !strings.Contains(err.Error(), want) {
			t.Errorf("%v, want a FormatError saying %q", err, want)
		}
	}
}

// Reading the corpus's RPD file changes nothing: its bytes, its time of
// modification, the files beside it.
func TestRPDWritesNothing(t *testing.T) {
	path := corpus(t, "rpd", "matmul_result.rpd")
	state := func() string {
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
		sum := sha256.Sum256(b)
		return string(sum[:]) + st.ModTime().String() + strings.Join(names, ",")
	}
	before := state()
	if err := readRPD(path, trace.New(), trace.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	if state() != before {
		t.Error("the read changed the database or its directory")
	}
}
