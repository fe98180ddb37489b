package budget

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// DefaultShare is the share of the available memory a piece of work may
// take by default: the rest is left to the interpreter, the user's other
// objects and the copies a conversion to pandas makes.
const DefaultShare = 0.5

// Available returns the bytes of memory the process may still take:
// MemAvailable of /proc/meminfo, or less when the cgroup's limit leaves
// less (cgroup v2 memory.max, v1 memory.limit_in_bytes, minus what the
// group uses) or the process's own limits do (ulimit -v, -d). It returns
// 0 when it cannot tell (not Linux, no limit).
func Available() int64 {
	avail := meminfo("/proc/meminfo", "MemAvailable:")
	for _, g := range []struct{ limit, usage string }{
		{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"},
		{"/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"},
	} {
		limit, ok := number(g.limit)
		if !ok || limit <= 0 || limit >= 1<<60 { // "max", or the no-limit value
			continue
		}
		usage, _ := number(g.usage)
		if left := max(limit-usage, 0); avail == 0 || left < avail {
			avail = left
		}
	}
	if left, ok := rlimitLeft(); ok && (avail == 0 || left < avail) {
		avail = max(left, 1) // a limit all used up still is one
	}
	return avail
}

// meminfo returns the field of /proc/meminfo named key, in bytes.
func meminfo(path, key string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.HasPrefix(line, []byte(key)) {
			continue
		}
		fields := strings.Fields(string(line[len(key):]))
		if len(fields) == 0 {
			return 0
		}
		n, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0
		}
		if len(fields) > 1 && fields[1] == "kB" {
			n *= 1024
		}
		return n
	}
	return 0
}

// number reads a file holding one integer ("max" and errors: false).
func number(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return n, err == nil
}

// Default returns the default budget: DefaultShare of Available, at least
// a byte (nothing available still is a limit); 0 (no limit) when the
// available memory is unknown.
func Default() int64 {
	avail := Available()
	if avail <= 0 {
		return 0
	}
	return max(int64(float64(avail)*DefaultShare), 1)
}

// Resolve returns the budget a user's setting means: 0 the default (see
// Default), a negative value no limit (0), a positive value itself.
func Resolve(setting int64) int64 {
	switch {
	case setting == 0:
		return Default()
	case setting < 0:
		return 0
	}
	return setting
}

// Floor is what the default budget always grants: work that needs less
// is not measured against the available memory (which would cost a look
// at /proc for every small model), unless the process has a limit of its
// own (ulimit -v, -d): there an allocation past the limit does not wait
// for the kernel to reclaim memory, it fails, and the Go runtime aborts
// the process.
const Floor = 1 << 30

// Check returns an error when need bytes exceed the budget a user's
// setting means (see Resolve; with the default, work under Floor always
// passes): an *errs.ArgumentError on param, saying what needs the memory,
// the estimate, the limit and how to proceed (advice, may be empty).
func Check(param, what string, need, setting int64, advice string) error {
	if setting < 0 || setting == 0 && need <= Floor && !limited() {
		return nil
	}
	return exceeds(param, what, need, Resolve(setting), advice)
}

// Once is a budget checked again and again as work grows (a model's
// arrays while a trace is read), whose default is resolved once, at its
// first check that needs it: the memory available later is what the
// work already took less, and counting what it holds in the need and
// again in the limit would refuse work that fits. The zero Once is the
// default budget.
type Once struct {
	// Setting is the user's (see Resolve).
	Setting  int64
	limit    int64
	resolved bool
}

// Check is Check with the Once's setting, resolved at the first call
// that needs it.
func (o *Once) Check(param, what string, need int64, advice string) error {
	if o.Setting < 0 || o.Setting == 0 && need <= Floor && !limited() {
		return nil
	}
	if !o.resolved {
		o.limit, o.resolved = Resolve(o.Setting), true
	}
	return exceeds(param, what, need, o.limit, advice)
}

// exceeds returns Check's error when need exceeds limit (0: no limit).
func exceeds(param, what string, need, limit int64, advice string) error {
	if limit <= 0 || need <= limit {
		return nil
	}
	msg := fmt.Sprintf("%s needs about %s of memory, more than the memory budget of %s (%s)", what, Bytes(need), Bytes(limit), describe())
	if advice != "" {
		msg += "; " + advice
	}
	return errs.Argument(param, "%s", msg)
}

// describe says where a budget comes from, for error messages.
func describe() string {
	if avail := Available(); avail > 0 {
		return fmt.Sprintf("memory_budget= sets it; by default half of the memory available, %s now", Bytes(avail))
	}
	return "memory_budget= sets it"
}

// Bytes writes a size for people: 512 B, 3.2 MiB, 14 GiB.
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n), -1
	for v >= unit && i < 5 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.3g %ciB", v, "KMGTPE"[i])
}
