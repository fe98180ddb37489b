// Package swar holds the word-at-a-time operations the text readers share:
// eight bytes of text, loaded little-endian into a 64-bit word (the first
// byte lowest), are tested or converted at once (SWAR: SIMD within a
// register), in portable Go. Each function is exact, byte by byte, and
// small enough to be inlined into the readers' loops.
package swar

const (
	lows  = 0x0101010101010101
	highs = 0x8080808080808080
)

// Bytes marks with its high bit each byte of w equal to c, exactly: the
// addition works on the low seven bits of each byte, so no carry crosses
// into the next byte and no byte is marked wrongly.
func Bytes(w uint64, c byte) uint64 {
	x := w ^ (lows * uint64(c))
	return ^((x&^highs + (lows * 0x7f)) | x) & highs
}

// NonDigits marks with its high bit each byte of w that is not an ASCII
// digit, exactly, as Bytes does.
func NonDigits(w uint64) uint64 {
	low := w &^ highs
	return (w | (low + lows*(0x80-':')) | ^(low + lows*(0x80-'0'))) & highs
}

// EightDigits converts the eight ASCII digits of w, the first in its
// lowest byte and most significant, to their value; zero bytes (shifted in
// from below) count as leading zeros. Pairs, then quadruples, then the
// whole: one multiplication each (simdjson's parse_eight_digits_unrolled).
func EightDigits(w uint64) uint64 {
	w = (w & 0x0f0f0f0f0f0f0f0f) * 2561 >> 8
	w = (w & 0x00ff00ff00ff00ff) * 6553601 >> 16
	return uint64(uint32((w & 0x0000ffff0000ffff) * 42949672960001 >> 32))
}
