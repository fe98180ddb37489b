package swar_test

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/macroscope-hpc/macroscope/core/swar"
)

// The leading digits of a word and their value, without a loop over its
// bytes.
func ExampleNonDigits() {
	w := binary.LittleEndian.Uint64([]byte("2024.5, "))
	n := bits.TrailingZeros64(swar.NonDigits(w)) >> 3
	fmt.Println(n, swar.EightDigits(w<<(64-8*n)))
	comma := bits.TrailingZeros64(swar.Bytes(w, ',')) >> 3
	fmt.Println(comma)
	// Output:
	// 4 2024
	// 6
}
