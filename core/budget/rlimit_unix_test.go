//go:build linux

package budget

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// childUnderLimit, set in the environment to a test's name, makes that
// test, run again in a child process, limit its own address space.
const childUnderLimit = "MACROSCOPE_BUDGET_UNDER_LIMIT"

// underALimit runs body in a child process of the test binary whose
// address space is limited to what it uses plus runtimeReserve and room
// (a limit cannot be lifted once lowered); the test passes if the child's
// does. In a process that already has a limit, the test is skipped.
func underALimit(t *testing.T, room int64, body func(t *testing.T)) {
	t.Helper()
	if os.Getenv(childUnderLimit) == t.Name() {
		size := meminfo("/proc/self/status", "VmSize:")
		if size == 0 {
			t.Skip("no VmSize in /proc/self/status")
		}
		limit := uint64(size + runtimeReserve + room)
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
			t.Fatal(err)
		}
		body(t)
		return
	}
	if limited() {
		t.Skip("this process already has a limit")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v")
	cmd.Env = append(os.Environ(), childUnderLimit+"="+t.Name())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

// TestFloorUnderALimit: under an address-space limit (ulimit -v), work
// under Floor is measured against what the limit leaves, since past it the
// Go runtime aborts the process rather than waiting for memory.
func TestFloorUnderALimit(t *testing.T) {
	if !limited() {
		if err := Check("cores", "work", 512<<20, 0, ""); err != nil {
			t.Fatalf("without a limit, under the floor: %v", err)
		}
	}
	underALimit(t, 256<<20, func(t *testing.T) {
		if !limited() {
			t.Fatal("limited() is false under RLIMIT_AS")
		}
		// Half of the 256 MiB left past the runtime's reserve at most: 512
		// MiB is refused, 1 MiB not.
		var ae *errs.ArgumentError
		if err := Check("cores", "work", 512<<20, 0, ""); !errors.As(err, &ae) || !strings.Contains(err.Error(), "work needs about 512 MiB of memory, more than the memory budget of") {
			t.Fatalf("512 MiB under a limit leaving 256 MiB: %v", err)
		}
		if err := Check("cores", "work", 1<<20, 0, ""); err != nil {
			t.Fatalf("1 MiB: %v", err)
		}
		// A limit all but used up refuses everything.
		size := meminfo("/proc/self/status", "VmSize:")
		lim := syscall.Rlimit{Cur: uint64(size + runtimeReserve/2), Max: uint64(size + runtimeReserve/2)}
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, &lim); err != nil {
			t.Fatal(err)
		}
		if b := Default(); b != 1 {
			t.Fatalf("default budget %d under a limit used up, want 1 byte", b)
		}
		if err := Check("cores", "work", 1<<10, 0, ""); !errors.As(err, &ae) {
			t.Fatalf("1 KiB under a limit used up: %v", err)
		}
	})
}

// TestOnceResolvesItsDefaultOnce: a budget checked as work grows keeps the
// default it resolved at its first check; the memory the work took since
// is not taken off it again (Check, resolved at each call, would refuse
// the same need once the work holds its memory). Under an address-space
// limit, where the available memory is exact.
func TestOnceResolvesItsDefaultOnce(t *testing.T) {
	underALimit(t, 256<<20, func(t *testing.T) {
		var o Once
		if err := o.Check("slices", "columns", 1<<20, ""); err != nil {
			t.Fatalf("1 MiB: %v", err)
		}
		// The work takes 96 MiB of the 256 left: half of what is left
		// now, 80 MiB, is under the 96 MiB it needs, the 128 MiB fixed
		// at the first check is not.
		held := make([]byte, 96<<20)
		if err := Check("slices", "columns", 96<<20, 0, ""); err == nil {
			t.Fatal("Check accepted 96 MiB where half of the 160 MiB left is 80 MiB")
		}
		if err := o.Check("slices", "columns", 96<<20, ""); err != nil {
			t.Fatalf("Once, 96 MiB within the 128 MiB of its first check: %v", err)
		}
		if err := o.Check("slices", "columns", 200<<20, ""); err == nil {
			t.Fatal("Once: 200 MiB within its 128 MiB")
		}
		held[len(held)-1] = 1
	})
}
