package ingest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/macroscope-hpc/macroscope/core/budget"
	"github.com/macroscope-hpc/macroscope/core/errs"
)

// Every file a reader opens goes through this file's functions: the one
// the user named (OpenFile, CheckPath) and the others a trace is made of,
// found beside it or named inside it (an OTF2 archive's definitions and
// events, a Paraver trace's .pcf and .row, an HPCToolkit database's
// traces and profiles, a Pajé trace's included files, a dump's parts:
// OpenIn, CheckIn, ReadFileIn). They refuse
//
//   - what is not a regular file (or, when asked, a directory): a FIFO
//     blocks its reader forever, a device never ends. Files are opened
//     without blocking (O_NONBLOCK) and checked once open, so that a FIFO
//     put in place of a file between a check and the open still does not
//     block;
//   - for the files other than the named one, a path leading outside the
//     directory the user named, by its own ".." or through a symbolic
//     link: a trace's files name their companions, and a file crafted to
//     name /etc/passwd or a link placed in a database must not make the
//     reader open, and quote, what the user never pointed at. Symbolic
//     links that stay inside are followed.
//
// Errors are FormatErrors naming the file and the reason; a file that
// does not exist gives the *fs.PathError of the system (fs.ErrNotExist),
// which readers tell from the others (a missing part marks a trace
// incomplete).

// ErrNotRegular is the cause of the error on a path that is neither a
// regular file nor a directory.
var ErrNotRegular = errors.New("not a regular file")

// ErrOutside is the cause of the error on a path that leads outside the
// directory of the trace.
var ErrOutside = errors.New("outside the directory of the trace")

// OpenFile opens the file at path, the one the user named, for reading:
// a regular file (or a directory, as os.Open does), never a FIFO, a
// socket or a device.
func OpenFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlocking, 0)
	if err != nil {
		return nil, err
	}
	return checkOpened(f, path)
}

// checkOpened refuses f, opened without blocking, unless it is a regular
// file or a directory; it puts a regular file back in blocking mode.
func checkOpened(f *os.File, path string) (*os.File, error) {
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() && !st.IsDir() {
		f.Close()
		return nil, notRegular(path, st.Mode())
	}
	if st.Mode().IsRegular() {
		// Regular files ignore O_NONBLOCK; clear it all the same, for the
		// file's later users.
		if err := setBlocking(f); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}

func notRegular(path string, m os.FileMode) error {
	return &errs.FormatError{File: path, Err: fmt.Errorf("is %s, %w: only files and directories are read", kindOf(m), ErrNotRegular)}
}

// DirOf returns the directory whose files make the trace at path: path
// itself if it is a directory, else the directory holding it. The files a
// reader opens besides the one named must stay in it (OpenIn).
func DirOf(path string) string {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return path
	}
	return filepath.Dir(path)
}

// inside returns path relative to dir, refusing a path that leaves it by
// its own "..": the file may not exist, or be a link, CheckIn's open
// resolves that.
func inside(dir, path string) (string, error) {
	ad, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	ap, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(ad, ap)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", &errs.FormatError{File: path, Err: fmt.Errorf("is %w (%s): not read", ErrOutside, dir)}
	}
	return rel, nil
}

// resolve returns the path path leads to, symbolic links resolved,
// refusing one that leaves dir: by its own "..", or through a link, be
// it relative or absolute (a link to another file of dir is followed).
// A path that does not exist gives the system's *fs.PathError naming
// path.
func resolve(dir, path string) (string, error) {
	if _, err := inside(dir, path); err != nil {
		return "", err
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return "", &fs.PathError{Op: "open", Path: path, Err: pe.Err}
		}
		// A link that loops (filepath: "too many links").
		return "", &errs.FormatError{File: path, Err: fmt.Errorf("its symbolic links cannot be resolved (%v): not read", err)}
	}
	if _, err := inside(realDir, real); err != nil {
		return "", &errs.FormatError{File: path, Err: fmt.Errorf("is a symbolic link to %s, %w (%s): not read", real, ErrOutside, dir)}
	}
	return real, nil
}

// OpenIn opens the file at path, a part of the trace whose directory is
// dir (see DirOf), for reading: path must stay inside dir, symbolic links
// resolved, and be a regular file or a directory. An empty dir checks the
// file only (OpenFile).
func OpenIn(dir, path string) (*os.File, error) {
	if dir == "" {
		return OpenFile(path)
	}
	real, err := resolve(dir, path)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(real, os.O_RDONLY|nonBlocking, 0)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, &fs.PathError{Op: "open", Path: path, Err: pe.Err}
		}
		return nil, err
	}
	return checkOpened(f, path)
}

// CheckIn returns what path is, a part of the trace whose directory is
// dir, with OpenIn's checks: inside dir, a regular file or a directory.
func CheckIn(dir, path string) (os.FileInfo, error) {
	if dir == "" {
		return CheckPath(path)
	}
	real, err := resolve(dir, path)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(real)
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: path, Err: errors.Unwrap(err)}
	}
	if !st.Mode().IsRegular() && !st.IsDir() {
		return nil, notRegular(path, st.Mode())
	}
	return st, nil
}

// ReadFileIn reads the whole file at path, a part of the trace whose
// directory is dir, with OpenIn's checks, refusing a file of more than
// limit bytes (limit <= 0: no limit) before reading it.
func ReadFileIn(dir, path string, limit int64) ([]byte, error) {
	return ReadFileHeld(dir, path, limit, nil)
}

// ReadFileHeld is ReadFileIn for a read under a memory budget: before
// the file's buffer is allocated, hold (a trace.ReadOptions.Held; nil:
// none) is told of its size, and its refusal (the user's memory_budget
// exceeded) is returned, naming the file. The caller tells hold when it
// drops the buffer.
func ReadFileHeld(dir, path string, limit int64, hold func(int64) error) ([]byte, error) {
	f, err := OpenIn(dir, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: syscall.EISDIR}
	}
	if limit > 0 && st.Size() > limit {
		return nil, &errs.FormatError{File: path, Err: fmt.Errorf("is %d bytes, more than the %d this file may hold", st.Size(), limit)}
	}
	// The file is held whole: past budget.Floor, its size is measured
	// against the default budget (a share of the memory available) first.
	// A sparse file of a terabyte (an OTF2 archive's definitions, an
	// HPCToolkit meta.db) would have the runtime abort the process, which
	// no caller can recover from.
	if size := st.Size(); size > budget.Floor {
		if limit := budget.Default(); limit > 0 && size > limit {
			return nil, &errs.FormatError{File: path, Err: fmt.Errorf("is %d bytes, read whole: more than the memory a read may take (%s, of %s available)",
				size, budget.Bytes(limit), budget.Bytes(budget.Available()))}
		}
	}
	if hold != nil {
		if err := hold(st.Size()); err != nil {
			// The budget's error, wrapped to name the file (budget.Named).
			return nil, &errs.FormatError{File: path, Err: err}
		}
	}
	buf := make([]byte, st.Size())
	n, err := io.ReadFull(f, buf)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil // the file shrank since: what it holds now
	}
	return buf[:n], err
}
