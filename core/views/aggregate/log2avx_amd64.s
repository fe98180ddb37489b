//go:build amd64 && !purego

#include "textflag.h"

// The polynomial's constants, each four times (one per lane).
DATA xlogq<>+0(SB)/8, $0x3FC5555555555555 // 1.0/6
DATA xlogq<>+8(SB)/8, $0x3FC5555555555555
DATA xlogq<>+16(SB)/8, $0x3FC5555555555555
DATA xlogq<>+24(SB)/8, $0x3FC5555555555555
DATA xlogq<>+32(SB)/8, $0x3FC999999999999A // 1.0/5
DATA xlogq<>+40(SB)/8, $0x3FC999999999999A
DATA xlogq<>+48(SB)/8, $0x3FC999999999999A
DATA xlogq<>+56(SB)/8, $0x3FC999999999999A
DATA xlogq<>+64(SB)/8, $0x3FD0000000000000 // 1.0/4
DATA xlogq<>+72(SB)/8, $0x3FD0000000000000
DATA xlogq<>+80(SB)/8, $0x3FD0000000000000
DATA xlogq<>+88(SB)/8, $0x3FD0000000000000
DATA xlogq<>+96(SB)/8, $0x3FD5555555555555 // 1.0/3
DATA xlogq<>+104(SB)/8, $0x3FD5555555555555
DATA xlogq<>+112(SB)/8, $0x3FD5555555555555
DATA xlogq<>+120(SB)/8, $0x3FD5555555555555
DATA xlogq<>+128(SB)/8, $0x3FE0000000000000 // 1.0/2
DATA xlogq<>+136(SB)/8, $0x3FE0000000000000
DATA xlogq<>+144(SB)/8, $0x3FE0000000000000
DATA xlogq<>+152(SB)/8, $0x3FE0000000000000
DATA xlogq<>+160(SB)/8, $0x3FF0000000000000 // 1
DATA xlogq<>+168(SB)/8, $0x3FF0000000000000
DATA xlogq<>+176(SB)/8, $0x3FF0000000000000
DATA xlogq<>+184(SB)/8, $0x3FF0000000000000
GLOBL xlogq<>(SB), RODATA|NOPTR, $192

// The constants of xlogAccQuads's two-quad loop, each four times, read
// from memory there (the sixteen vector registers hold the two quads).
#define XLOGK(off, bits) \
	DATA xlogk<>+(off)(SB)/8, bits \
	DATA xlogk<>+(off+8)(SB)/8, bits \
	DATA xlogk<>+(off+16)(SB)/8, bits \
	DATA xlogk<>+(off+24)(SB)/8, bits

XLOGK(0, $0x0000000000000FF0)   // the table index, times 16, in x >> 40
XLOGK(32, $0x00000FFFFFFFFFFF)  // mask of the bits below the table index
XLOGK(64, $0x4330000000000000)  // 2^52
XLOGK(96, $0x0010000000000000)  // smallest normal number
XLOGK(128, $0x3FF71547652B82FE) // 1/ln 2
XLOGK(160, $0x43300000000003FF) // 2^52 + 1023
XLOGK(192, $0x3FF0000000000000) // 1
GLOBL xlogk<>(SB), RODATA|NOPTR, $224

// func xlogAccQuads(sums, totals, xl []float64, first bool) int
//
// xlogAccPairs (log2_amd64.s) four sums at a time: the same operations in
// the same order on each lane, so the same bits; the table entries are
// loaded lane by lane. For every quad of sums (a multiple of 4, not negative):
// totals[k] += sums[k] and xl[k] += sums[k] log2 sums[k] (0 + each when
// first), stopping before the first quad holding a subnormal number. It
// returns the number of sums done.
TEXT ·xlogAccQuads(SB), NOSPLIT, $0-88
	MOVQ    sums_base+0(FP), SI
	MOVQ    totals_base+24(FP), DI
	MOVQ    xl_base+48(FP), R10
	MOVBQZX first+72(FP), R11
	MOVQ    sums_len+8(FP), CX
	SHRQ    $2, CX
	LEAQ    ·log2Pairs(SB), R8
	LEAQ    xlogq<>(SB), R12
	XORQ    DX, DX // elements done

	// Two quads at a time while there are two: the polynomial is a chain
	// of dependent operations, and interleaving two quads' chains keeps
	// the vector units busy; the constants come from memory (xlogk<>).
	VXORPD Y14, Y14, Y14 // 0

oct_loop:
	CMPQ    CX, $2
	JLT     oct_done
	VMOVUPD (SI), Y0  // x, first quad
	VMOVUPD 32(SI), Y8 // x, second quad

	// Leave the subnormals to the one-quad loop, which stops before them.
	// One test for the common case, no lane below the smallest normal
	// number; zeros, below it too, are told from subnormals at oct_small.
	// A zero goes through the computation below and comes out as -0
	// (-1023 * +0), not the +0 of xlog2x: added to xl, the same bits,
	// since xl is never -0 (it starts as +0 plus a term, and a sum is -0
	// only when both terms are).
	VCMPPD    $1, xlogk<>+96(SB), Y0, Y2
	VCMPPD    $1, xlogk<>+96(SB), Y8, Y10
	VORPD     Y10, Y2, Y2
	VMOVMSKPD Y2, AX
	TESTQ     AX, AX
	JNE       oct_small

oct_compute:
	VPSRLQ $52, Y0, Y1
	VPSRLQ $52, Y8, Y9
	// The mantissa's bits below the table index, m, as m 2^-52: the
	// number 1 + m 2^-52, from its bits, minus 1, exact as the one-quad
	// loop's (2^52 + m) - 2^52 times 2^-52. The table index, times 16
	// (the byte offset of its pair), from x >> 40.
	VPAND xlogk<>+32(SB), Y0, Y2
	VPAND xlogk<>+32(SB), Y8, Y10
	VPOR xlogk<>+192(SB), Y2, Y2
	VPOR xlogk<>+192(SB), Y10, Y10
	VSUBPD xlogk<>+192(SB), Y2, Y2
	VSUBPD xlogk<>+192(SB), Y10, Y10
	VPSRLQ $40, Y0, Y3
	VPSRLQ $40, Y8, Y11
	VPAND xlogk<>+0(SB), Y3, Y3
	VPAND xlogk<>+0(SB), Y11, Y11
	VMOVQ X3, AX
	VPEXTRQ $1, X3, BX
	VEXTRACTI128 $1, Y3, X4
	VMOVQ X4, R9
	VPEXTRQ $1, X4, R13
	VMOVUPD (R8)(AX*1), X5
	VINSERTF128 $1, (R8)(R9*1), Y5, Y5
	VMOVUPD (R8)(BX*1), X4
	VINSERTF128 $1, (R8)(R13*1), Y4, Y4
	VMOVQ X11, AX
	VPEXTRQ $1, X11, BX
	VEXTRACTI128 $1, Y11, X12
	VMOVQ X12, R9
	VPEXTRQ $1, X12, R13
	VMOVUPD (R8)(AX*1), X13
	VINSERTF128 $1, (R8)(R9*1), Y13, Y13
	VMOVUPD (R8)(BX*1), X12
	VINSERTF128 $1, (R8)(R13*1), Y12, Y12
	VUNPCKLPD Y4, Y5, Y6
	VUNPCKLPD Y12, Y13, Y15
	VUNPCKHPD Y4, Y5, Y4
	VUNPCKHPD Y12, Y13, Y12
	VMULPD Y4, Y2, Y2
	VMULPD Y12, Y10, Y10
	// The series, c - r t for c = 1/5, 1/4... 1 in turn, computed as
	// r t - c and c + r (-t) alternately: the same roundings (IEEE
	// subtraction and multiplication are exact under negation, and no
	// step is 0), with each constant an operand from memory.
	VMULPD 0(R12), Y2, Y5
	VMULPD 0(R12), Y10, Y13
	VSUBPD 32(R12), Y5, Y5 // -(1/5 - r/6)
	VSUBPD 32(R12), Y13, Y13
	VMULPD Y2, Y5, Y5
	VMULPD Y10, Y13, Y13
	VADDPD 64(R12), Y5, Y5 // 1/4 - r (...)
	VADDPD 64(R12), Y13, Y13
	VMULPD Y2, Y5, Y5
	VMULPD Y10, Y13, Y13
	VSUBPD 96(R12), Y5, Y5 // -(1/3 - r (...))
	VSUBPD 96(R12), Y13, Y13
	VMULPD Y2, Y5, Y5
	VMULPD Y10, Y13, Y13
	VADDPD 128(R12), Y5, Y5 // 1/2 - r (...)
	VADDPD 128(R12), Y13, Y13
	VMULPD Y2, Y5, Y5
	VMULPD Y10, Y13, Y13
	VSUBPD 160(R12), Y5, Y5 // -(1 - r (...))
	VSUBPD 160(R12), Y13, Y13
	VMULPD Y2, Y5, Y5 // -ln1p
	VMULPD Y10, Y13, Y13
	VMULPD xlogk<>+128(SB), Y5, Y5
	VMULPD xlogk<>+128(SB), Y13, Y13
	VSUBPD Y5, Y6, Y5 // log2Table[idx] + ln1p/ln 2
	VSUBPD Y13, Y15, Y13
	VPOR xlogk<>+64(SB), Y1, Y1
	VPOR xlogk<>+64(SB), Y9, Y9
	VSUBPD xlogk<>+160(SB), Y1, Y1
	VSUBPD xlogk<>+160(SB), Y9, Y9
	VADDPD Y1, Y5, Y5
	VADDPD Y9, Y13, Y13
	VMULPD Y0, Y5, Y3 // x log2 x, -0 for 0
	VMULPD Y8, Y13, Y11

	// totals += x, xl += x log2 x (0 + each the first time).
	TESTQ   R11, R11
	JEQ     oct_add
	VADDPD  Y0, Y14, Y0
	VMOVUPD Y0, (DI)
	VADDPD  Y8, Y14, Y8
	VMOVUPD Y8, 32(DI)
	VADDPD  Y3, Y14, Y3
	VMOVUPD Y3, (R10)
	VADDPD  Y11, Y14, Y11
	VMOVUPD Y11, 32(R10)
	JMP     oct_next

oct_add:
	VADDPD  (DI), Y0, Y0
	VMOVUPD Y0, (DI)
	VADDPD  32(DI), Y8, Y8
	VMOVUPD Y8, 32(DI)
	VADDPD  (R10), Y3, Y3
	VMOVUPD Y3, (R10)
	VADDPD  32(R10), Y11, Y11
	VMOVUPD Y11, 32(R10)

oct_next:
	ADDQ $64, SI
	ADDQ $64, DI
	ADDQ $64, R10
	ADDQ $8, DX
	SUBQ $2, CX
	JMP  oct_loop

oct_small: // some lane is 0 or subnormal: go on if none is subnormal
	VCMPPD    $2, Y14, Y0, Y1
	VCMPPD    $1, xlogk<>+96(SB), Y0, Y2
	VANDNPD   Y2, Y1, Y1
	VCMPPD    $2, Y14, Y8, Y9
	VCMPPD    $1, xlogk<>+96(SB), Y8, Y10
	VANDNPD   Y10, Y9, Y9
	VORPD     Y9, Y1, Y1
	VMOVMSKPD Y1, AX
	TESTQ     AX, AX
	JEQ       oct_compute

oct_done:
	// The constants into registers with VEX moves (VMOVQ): Go writes MOVQ
	// AX, X8 as an SSE instruction, which costs hundreds of cycles here,
	// with the upper halves of the registers in use (TestAVX2KernelsUseNoSSE).
	MOVQ         $0x000FFFFFFFFFFFFF, AX
	VMOVQ        AX, X8
	VPBROADCASTQ X8, Y8 // mantissa mask
	MOVQ         $0x00000FFFFFFFFFFF, AX
	VMOVQ        AX, X9
	VPBROADCASTQ X9, Y9 // mask of the bits below the table index
	MOVQ         $0x4330000000000000, AX
	VMOVQ        AX, X10
	VPBROADCASTQ X10, Y10 // 2^52
	MOVQ         $0x0010000000000000, AX
	VMOVQ        AX, X11
	VPBROADCASTQ X11, Y11 // smallest normal number
	MOVQ         $0x3FF71547652B82FE, AX
	VMOVQ        AX, X12
	VPBROADCASTQ X12, Y12 // 1/ln 2
	MOVQ         $0x43300000000003FF, AX
	VMOVQ        AX, X13
	VPBROADCASTQ X13, Y13 // 2^52 + 1023
	MOVQ         $0x3CB0000000000000, AX
	VMOVQ        AX, X15
	VPBROADCASTQ X15, Y15 // 0x1p-52
	VXORPD       Y14, Y14, Y14 // 0

quad_loop:
	TESTQ   CX, CX
	JEQ     quad_done
	VMOVUPD (SI), Y0 // x

	// Y7: x <= 0; stop at a lane with 0 < x < smallest normal.
	VCMPPD    $2, Y14, Y0, Y7
	VCMPPD    $1, Y11, Y0, Y5
	VANDNPD   Y5, Y7, Y6
	VMOVMSKPD Y6, AX
	TESTQ     AX, AX
	JNE       quad_done

	VPSRLQ  $52, Y0, Y1 // e
	VPAND   Y8, Y0, Y2  // mant
	VPSRLQ  $44, Y2, Y3 // idx
	VPAND   Y9, Y2, Y2
	VPOR    Y10, Y2, Y2
	VSUBPD  Y10, Y2, Y2 // float64(mant & (2^44-1))
	VMULPD  Y15, Y2, Y2

	// The table entries, {log2Table[idx], log2InvTable[idx]} pairs
	// (log2Pairs), loaded lane by lane: AMD's gathers are microcoded and
	// cost more than the four loads.
	VPSLLQ       $4, Y3, Y3 // byte offsets of the pairs
	VMOVQ        X3, AX
	VPEXTRQ      $1, X3, BX
	VEXTRACTI128 $1, Y3, X4
	VMOVQ        X4, R9
	VPEXTRQ      $1, X4, R13
	VMOVUPD      (R8)(AX*1), X5
	VINSERTF128  $1, (R8)(R9*1), Y5, Y5 // pairs of lanes 0 and 2
	VMOVUPD      (R8)(BX*1), X4
	VINSERTF128  $1, (R8)(R13*1), Y4, Y4 // pairs of lanes 1 and 3
	VUNPCKLPD    Y4, Y5, Y6 // log2Table[idx]
	VUNPCKHPD    Y4, Y5, Y4 // log2InvTable[idx]
	VMULPD       Y4, Y2, Y2 // r

	// The series as in the two-quad loop.
	VMULPD 0(R12), Y2, Y5
	VSUBPD 32(R12), Y5, Y5
	VMULPD Y2, Y5, Y5
	VADDPD 64(R12), Y5, Y5
	VMULPD Y2, Y5, Y5
	VSUBPD 96(R12), Y5, Y5
	VMULPD Y2, Y5, Y5
	VADDPD 128(R12), Y5, Y5
	VMULPD Y2, Y5, Y5
	VSUBPD 160(R12), Y5, Y5
	VMULPD Y2, Y5, Y5 // -ln1p
	VMULPD Y12, Y5, Y5
	VSUBPD Y5, Y6, Y5 // log2Table[idx] + ln1p/ln 2

	VPOR   Y10, Y1, Y1
	VSUBPD Y13, Y1, Y1 // float64(e - 1023)
	VADDPD Y1, Y5, Y5
	VMULPD Y0, Y5, Y5 // x log2 x

	VANDNPD Y5, Y7, Y7 // 0 where x <= 0

	// totals += x, xl += x log2 x (0 + each the first time).
	TESTQ   R11, R11
	JEQ     quad_add
	VADDPD  Y0, Y14, Y1
	VMOVUPD Y1, (DI)
	VADDPD  Y7, Y14, Y1
	VMOVUPD Y1, (R10)
	JMP     quad_next

quad_add:
	VMOVUPD (DI), Y1
	VADDPD  Y0, Y1, Y1
	VMOVUPD Y1, (DI)
	VMOVUPD (R10), Y1
	VADDPD  Y7, Y1, Y1
	VMOVUPD Y1, (R10)

quad_next:
	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $32, R10
	ADDQ $4, DX
	DECQ CX
	JMP  quad_loop

quad_done:
	VZEROUPPER
	MOVQ DX, ret+80(FP)
	RET
