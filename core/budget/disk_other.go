//go:build !unix

package budget

// FreeDisk cannot tell on this system.
func FreeDisk(string) (int64, bool) { return 0, false }
