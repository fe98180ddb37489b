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
)

// ParseKey checks a key name; "" is KeyName and "cat" is short for
// KeyCategory.
func ParseKey(s string) (Key, error) {
	switch s {
	case "", string(KeyName):
		return KeyName, nil
	case string(KeyCategory), "cat":
		return KeyCategory, nil
	}
	return "", errs.Argument("key", `must be "name" or "category" ("cat"), got %q`, s)
}
