package nsys

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Strings that are not UTF-8 (a tool writing Latin-1, a damaged string
// table) are read with their invalid bytes shown as U+FFFD, and the read
// says so: never a trace complete in appearance whose tables then fail.
func TestInvalidUTF8Names(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "tiny.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "latin1.sqlite")
	os.WriteFile(path, data, 0o644)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE StringIds SET value = value || CAST(x'e9ff' AS TEXT)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	tr := trace.New()
	notes := &trace.Notes{}
	if err := Read(path, tr, trace.ReadOptions{Notes: notes}); err != nil {
		t.Fatal(err)
	}
	readertest.CheckReplacedText(t, tr, notes, "\uFFFD")
}

// An export of a run that recorded nothing (its tables there, without a
// row) is an error saying it holds no event, not a trace without
// duration that every analysis then refuses.
func TestEmptyExport(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "tiny.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "empty.sqlite")
	os.WriteFile(path, data, 0o644)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table'`)
	var tables []string
	for rows.Next() {
		var n string
		rows.Scan(&n)
		tables = append(tables, n)
	}
	rows.Close()
	for _, tb := range tables {
		if !isMetadata(tb) {
			if _, err := db.Exec(`DELETE FROM "` + tb + `"`); err != nil {
				t.Fatal(err)
			}
		}
	}
	db.Close()
	err = Read(path, trace.New(), trace.ReadOptions{})
	if err == nil || !strings.Contains(err.Error(), "the export holds no event") || !strings.Contains(err.Error(), path) {
		t.Errorf("%v", err)
	}
}
