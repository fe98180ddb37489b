package aggregate

import (
	"syscall"
	"unsafe"
)

// mapMin is the smallest size worth a mapping (tests lower it).
var mapMin = 1 << 20

// mapBytes returns n zero bytes mapped from the operating system, outside
// the Go heap, or false (then the caller allocates them).
func mapBytes(n int) ([]byte, bool) {
	if n < mapMin {
		return nil, false
	}
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, false
	}
	if n >= hugeMin {
		// The decisions of a large solve are written once each, all over
		// the mapping: with 4 KiB pages, faulting them in is a good part
		// of the writing. Huge pages, where the system allows them, take
		// 512 times fewer faults.
		_ = syscall.Madvise(b, madvHugepage)
	}
	return b, true
}

// hugeMin is the smallest mapping worth asking huge pages for.
const hugeMin = 8 << 20

// madvHugepage is Linux's MADV_HUGEPAGE, which package syscall lacks.
const madvHugepage = 14

// releaseBytes drops the whole pages within b from the resident memory
// (they read as zeros afterwards).
func releaseBytes(b []byte) {
	page := syscall.Getpagesize()
	if len(b) < page {
		return
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := (page - int(base%uintptr(page))) % page
	hi := len(b) - int((base+uintptr(len(b)))%uintptr(page))
	if hi-lo >= page {
		_ = syscall.Madvise(b[lo:hi], syscall.MADV_DONTNEED)
	}
}

// unmapBytes unmaps what mapBytes returned.
func unmapBytes(b []byte) { _ = syscall.Munmap(b) }
