package micro

import (
	"github.com/macroscope-hpc/macroscope/core/errs"
)

// Key says what makes the categories of a state or event model.
type Key string

const (
	// KeyGroup, the default, makes one category per grouped name
	// (names.Group): the instances a producer numbers or annotates one
	// by one ("aten::copy_, op_id = 998952", "ProfilerStep#5", a kernel's
	// template arguments) count under the name a person gives them.
	KeyGroup Key = "group"
	// KeyName makes one category per value: the state's or event's name
	// as the file writes it (a function, an MPI call, a kernel).
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
	// KeyDomain groups the values by the library or namespace their name
	// belongs to (names.Domain: aten, NCCL, MPI, CUDA...); values whose
	// name tells none count under their category, else their type.
	KeyDomain Key = "domain"
)

// Keys lists the keys from the finest to the coarsest grouping (KeyName
// first, KeyType last), the order in which a model's notes look for one
// that fits a figure.
var Keys = []Key{KeyName, KeyGroup, KeyDomain, KeyCategory, KeyType}

// ParseKey checks a key name; "" is KeyGroup, "grouped" is short for
// KeyGroup and "cat" for KeyCategory.
func ParseKey(s string) (Key, error) {
	switch s {
	case "", string(KeyGroup), "grouped":
		return KeyGroup, nil
	case string(KeyName):
		return KeyName, nil
	case string(KeyCategory), "cat":
		return KeyCategory, nil
	case string(KeyType):
		return KeyType, nil
	case string(KeyDomain):
		return KeyDomain, nil
	}
	return "", errs.Argument("key", `must be "group", "name", "domain", "category" ("cat") or "type", got %q`, s)
}
