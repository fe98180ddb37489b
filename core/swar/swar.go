// Package swar holds the word-at-a-time operations the text readers share:
// eight bytes of text, loaded little-endian into a 64-bit word (the first
// byte lowest), are tested or converted at once (SWAR: SIMD within a
// register), in portable Go. Each function is exact, byte by byte, and
// small enough to be inlined into the readers' loops.
package swar

import (
	"encoding/binary"
	"math/bits"
)

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

// Decimal reads the form most text traces write their dates in (pj_dump's
// "0.000817", Pajé's "12.345678901"): digits, '.' and one to nine
// decimals, in eight to sixteen bytes, in billionths ("0.000817" is
// 817,000), a word at a time: the first eight bytes hold the whole part
// and the point, the last eight the decimals (the two words overlap in
// shorter numbers). It reports false for any other form (a sign, no
// point, more digits, fewer bytes), which the caller reads its own way.
func Decimal(b []byte) (uint64, bool) {
	n := len(b)
	if n < 8 || n > 16 {
		return 0, false
	}
	first := binary.LittleEndian.Uint64(b[:8])
	point := bits.TrailingZeros64(NonDigits(first)) >> 3 // the digits before it
	decimals := n - point - 1
	if point == 8 || b[point] != '.' || decimals > 9 {
		return 0, false
	}
	whole := EightDigits(first << (64 - 8*point)) // point = 0: Go shifts it all out
	last := binary.LittleEndian.Uint64(b[n-8 : n])
	if decimals == 9 {
		d := b[n-9] - '0'
		if d > 9 || NonDigits(last) != 0 {
			return 0, false
		}
		return whole*1e9 + uint64(d)*1e8 + EightDigits(last), true
	}
	// The decimals are the top bytes of last; those below are cleared,
	// leading zeros to EightDigits.
	below := 8 * uint(8-decimals)
	if NonDigits(last)>>below != 0 {
		return 0, false
	}
	return whole*1e9 + EightDigits(last>>below<<below)*pow10[9-decimals], true
}

// pow10 holds the powers of ten that scale one to nine decimals to
// billionths.
var pow10 = [10]uint64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9}
