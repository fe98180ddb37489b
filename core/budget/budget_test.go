package budget

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

func TestMeminfo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "meminfo")
	text := "MemTotal:       32000000 kB\nMemFree:         1000 kB\nMemAvailable:   19541980 kB\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := meminfo(path, "MemAvailable:"); got != 19541980*1024 {
		t.Errorf("MemAvailable: %d", got)
	}
	if got := meminfo(path, "SwapFree:"); got != 0 {
		t.Errorf("absent field: %d", got)
	}
}

func TestAvailable(t *testing.T) {
	if _, err := os.Stat("/proc/meminfo"); err != nil {
		t.Skip("no /proc/meminfo")
	}
	want := meminfo("/proc/meminfo", "MemAvailable:")
	got := Available()
	// The cgroup may lower it, never raise it; the two reads are a few
	// microseconds apart, so allow for the memory moving meanwhile.
	if got <= 0 || got > want+(64<<20) {
		t.Errorf("Available() = %d, MemAvailable %d", got, want)
	}
}

func TestResolveAndCheck(t *testing.T) {
	if Resolve(-1) != 0 || Resolve(1000) != 1000 {
		t.Error("Resolve")
	}
	if err := Check("p", "x", 2000, -1, ""); err != nil {
		t.Errorf("no limit: %v", err)
	}
	if err := Check("p", "x", Floor, 0, ""); err != nil {
		t.Errorf("default budget, under the floor: %v", err)
	}
	if err := Check("p", "x", 1<<60, 0, ""); err == nil {
		t.Error("default budget: an exabyte accepted")
	}
	if err := Check("p", "x", 1000, 1000, ""); err != nil {
		t.Errorf("within: %v", err)
	}
	err := Check("sites", "a synthetic trace of 256000000 cores", 6<<30, 1<<30, "use fewer cores")
	var ae *errs.ArgumentError
	if !errors.As(err, &ae) || ae.Name != "sites" {
		t.Fatalf("got %v", err)
	}
	for _, want := range []string{"256000000 cores needs about 6 GiB of memory, more than the memory budget of 1 GiB", "use fewer cores"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{512: "512 B", 1536: "1.5 KiB", 6 << 30: "6 GiB", 3<<20 + 200<<10: "3.2 MiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestAvailableUnderUlimit: a process limited by ulimit -v sees what the
// limit leaves it, not the machine's memory (a child process, since the
// limit cannot be lifted once lowered).
func TestAvailableUnderUlimit(t *testing.T) {
	if os.Getenv("BUDGET_CHILD") == "1" {
		fmt.Println(Available())
		return
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// 8 GiB of address space: a Go test binary reserves far less.
	cmd := exec.Command("sh", "-c", "ulimit -v 8388608 && exec \"$0\" -test.run '^TestAvailableUnderUlimit$'", exe)
	cmd.Env = append(os.Environ(), "BUDGET_CHILD=1")
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("cannot run under ulimit -v: %v", err)
	}
	first := strings.Fields(string(out))
	if len(first) == 0 {
		t.Fatalf("child printed %q", out)
	}
	n, err := strconv.ParseInt(first[0], 10, 64)
	if err != nil || n <= 0 || n > 8<<30 {
		t.Errorf("Available() under ulimit -v 8 GiB = %q", first[0])
	}
}
