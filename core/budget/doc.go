// Package budget estimates how much memory the process may still use and
// refuses work that would need more, before it starts: a synthetic trace
// of a million sites, a model of more cells than the machine holds or a
// trace read whole that outgrows the memory fail with an error naming the
// estimate and the limit, instead of the kernel killing the interpreter
// (and the user's notebook with it) minutes later.
//
// The limit is a budget: by default a share (DefaultShare) of the memory
// available when the work starts (MemAvailable of /proc/meminfo, lowered
// by the cgroup's limit when there is one); callers let users set it
// (memory_budget=) or lift it.
package budget
