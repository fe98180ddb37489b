package sqlitedb

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestOpenSchema(t *testing.T) {
	if _, err := exec.LookPath("sqlite3"); err != nil {
		t.Skip("sqlite3 is not installed: it writes the test database")
	}
	path := filepath.Join(t.TempDir(), "a b.sqlite")
	cmd := exec.Command("sqlite3", path, "CREATE TABLE k(start INT, name TEXT); INSERT INTO k VALUES (1, 'x'), (2, 'y');")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sqlite3: %v\n%s", err, out)
	}
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if !db.HasTable("k") || !db.HasColumn("k", "name") || db.HasColumn("k", "end") || db.HasTable("nope") {
		t.Errorf("schema: %v", db.tables)
	}
	var n int
	if err := db.QueryRow(`SELECT sum(start) FROM k`).Scan(&n); err != nil || n != 3 {
		t.Errorf("sum = %d, %v", n, err)
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
	// A database header followed by garbage.
	path := filepath.Join(dir, "garbage")
	os.WriteFile(path, append([]byte(Magic), make([]byte, 200)...), 0o644)
	if db, err := Open(path); err == nil {
		db.Close()
		t.Errorf("garbage: opened")
	}
}
