//go:build amd64 && !purego

package chrome

import "golang.org/x/sys/cpu"

// hasVectorIndex tells whether the processor has AVX2 and carry-less
// multiplication (and BMI1's ANDN), with which indexAVX2 makes the bitmaps of 64 bytes in a
// few dozen instructions. (Zen 3 and Intel processors since Haswell have
// them; AVX-512 would halve the compares but is not on Zen 3.)
var hasVectorIndex = cpu.X86.HasAVX2 && cpu.X86.HasPCLMULQDQ && cpu.X86.HasBMI1

// indexAVX2 is indexGeneric in AVX2 assembly: data holds 64*len(blocks)
// bytes.
//
//go:noescape
func indexAVX2(data []byte, blocks []block, c *carry)

func indexBlocks(data []byte, blocks []block, c *carry) {
	if !hasVectorIndex {
		indexGeneric(data, blocks, c)
		return
	}
	if len(blocks) > 0 {
		indexAVX2(data[:64*len(blocks)], blocks, c)
	}
}
