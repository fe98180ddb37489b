//go:build !linux

package ingest

import "os"

// MapFile reports that files are read, not mapped, on this system (see
// map_linux.go).
func MapFile(*os.File, int64) ([]byte, func(), bool) { return nil, nil, false }

func DropPages([]byte) {}
