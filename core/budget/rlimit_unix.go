//go:build unix

package budget

import "syscall"

// runtimeReserve is the address space kept out of what a limit leaves for
// the Go runtime's own growth: it maps its heap in arenas of 64 MiB and
// each new thread's stack, so a heap growing by a few megabytes may take
// 64 MiB more of address space, and past the limit the runtime aborts.
// (Measured: synthetic traces estimated at 31 MiB, allowed by limits that
// left 64 and 100 MiB, aborted the interpreter now and then.)
const runtimeReserve = 256 << 20

// rlimitLeft returns what the process's address-space and data limits
// (ulimit -v, ulimit -d) leave it, less runtimeReserve: an allocation past
// them fails, and the Go runtime then aborts the process. ok is false when
// neither is set.
func rlimitLeft() (left int64, ok bool) {
	for _, l := range []struct {
		resource int
		used     string // the /proc/self/status field the limit bounds
	}{{syscall.RLIMIT_AS, "VmSize:"}, {syscall.RLIMIT_DATA, "VmData:"}} {
		var r syscall.Rlimit
		if err := syscall.Getrlimit(l.resource, &r); err != nil || r.Cur >= 1<<62 { // RLIM_INFINITY is all ones
			continue
		}
		n := max(int64(r.Cur)-meminfo("/proc/self/status", l.used)-runtimeReserve, 0)
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
