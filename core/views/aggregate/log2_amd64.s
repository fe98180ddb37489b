//go:build amd64 && !purego

#include "textflag.h"

// Constants, each twice (one per lane).
DATA xlogc<>+0(SB)/8, $0x0010000000000000   // smallest normal number
DATA xlogc<>+8(SB)/8, $0x0010000000000000
DATA xlogc<>+16(SB)/8, $0x3FC5555555555555  // 1.0/6
DATA xlogc<>+24(SB)/8, $0x3FC5555555555555
DATA xlogc<>+32(SB)/8, $0x3FC999999999999A  // 1.0/5
DATA xlogc<>+40(SB)/8, $0x3FC999999999999A
DATA xlogc<>+48(SB)/8, $0x3FD0000000000000  // 1.0/4
DATA xlogc<>+56(SB)/8, $0x3FD0000000000000
DATA xlogc<>+64(SB)/8, $0x3FD5555555555555  // 1.0/3
DATA xlogc<>+72(SB)/8, $0x3FD5555555555555
DATA xlogc<>+80(SB)/8, $0x3FE0000000000000  // 1.0/2
DATA xlogc<>+88(SB)/8, $0x3FE0000000000000
DATA xlogc<>+96(SB)/8, $0x3FF0000000000000  // 1
DATA xlogc<>+104(SB)/8, $0x3FF0000000000000
DATA xlogc<>+112(SB)/8, $0x3CB0000000000000 // 0x1p-52
DATA xlogc<>+120(SB)/8, $0x3CB0000000000000
GLOBL xlogc<>(SB), RODATA|NOPTR, $128

// func xlog2xPairs(dst, src []float64) int
//
// For x = 2^(e-1023) * (1 + mant/2^52), idx = the top 8 bits of mant:
//
//	r     = float64(mant & (2^44-1)) * 0x1p-52 * log2InvTable[idx]
//	ln1p  = r * (1 - r*(1/2 - r*(1/3 - r*(1/4 - r*(1/5 - r*(1/6))))))
//	x log2 x = x * (float64(e-1023) + (log2Table[idx] + ln1p*(1/ln 2)))
//
// and 0 where x <= 0. Integers become floats exactly by the 2^52 trick
// (their bits ORed into those of 2^52, minus 2^52). It stops before the
// first pair that holds a subnormal number and returns the number of
// elements done.
TEXT ·xlog2xPairs(SB), NOSPLIT, $0-56
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ src_len+32(FP), CX
	SHRQ $1, CX
	LEAQ ·log2Table(SB), R8
	LEAQ ·log2InvTable(SB), R9
	XORQ DX, DX // elements done

	MOVQ       $0x000FFFFFFFFFFFFF, AX
	MOVQ       AX, X8
	PUNPCKLQDQ X8, X8 // mantissa mask
	MOVQ       $0x00000FFFFFFFFFFF, AX
	MOVQ       AX, X9
	PUNPCKLQDQ X9, X9 // mask of the bits below the table index
	MOVQ       $0x4330000000000000, AX
	MOVQ       AX, X10
	PUNPCKLQDQ X10, X10 // 2^52
	MOVQ       $0x3FF71547652B82FE, AX
	MOVQ       AX, X12
	PUNPCKLQDQ X12, X12 // 1/ln 2
	MOVQ       $0x43300000000003FF, AX
	MOVQ       AX, X13
	PUNPCKLQDQ X13, X13 // 2^52 + 1023
	XORPS      X14, X14 // 0

loop:
	TESTQ CX, CX
	JEQ   done
	MOVUPD (SI), X0 // x

	// X7: x <= 0; stop at a lane with 0 < x < smallest normal.
	MOVAPS   X0, X7
	CMPPD    X14, X7, $2
	MOVAPS   X0, X5
	MOVUPD   xlogc<>+0(SB), X6
	CMPPD    X6, X5, $1
	MOVAPS   X7, X6
	ANDNPD   X5, X6
	MOVMSKPD X6, AX
	TESTQ    AX, AX
	JNE      done

	MOVAPS X0, X1
	PSRLQ  $52, X1 // e
	MOVAPS X0, X2
	PAND   X8, X2 // mant
	MOVAPS X2, X3
	PSRLQ  $44, X3 // idx
	PAND   X9, X2
	POR    X10, X2
	SUBPD  X10, X2 // float64(mant & (2^44-1))
	MOVUPD xlogc<>+112(SB), X5
	MULPD  X5, X2

	MOVQ   X3, AX
	PSHUFD $0xEE, X3, X3
	MOVQ   X3, BX
	MOVSD  (R9)(AX*8), X3
	MOVHPD (R9)(BX*8), X3
	MULPD  X3, X2 // r
	MOVSD  (R8)(AX*8), X6
	MOVHPD (R8)(BX*8), X6 // log2Table[idx]

	MOVUPD xlogc<>+16(SB), X4
	MULPD  X2, X4
	MOVUPD xlogc<>+32(SB), X5
	SUBPD  X4, X5
	MULPD  X2, X5
	MOVUPD xlogc<>+48(SB), X4
	SUBPD  X5, X4
	MULPD  X2, X4
	MOVUPD xlogc<>+64(SB), X5
	SUBPD  X4, X5
	MULPD  X2, X5
	MOVUPD xlogc<>+80(SB), X4
	SUBPD  X5, X4
	MULPD  X2, X4
	MOVUPD xlogc<>+96(SB), X5
	SUBPD  X4, X5
	MULPD  X2, X5 // ln1p
	MULPD  X12, X5
	ADDPD  X6, X5

	POR   X10, X1
	SUBPD X13, X1 // float64(e - 1023)
	ADDPD X1, X5
	MULPD X0, X5 // x log2 x

	ANDNPD X5, X7 // 0 where x <= 0
	MOVUPD X7, (DI)
	ADDQ   $16, SI
	ADDQ   $16, DI
	ADDQ   $2, DX
	DECQ   CX
	JMP    loop

done:
	MOVQ DX, ret+48(FP)
	RET

// func xlogAccPairs(sums, totals, xl []float64, first bool) int
//
// For every pair of sums (an even number, not negative), as xlog2xPairs:
// totals[k] += sums[k] and xl[k] += sums[k] log2 sums[k] (0 + each when
// first), stopping before the first pair holding a subnormal number.
TEXT ·xlogAccPairs(SB), NOSPLIT, $0-88
	MOVQ sums_base+0(FP), SI
	MOVQ totals_base+24(FP), DI
	MOVQ xl_base+48(FP), R10
	MOVBQZX first+72(FP), R11
	MOVQ sums_len+8(FP), CX
	SHRQ $1, CX
	LEAQ ·log2Table(SB), R8
	LEAQ ·log2InvTable(SB), R9
	XORQ DX, DX // elements done

	MOVQ       $0x000FFFFFFFFFFFFF, AX
	MOVQ       AX, X8
	PUNPCKLQDQ X8, X8 // mantissa mask
	MOVQ       $0x00000FFFFFFFFFFF, AX
	MOVQ       AX, X9
	PUNPCKLQDQ X9, X9 // mask of the bits below the table index
	MOVQ       $0x4330000000000000, AX
	MOVQ       AX, X10
	PUNPCKLQDQ X10, X10 // 2^52
	MOVQ       $0x3FF71547652B82FE, AX
	MOVQ       AX, X12
	PUNPCKLQDQ X12, X12 // 1/ln 2
	MOVQ       $0x43300000000003FF, AX
	MOVQ       AX, X13
	PUNPCKLQDQ X13, X13 // 2^52 + 1023
	XORPS      X14, X14 // 0

acc_loop:
	TESTQ CX, CX
	JEQ   acc_done
	MOVUPD (SI), X0 // x

	// X7: x <= 0; stop at a lane with 0 < x < smallest normal.
	MOVAPS   X0, X7
	CMPPD    X14, X7, $2
	MOVAPS   X0, X5
	MOVUPD   xlogc<>+0(SB), X6
	CMPPD    X6, X5, $1
	MOVAPS   X7, X6
	ANDNPD   X5, X6
	MOVMSKPD X6, AX
	TESTQ    AX, AX
	JNE      acc_done

	MOVAPS X0, X1
	PSRLQ  $52, X1 // e
	MOVAPS X0, X2
	PAND   X8, X2 // mant
	MOVAPS X2, X3
	PSRLQ  $44, X3 // idx
	PAND   X9, X2
	POR    X10, X2
	SUBPD  X10, X2 // float64(mant & (2^44-1))
	MOVUPD xlogc<>+112(SB), X5
	MULPD  X5, X2

	MOVQ   X3, AX
	PSHUFD $0xEE, X3, X3
	MOVQ   X3, BX
	MOVSD  (R9)(AX*8), X3
	MOVHPD (R9)(BX*8), X3
	MULPD  X3, X2 // r
	MOVSD  (R8)(AX*8), X6
	MOVHPD (R8)(BX*8), X6 // log2Table[idx]

	MOVUPD xlogc<>+16(SB), X4
	MULPD  X2, X4
	MOVUPD xlogc<>+32(SB), X5
	SUBPD  X4, X5
	MULPD  X2, X5
	MOVUPD xlogc<>+48(SB), X4
	SUBPD  X5, X4
	MULPD  X2, X4
	MOVUPD xlogc<>+64(SB), X5
	SUBPD  X4, X5
	MULPD  X2, X5
	MOVUPD xlogc<>+80(SB), X4
	SUBPD  X5, X4
	MULPD  X2, X4
	MOVUPD xlogc<>+96(SB), X5
	SUBPD  X4, X5
	MULPD  X2, X5 // ln1p
	MULPD  X12, X5
	ADDPD  X6, X5

	POR   X10, X1
	SUBPD X13, X1 // float64(e - 1023)
	ADDPD X1, X5
	MULPD X0, X5 // x log2 x

	ANDNPD X5, X7 // 0 where x <= 0

	// totals += x, xl += x log2 x (0 + each the first time).
	TESTQ  R11, R11
	JEQ    acc_add
	XORPS  X1, X1
	ADDPD  X0, X1
	MOVUPD X1, (DI)
	XORPS  X1, X1
	ADDPD  X7, X1
	MOVUPD X1, (R10)
	JMP    acc_next

acc_add:
	MOVUPD (DI), X1
	ADDPD  X0, X1
	MOVUPD X1, (DI)
	MOVUPD (R10), X1
	ADDPD  X7, X1
	MOVUPD X1, (R10)

acc_next:
	ADDQ $16, SI
	ADDQ $16, DI
	ADDQ $16, R10
	ADDQ $2, DX
	DECQ CX
	JMP  acc_loop

acc_done:
	MOVQ DX, ret+80(FP)
	RET
