package cmem

import (
	"bytes"
	"testing"
)

func TestAllocator(t *testing.T) {
	a := New()
	for _, size := range []int{0, 1, 100, large - 1, large, 3*large + 7} {
		b := a.Allocate(size)
		if len(b) != size {
			t.Fatalf("Allocate(%d): %d bytes", size, len(b))
		}
		if size > 0 && address(b)%64 != 0 {
			t.Errorf("Allocate(%d): address %#x not aligned to 64 bytes (Arrow's alignment)", size, address(b))
		}
		if !bytes.Equal(b, make([]byte, size)) {
			t.Errorf("Allocate(%d): not zeroed", size)
		}
		for i := range b {
			b[i] = byte(i)
		}
		// Growing and shrinking across the large threshold keeps the content.
		for _, to := range []int{size + large, size / 2, size + 10} {
			want := append([]byte(nil), b[:min(len(b), to)]...)
			b = a.Reallocate(to, b)
			if len(b) != to || !bytes.Equal(b[:len(want)], want) {
				t.Fatalf("Reallocate(%d) of %d bytes: content lost", to, len(want))
			}
		}
		a.Free(b)
	}
	if len(a.maps) != 0 {
		t.Errorf("%d mappings left after freeing every buffer", len(a.maps))
	}
}

func BenchmarkWriteLarge(b *testing.B) {
	a := New()
	for b.Loop() {
		buf := a.Allocate(256 << 20)
		for i := 0; i < len(buf); i += 4096 {
			buf[i] = 1
		}
		a.Free(buf)
	}
}
