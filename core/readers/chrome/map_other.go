//go:build !linux

package chrome

import "os"

// mapFile reports that files are read, not mapped, on this system (see
// map_linux.go).
func mapFile(*os.File, int64) ([]byte, func(), bool) { return nil, nil, false }

func dropPages([]byte) {}
