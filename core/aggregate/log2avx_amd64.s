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

// func xlogAccQuads(sums, totals, xl []float64, first bool) int
//
// xlogAccPairs (log2_amd64.s) four sums at a time: the same operations in
// the same order on each lane, so the same bits; the table entries are
// gathered. For every quad of sums (a multiple of 4, not negative):
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
	LEAQ    ·log2Table(SB), R8
	LEAQ    ·log2InvTable(SB), R9
	LEAQ    xlogq<>(SB), R12
	XORQ    DX, DX // elements done

	MOVQ         $0x000FFFFFFFFFFFFF, AX
	MOVQ         AX, X8
	VPBROADCASTQ X8, Y8 // mantissa mask
	MOVQ         $0x00000FFFFFFFFFFF, AX
	MOVQ         AX, X9
	VPBROADCASTQ X9, Y9 // mask of the bits below the table index
	MOVQ         $0x4330000000000000, AX
	MOVQ         AX, X10
	VPBROADCASTQ X10, Y10 // 2^52
	MOVQ         $0x0010000000000000, AX
	MOVQ         AX, X11
	VPBROADCASTQ X11, Y11 // smallest normal number
	MOVQ         $0x3FF71547652B82FE, AX
	MOVQ         AX, X12
	VPBROADCASTQ X12, Y12 // 1/ln 2
	MOVQ         $0x43300000000003FF, AX
	MOVQ         AX, X13
	VPBROADCASTQ X13, Y13 // 2^52 + 1023
	MOVQ         $0x3CB0000000000000, AX
	MOVQ         AX, X15
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

	VPCMPEQQ   Y5, Y5, Y5
	VGATHERQPD Y5, (R9)(Y3*8), Y4
	VMULPD     Y4, Y2, Y2 // r
	VPCMPEQQ   Y5, Y5, Y5
	VGATHERQPD Y5, (R8)(Y3*8), Y6 // log2Table[idx]

	VMULPD  0(R12), Y2, Y4
	VMOVUPD 32(R12), Y5
	VSUBPD  Y4, Y5, Y5
	VMULPD  Y2, Y5, Y5
	VMOVUPD 64(R12), Y4
	VSUBPD  Y5, Y4, Y4
	VMULPD  Y2, Y4, Y4
	VMOVUPD 96(R12), Y5
	VSUBPD  Y4, Y5, Y5
	VMULPD  Y2, Y5, Y5
	VMOVUPD 128(R12), Y4
	VSUBPD  Y5, Y4, Y4
	VMULPD  Y2, Y4, Y4
	VMOVUPD 160(R12), Y5
	VSUBPD  Y4, Y5, Y5
	VMULPD  Y2, Y5, Y5 // ln1p
	VMULPD  Y12, Y5, Y5
	VADDPD  Y6, Y5, Y5

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
