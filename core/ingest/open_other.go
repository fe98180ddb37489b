//go:build !unix

package ingest

import "os"

// nonBlocking: no such flag here; the checks before opening stay.
const nonBlocking = 0

func setBlocking(*os.File) error { return nil }
