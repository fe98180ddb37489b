package ingest

import (
	"os"
	"syscall"
)

// MapFile maps the n bytes of the regular file f for reading, shared with
// the page cache, so that a reader reads them where they are instead of
// having them copied into its buffer. ok is false when they cannot be
// mapped (a file system without mmap, an address space too small): the
// file is then read.
func MapFile(f *os.File, n int64) (data []byte, unmap func(), ok bool) {
	if n <= 0 || int64(int(n)) != n {
		return nil, nil, false
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(n), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, false
	}
	return data, func() { _ = syscall.Munmap(data) }, true
}

// DropPages tells the kernel that the mapped pages of b, which starts on a
// page boundary, will not be read again: they leave the process's
// resident memory (not the page cache; a read of them would map them
// again), which thus stays a window of the input instead of growing to
// the whole file.
func DropPages(b []byte) {
	_ = syscall.Madvise(b, syscall.MADV_DONTNEED)
}
