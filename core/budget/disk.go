package budget

import (
	"path/filepath"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// CheckDisk returns an error when a file about to be written at path,
// estimated at least need bytes, cannot fit in the free space of its file
// system: the work would fail at the end, after minutes, with a full disk
// for everyone. Callers pass a low estimate, so that only what surely
// cannot fit is refused.
func CheckDisk(param, what, path string, need int64, advice string) error {
	free, ok := FreeDisk(filepath.Dir(path))
	if !ok || need <= free {
		return nil
	}
	msg := what + " needs at least " + Bytes(need) + " of disk, more than the " + Bytes(free) + " free where it goes (" + filepath.Dir(path) + ")"
	if advice != "" {
		msg += "; " + advice
	}
	return errs.Argument(param, "%s", msg)
}
