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
