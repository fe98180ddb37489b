//go:build unix

package budget

import "syscall"

// rlimitLeft returns what the process's address-space and data limits
// (ulimit -v, ulimit -d) leave it: an allocation past them fails, and the
// Go runtime then aborts the process. ok is false when neither is set.
func rlimitLeft() (left int64, ok bool) {
	for _, l := range []struct {
		resource int
		used     string // the /proc/self/status field the limit bounds
	}{{syscall.RLIMIT_AS, "VmSize:"}, {syscall.RLIMIT_DATA, "VmData:"}} {
		var r syscall.Rlimit
		if err := syscall.Getrlimit(l.resource, &r); err != nil || r.Cur >= 1<<62 { // RLIM_INFINITY is all ones
			continue
		}
		n := max(int64(r.Cur)-meminfo("/proc/self/status", l.used), 0)
		if !ok || n < left {
			left, ok = n, true
		}
	}
	return left, ok
}

// limited tells whether the process has an address-space or data limit
// (a system call each, no file read).
func limited() bool {
	for _, res := range []int{syscall.RLIMIT_AS, syscall.RLIMIT_DATA} {
		var r syscall.Rlimit
		if err := syscall.Getrlimit(res, &r); err == nil && r.Cur < 1<<62 {
			return true
		}
	}
	return false
}
