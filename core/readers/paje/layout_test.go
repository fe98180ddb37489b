package paje

import (
	"testing"
	"unsafe"
)

// TestContainerLayout checks the layout container's comment describes: 256
// bytes, the first slot's state fields in the second cache line.
func TestContainerLayout(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("the layout is laid out for 64-bit words; with 32-bit pointers it is smaller, still correct")
	}
	var c container
	if size := unsafe.Sizeof(c); size != 256 {
		t.Errorf("a container is %d bytes, want 256", size)
	}
	if end := unsafe.Offsetof(c.used) + unsafe.Sizeof(c.used); end > 64 {
		t.Errorf("the container's fields a state event reads end at byte %d, past the first cache line", end)
	}
	if at := unsafe.Offsetof(c.own); at != 64 {
		t.Errorf("the first slot is at byte %d, want 64", at)
	}
	if end := unsafe.Offsetof(c.own.first) + unsafe.Sizeof(c.own.first); end > 64 {
		t.Errorf("a slot's state fields end at byte %d of it, past one cache line", end)
	}
}
