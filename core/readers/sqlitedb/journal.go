package sqlitedb

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/macroscope-hpc/macroscope/core/budget"
	"github.com/macroscope-hpc/macroscope/core/ingest"
)

// A database's latest changes may be outside its file. In WAL mode they
// are in the write-ahead log beside it (name-wal), until a checkpoint
// copies them into the file; a rollback journal (name-journal) left by a
// writer that stopped in the middle of a transaction (a hot journal)
// holds the pages as they were before it, to be put back. SQLite applies
// either when it opens the database; read alone, the file gives rows
// deleted since, or half a transaction, as if they were the whole
// database. Applying them writes (the file, a -shm index beside it),
// which a read must not do to the user's files: the database and its log
// or journal are copied to a private directory, where SQLite applies
// them, and read from there.

// walHeaderSize is the size of a write-ahead log's header: a log no
// longer holds no frame, and nothing to apply.
const walHeaderSize = 32

// pending returns the file to open (path, or its private copy with the
// log or journal applied), and the bytes it and its log hold. size is the
// database's.
func (d *DB) pending(size int64) (open string, total int64, err error) {
	dir := filepath.Dir(d.Path)
	companion := ""
	for _, suffix := range []string{"-wal", "-journal"} {
		p := d.Path + suffix
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		st, err := ingest.CheckIn(dir, p)
		if err != nil {
			return "", 0, d.Errorf("beside the database, %s: %v", filepath.Base(p), err)
		}
		if suffix == "-wal" && st.Size() > walHeaderSize || suffix == "-journal" && hotJournal(p, st.Size()) {
			companion = p
			total = st.Size()
			break
		}
	}
	if companion == "" {
		return d.Path, size, nil
	}
	// The copy needs the room of the database and its log.
	tmp := os.TempDir()
	if free, ok := budget.FreeDisk(tmp); ok && free < size+total+(1<<20) {
		return "", 0, d.Errorf("the database is being written, or its writer stopped: %s holds changes not yet in it (%d bytes), "+
			"and applying them on a copy needs %s free in %s (%s free); "+
			"open it once with sqlite3 to apply them, or wait for the writer to finish",
			filepath.Base(companion), total, budget.Bytes(size+total), tmp, budget.Bytes(free))
	}
	priv, err := os.MkdirTemp("", "macroscope-sqlite-")
	if err != nil {
		return "", 0, d.Errorf("cannot apply %s to a copy: %v", filepath.Base(companion), err)
	}
	d.private = priv
	copyTo := filepath.Join(priv, "db")
	if err := copyFile(d.Path, copyTo); err != nil {
		return "", 0, d.Errorf("cannot apply %s to a copy: %v", filepath.Base(companion), err)
	}
	suffix := companion[len(d.Path):]
	if err := copyFile(companion, copyTo+suffix); err != nil {
		return "", 0, d.Errorf("cannot apply %s to a copy: %v", filepath.Base(companion), err)
	}
	return copyTo, size + total, nil
}

// hotJournal reports whether the rollback journal at path (size bytes)
// may be hot, to be rolled back: SQLite's test, less the lock no writer
// can hold on a copy; a journal emptied or whose header was zeroed
// (journal_mode TRUNCATE, PERSIST) is a finished transaction's.
func hotJournal(path string, size int64) bool {
	if size == 0 {
		return false
	}
	f, err := ingest.OpenFile(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [1]byte
	_, err = io.ReadFull(f, b[:])
	return err == nil && b[0] != 0
}

// copyFile copies the regular file src to dst, which it creates.
func copyFile(src, dst string) error {
	in, err := ingest.OpenFile(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copying %s: %w", filepath.Base(src), err)
	}
	return out.Close()
}
