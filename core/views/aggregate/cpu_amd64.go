//go:build amd64 && !purego

package aggregate

func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)

func xgetbv0() (eax uint32)

// hasAVX2 tells whether the processor and the operating system support
// AVX2 (256-bit vectors): then the kernels handle four values per
// instruction instead of two.
var hasAVX2 = func() bool {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const osxsave, avx = 1 << 27, 1 << 28
	if ecx1&osxsave == 0 || ecx1&avx == 0 {
		return false
	}
	if xgetbv0()&6 != 6 { // the OS saves the XMM and YMM registers
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	return ebx7&(1<<5) != 0
}()

// hasAVX512 tells whether the processor and the operating system support
// the AVX-512 instructions the eight-lane kernels use (the foundation and
// the doubleword, byte and vector-length extensions) and save the opmask
// and 512-bit registers: then those kernels handle eight values per
// instruction. It implies hasAVX2.
var hasAVX512 = func() bool {
	if !hasAVX2 {
		return false
	}
	// XCR0: the XMM and YMM state (bits 1, 2), the opmask registers (5)
	// and the upper halves of ZMM0-15 and all of ZMM16-31 (6, 7).
	const zmmState = 1<<1 | 1<<2 | 1<<5 | 1<<6 | 1<<7
	if xgetbv0()&zmmState != zmmState {
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	const f, dq, bw, vl = 1 << 16, 1 << 17, 1 << 30, 1 << 31
	return ebx7&(f|dq|bw|vl) == f|dq|bw|vl
}()
