// Package cmem is the memory allocator of the arrays Python receives: they
// must live outside the Go heap (the C data interface hands their
// addresses to another runtime), and a large table should cost little
// more than writing it.
//
// Small buffers come from C's malloc (arrow-go's mallocator). Large ones
// (2 MiB and more) are mapped anonymously and, on Linux, advised to use
// transparent huge pages: the first write of a fresh 4 KiB page costs a
// page fault, which for the 372 MiB of a 10-million-row model table took
// most of the export's time; a 2 MiB page takes one fault for 512 of them.
package cmem

import (
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/memory/mallocator"
)

// large is the size from which buffers are mapped rather than malloc'ed.
const large = 2 << 20

// Allocator allocates zeroed buffers outside the Go heap. It is safe for
// concurrent use.
type Allocator struct {
	small *mallocator.Mallocator
	mu    sync.Mutex
	maps  map[uintptr][]byte // mapped buffers by address: their whole mapping
}

// New returns an allocator.
func New() *Allocator {
	return &Allocator{small: mallocator.NewMallocator(), maps: map[uintptr][]byte{}}
}

var _ memory.Allocator = (*Allocator)(nil)

// Allocate returns size zeroed bytes.
func (a *Allocator) Allocate(size int) []byte {
	if size < large {
		return a.small.Allocate(size)
	}
	m, err := mapAnonymous(size)
	if err != nil {
		return a.small.Allocate(size)
	}
	a.mu.Lock()
	a.maps[address(m)] = m
	a.mu.Unlock()
	return m[:size]
}

// Reallocate returns b resized to size, its content kept.
func (a *Allocator) Reallocate(size int, b []byte) []byte {
	if !a.mapped(b) {
		if size < large {
			return a.small.Reallocate(size, b)
		}
		out := a.Allocate(size)
		copy(out, b)
		a.small.Free(b)
		return out
	}
	out := a.Allocate(size)
	copy(out, b[:min(len(b), size)])
	a.Free(b)
	return out
}

// Free releases b.
func (a *Allocator) Free(b []byte) {
	if cap(b) == 0 {
		return
	}
	a.mu.Lock()
	m, ok := a.maps[address(b)]
	delete(a.maps, address(b))
	a.mu.Unlock()
	if !ok {
		a.small.Free(b)
		return
	}
	unmap(m)
}

func (a *Allocator) mapped(b []byte) bool {
	if cap(b) == 0 {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	_, ok := a.maps[address(b)]
	return ok
}

func address(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }
