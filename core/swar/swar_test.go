package swar

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// word loads eight bytes, the first lowest.
func word(s string) uint64 { return binary.LittleEndian.Uint64([]byte(s)) }

// marks is the mask a byte-by-byte test gives: the high bit of each byte
// for which is holds.
func marks(w uint64, is func(byte) bool) uint64 {
	var m uint64
	for i := range 8 {
		if is(byte(w >> (8 * i))) {
			m |= 0x80 << (8 * i)
		}
	}
	return m
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// TestMasksEveryByte checks Bytes and NonDigits against a byte-by-byte
// test for every byte value in every position, among random neighbours
// (the carries of one byte must not reach the next).
func TestMasksEveryByte(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for c := range 256 {
		for pos := range 8 {
			for range 64 {
				w := r.Uint64()&^(0xff<<(8*pos)) | uint64(c)<<(8*pos)
				for _, sep := range []byte{',', '"', '\n', 0, 0x7f, 0x80, 0xff} {
					if got, want := Bytes(w, sep), marks(w, func(b byte) bool { return b == sep }); got != want {
						t.Fatalf("Bytes(%#016x, %#x) = %#016x, want %#016x", w, sep, got, want)
					}
				}
				if got, want := NonDigits(w), marks(w, func(b byte) bool { return !isDigit(b) }); got != want {
					t.Fatalf("NonDigits(%#016x) = %#016x, want %#016x", w, got, want)
				}
			}
		}
	}
}

func TestEightDigits(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint64
	}{
		{"00000000", 0}, {"12345678", 12345678}, {"99999999", 99999999}, {"00000001", 1}, {"10000000", 10000000},
	} {
		if got := EightDigits(word(c.in)); got != c.want {
			t.Errorf("EightDigits(%q) = %d, want %d", c.in, got, c.want)
		}
	}
	// Fewer digits, shifted up so that zero bytes lead: "42" is 42.
	if got := EightDigits(word("42xxxxxx") << 48); got != 42 {
		t.Errorf("EightDigits of 42 shifted = %d", got)
	}
}
