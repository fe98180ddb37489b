package ingest_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
)

func TestOpenChecks(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "outside")
	os.WriteFile(outside, []byte("not yours\n"), 0o644)
	file := filepath.Join(dir, "a.trace")
	os.WriteFile(file, []byte("data\n"), 0o644)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.Symlink(file, filepath.Join(dir, "sub", "inside-link"))
	os.Symlink(outside, filepath.Join(dir, "out-link"))
	os.Symlink("../..", filepath.Join(dir, "sub", "up"))
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFO here:", err)
	}

	// The named file: regular files and directories, nothing else; a FIFO
	// without a writer is refused at once, not waited on.
	if f, err := ingest.OpenFile(file); err != nil {
		t.Errorf("OpenFile(regular): %v", err)
	} else {
		b := make([]byte, 5)
		if n, err := f.Read(b); n != 5 || err != nil {
			t.Errorf("read %d, %v", n, err)
		}
		f.Close()
	}
	for _, p := range []string{fifo, "/dev/zero", "/dev/null"} {
		_, err := ingest.OpenFile(p)
		var fe *errs.FormatError
		if !errors.As(err, &fe) || fe.File != p || !errors.Is(err, ingest.ErrNotRegular) {
			t.Errorf("OpenFile(%s): %v", p, err)
		}
	}

	// The other files of a trace: inside the directory, links resolved.
	if f, err := ingest.OpenIn(dir, filepath.Join(dir, "sub", "inside-link")); err != nil {
		t.Errorf("a link inside: %v", err)
	} else {
		f.Close()
	}
	for _, p := range []string{
		filepath.Join(dir, "out-link"),
		filepath.Join(dir, "sub", "up", filepath.Base(filepath.Dir(outside)), "outside"),
		filepath.Join(dir, "..", filepath.Base(filepath.Dir(outside)), "outside"),
		outside,
	} {
		_, err := ingest.OpenIn(dir, p)
		var fe *errs.FormatError
		if !errors.As(err, &fe) || !errors.Is(err, ingest.ErrOutside) || strings.Contains(err.Error(), "not yours") {
			t.Errorf("OpenIn(%s): %v, want ErrOutside", p, err)
		}
		if _, err := ingest.CheckIn(dir, p); !errors.Is(err, ingest.ErrOutside) {
			t.Errorf("CheckIn(%s): %v, want ErrOutside", p, err)
		}
	}
	if _, err := ingest.OpenIn(dir, fifo); !errors.Is(err, ingest.ErrNotRegular) {
		t.Errorf("OpenIn(fifo): %v", err)
	}
	if _, err := ingest.CheckIn(dir, fifo); !errors.Is(err, ingest.ErrNotRegular) {
		t.Errorf("CheckIn(fifo): %v", err)
	}
	// Missing: the system's error, naming the path, which readers tell.
	missing := filepath.Join(dir, "sub", "missing")
	var pe *fs.PathError
	if _, err := ingest.OpenIn(dir, missing); !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) || pe.Path != missing {
		t.Errorf("OpenIn(missing): %v", err)
	}
	if st, err := ingest.CheckIn(dir, filepath.Join(dir, "sub")); err != nil || !st.IsDir() {
		t.Errorf("CheckIn(directory): %v", err)
	}

	// ReadFileIn: the size checked before reading.
	if b, err := ingest.ReadFileIn(dir, file, 5); err != nil || string(b) != "data\n" {
		t.Errorf("ReadFileIn = %q, %v", b, err)
	}
	if _, err := ingest.ReadFileIn(dir, file, 4); err == nil || !strings.Contains(err.Error(), "more than the 4") {
		t.Errorf("ReadFileIn past its limit: %v", err)
	}
}

// TestReadFileInAsksTheBudget: a file read whole (an OTF2 archive's
// definitions, an HPCToolkit meta.db) larger than the memory budget is
// refused, naming it, before its buffer is allocated. Before, a sparse
// definitions file of a terabyte was allocated whole: the runtime aborts
// the process on such an allocation, which no caller can recover from.
func TestReadFileInAsksTheBudget(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "traces.def")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 40); err != nil {
		f.Close()
		t.Skip("no sparse file of a terabyte here:", err)
	}
	f.Close()
	_, err = ingest.ReadFileIn(dir, path, 0)
	var fe *errs.FormatError
	if !errors.As(err, &fe) || fe.File != path || !strings.Contains(err.Error(), "is 1099511627776 bytes, read whole") ||
		!strings.Contains(err.Error(), "more than the memory a read may take") {
		t.Errorf("got %v, want a FormatError naming %s and the memory budget", err, path)
	}
	// Under the budget's floor, a file is read as before.
	small := filepath.Join(dir, "small.def")
	os.WriteFile(small, []byte("defs"), 0o644)
	if b, err := ingest.ReadFileIn(dir, small, 0); err != nil || string(b) != "defs" {
		t.Errorf("small file: %q, %v", b, err)
	}
}
