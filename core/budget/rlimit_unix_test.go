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

// underLimit, set in the environment, makes TestFloorUnderALimit's child
// limit its own address space before checking.
const underLimit = "MACROSCOPE_BUDGET_UNDER_LIMIT"

// TestFloorUnderALimit: under an address-space limit (ulimit -v), work
// under Floor is measured against what the limit leaves, since past it the
// Go runtime aborts the process rather than waiting for memory. Run in a
// child process, which limits itself.
func TestFloorUnderALimit(t *testing.T) {
	if os.Getenv(underLimit) != "" {
		size := meminfo("/proc/self/status", "VmSize:")
		if size == 0 {
			t.Skip("no VmSize in /proc/self/status")
		}
		room := int64(runtimeReserve + 256<<20)
		lim := syscall.Rlimit{Cur: uint64(size + room), Max: uint64(size + room)}
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, &lim); err != nil {
			t.Fatal(err)
		}
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
		size = meminfo("/proc/self/status", "VmSize:")
		lim = syscall.Rlimit{Cur: uint64(size + runtimeReserve/2), Max: uint64(size + runtimeReserve/2)}
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, &lim); err != nil {
			t.Fatal(err)
		}
		if b := Default(); b != 1 {
			t.Fatalf("default budget %d under a limit used up, want 1 byte", b)
		}
		if err := Check("cores", "work", 1<<10, 0, ""); !errors.As(err, &ae) {
			t.Fatalf("1 KiB under a limit used up: %v", err)
		}
		return
	}
	if limited() {
		t.Skip("this process already has a limit")
	}
	if err := Check("cores", "work", 512<<20, 0, ""); err != nil {
		t.Fatalf("without a limit, under the floor: %v", err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestFloorUnderALimit$", "-test.v")
	cmd.Env = append(os.Environ(), underLimit+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestFloorUnderALimit") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

// onceUnderLimit makes TestOnceResolvesItsDefaultOnce's child limit its
// own address space.
const onceUnderLimit = "MACROSCOPE_BUDGET_ONCE_UNDER_LIMIT"

// TestOnceResolvesItsDefaultOnce: a budget checked as work grows keeps the
// default it resolved at its first check; the memory the work took since
// is not taken off it again (Check, resolved at each call, would refuse
// the same need once the work holds its memory). In a child process
// under an address-space limit, where the available memory is exact.
func TestOnceResolvesItsDefaultOnce(t *testing.T) {
	if os.Getenv(onceUnderLimit) != "" {
		size := meminfo("/proc/self/status", "VmSize:")
		if size == 0 {
			t.Skip("no VmSize in /proc/self/status")
		}
		room := int64(runtimeReserve + 256<<20)
		lim := syscall.Rlimit{Cur: uint64(size + room), Max: uint64(size + room)}
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, &lim); err != nil {
			t.Fatal(err)
		}
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
		return
	}
	if limited() {
		t.Skip("this process already has a limit")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestOnceResolvesItsDefaultOnce$", "-test.v")
	cmd.Env = append(os.Environ(), onceUnderLimit+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestOnceResolvesItsDefaultOnce") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}
