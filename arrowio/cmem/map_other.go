//go:build !linux

package cmem

import "errors"

// mapAnonymous is not used elsewhere than on Linux: large buffers come
// from malloc too.
func mapAnonymous(int) ([]byte, error) { return nil, errors.New("cmem: no anonymous mappings here") }

func unmap([]byte) {}
