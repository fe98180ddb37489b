package micro

import (
	"github.com/macroscope-hpc/macroscope/core/errs"
)

// Key says what makes the categories of a state or event model.
type Key string

const (
	// KeyName, the default, makes one category per value: the state's or
	// event's name (a function, an MPI call, a kernel).
	KeyName Key = "name"
	// KeyCategory groups the values by their category (trace.Value's
	// Category, the cat of Chrome trace events: kernel, cpu_op,
	// cuda_runtime...). Values without a category count under their
	// type's name.
	KeyCategory Key = "category"
	// KeyType groups the values by their type: the state types of a
	// profiler's trace (CUDA kernel, NCCL kernel, memcpy, runtime API...)
	// when its values, the names of thousands of kernels, are too many to
	// read.
	KeyType Key = "type"
)

// ParseKey checks a key name; "" is KeyName and "cat" is short for
// KeyCategory.
func ParseKey(s string) (Key, error) {
	switch s {
	case "", string(KeyName):
		return KeyName, nil
	case string(KeyCategory), "cat":
		return KeyCategory, nil
	case string(KeyType):
		return KeyType, nil
	}
	return "", errs.Argument("key", `must be "name", "category" ("cat") or "type", got %q`, s)
}
