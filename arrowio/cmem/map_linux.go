package cmem

import "syscall"

// mapAnonymous maps size zeroed bytes, advised to be backed by huge pages.
func mapAnonymous(size int) ([]byte, error) {
	m, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil, err
	}
	// Advice only: without transparent huge pages the mapping still works.
	_ = syscall.Madvise(m, 14) // MADV_HUGEPAGE
	return m, nil
}

func unmap(m []byte) { _ = syscall.Munmap(m) }
