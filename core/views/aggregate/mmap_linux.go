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
	// No huge pages are asked for (MADV_HUGEPAGE): they take 512 times
	// fewer faults, but where the system compacts memory for them on
	// demand (transparent_hugepage/defrag = madvise, Debian's default), a
	// fault may wait for a compaction. On the 2-core machine, writing the
	// 516 MB of decisions of the 1,000,000 x 30 solve took 0.8-1.8 s of
	// system time with huge pages and 0.4-0.6 s without, alternated.
	return b, true
}

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
