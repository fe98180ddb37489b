//go:build amd64 && !purego

package paje

import "golang.org/x/sys/cpu"

// hasVectorScan tells whether the processor has AVX2, with which
// classifyBlocks classifies 64 bytes in a dozen instructions.
var hasVectorScan = cpu.X86.HasAVX2

// classifyAVX2 is classifyGeneric in AVX2 assembly: data holds
// 64*len(spaces) bytes.
//
//go:noescape
func classifyAVX2(data []byte, spaces, odds []uint64)

func classifyBlocks(data []byte, spaces, odds []uint64) {
	if len(spaces) > 0 {
		classifyAVX2(data[:64*len(spaces)], spaces, odds[:len(spaces)])
	}
}
