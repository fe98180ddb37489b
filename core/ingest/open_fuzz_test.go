package ingest_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
)

// makeFuzzTree makes a trace directory with links inside, links leading
// out, a FIFO and a file outside, once per fuzzing process (removed with
// it); it returns the directory and its path with links resolved.
func makeFuzzTree(f *testing.F) (string, string) {
	base := f.TempDir()
	dir := filepath.Join(base, "trace")
	os.MkdirAll(filepath.Join(dir, "sub", "deep"), 0o755)
	os.WriteFile(filepath.Join(base, "outside"), []byte("outside\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.def"), []byte("a\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "sub", "b.evt"), []byte("b\n"), 0o644)
	os.Symlink("../a.def", filepath.Join(dir, "sub", "in"))
	os.Symlink(filepath.Join(dir, "a.def"), filepath.Join(dir, "abs-in"))
	os.Symlink("../outside", filepath.Join(dir, "out"))
	os.Symlink("../..", filepath.Join(dir, "sub", "deep", "up"))
	os.Symlink(base, filepath.Join(dir, "base"))
	os.Symlink("loop", filepath.Join(dir, "loop"))
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		f.Skip(err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		f.Fatal(err)
	}
	return dir, real
}

// FuzzOpenIn checks the door of the files a reader opens besides the one
// named: whatever the path (its "..", its links), a file OpenIn opens is
// a regular file or directory inside the trace's directory, links
// resolved; every refusal is a FormatError naming the path, or the
// system's error on a path that does not exist; a FIFO is never opened.
func FuzzOpenIn(f *testing.F) {
	readertest.BoundMinimization(f)
	for _, p := range []string{"a.def", "sub/b.evt", "sub/in", "abs-in", "out", "sub/deep/up/outside", "base/outside",
		"../outside", "loop", "fifo", "sub/../a.def", "/etc/passwd", "sub/deep/up/trace/a.def", ""} {
		f.Add(p)
	}
	dir, real := makeFuzzTree(f)
	f.Fuzz(func(t *testing.T, rel string) {
		if len(rel) > 256 || strings.ContainsRune(rel, 0) {
			return
		}
		path := filepath.Join(dir, rel)
		if filepath.IsAbs(rel) {
			path = rel
		}
		file, err := ingest.OpenIn(dir, path)
		if err != nil {
			var fe *errs.FormatError
			var pe *fs.PathError
			if !errors.As(err, &fe) && !errors.As(err, &pe) {
				t.Fatalf("%q: %v (%T)", rel, err, err)
			}
			if fe != nil && fe.File != path {
				t.Fatalf("%q: the error names %q", rel, fe.File)
			}
			return
		}
		defer file.Close()
		st, _ := file.Stat()
		if !st.Mode().IsRegular() && !st.IsDir() {
			t.Fatalf("%q: opened a %v", rel, st.Mode())
		}
		opened, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(file.Fd())))
		if err != nil {
			return // not Linux
		}
		if opened != real && !strings.HasPrefix(opened, real+string(filepath.Separator)) {
			t.Fatalf("%q: opened %s, outside %s", rel, opened, real)
		}
	})
}
