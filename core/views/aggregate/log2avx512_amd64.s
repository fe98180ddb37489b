//go:build amd64 && !purego

#include "textflag.h"

// The constants of xlogAccOcts, broadcast into Z16-Z28 (the sixteen
// registers below them hold two octs of sums and their temporaries): the
// table index times 16 in x >> 40 (Z16), the mask of the bits below the
// table index (Z17), 2^52 (Z18), the smallest normal number (Z19), 1/ln 2
// (Z20), 2^52 + 1023 (Z21), 1 (Z22), 1/6, 1/5, 1/4, 1/3, 1/2 (Z23-Z27)
// and 0 (Z28).
#define XLOG512_CONSTANTS \
	MOVQ         $0x0000000000000FF0, AX \
	VPBROADCASTQ AX, Z16 \
	MOVQ         $0x00000FFFFFFFFFFF, AX \
	VPBROADCASTQ AX, Z17 \
	MOVQ         $0x4330000000000000, AX \
	VPBROADCASTQ AX, Z18 \
	MOVQ         $0x0010000000000000, AX \
	VPBROADCASTQ AX, Z19 \
	MOVQ         $0x3FF71547652B82FE, AX \
	VPBROADCASTQ AX, Z20 \
	MOVQ         $0x43300000000003FF, AX \
	VPBROADCASTQ AX, Z21 \
	MOVQ         $0x3FF0000000000000, AX \
	VPBROADCASTQ AX, Z22 \
	MOVQ         $0x3FC5555555555555, AX \
	VPBROADCASTQ AX, Z23 \
	MOVQ         $0x3FC999999999999A, AX \
	VPBROADCASTQ AX, Z24 \
	MOVQ         $0x3FD0000000000000, AX \
	VPBROADCASTQ AX, Z25 \
	MOVQ         $0x3FD5555555555555, AX \
	VPBROADCASTQ AX, Z26 \
	MOVQ         $0x3FE0000000000000, AX \
	VPBROADCASTQ AX, Z27 \
	VPXORQ       Z28, Z28, Z28

// The parts of x (X) before the table: its exponent's bits E (x >> 52),
// the mantissa's bits below the table index as a number M (1 + m 2^-52,
// from its bits, minus 1, exact, as in xlogAccQuads) and the table
// index times 16, the byte offset of its pair in log2Pairs, I.
#define XLOG512_PARTS(X, E, M, I) \
	VPSRLQ $52, X, E \
	VPANDQ Z17, X, M \
	VPORQ  Z22, M, M \
	VSUBPD Z22, M, M \
	VPSRLQ $40, X, I \
	VPANDQ Z16, I, I

// The table entries of the eight lanes, log2Table[idx] into T and
// log2InvTable[idx] into V (R8 = log2Pairs), by two gathers (KA and KB
// are cleared by them). On Intel's Sapphire Rapids, the gathers take the
// same time as eight loads of a pair each, their offsets taken out of I
// lane by lane and the pairs unpacked as xlogAccQuads does (and, through
// a store to the frame, twice the time): the gathers are the shorter code.
#define XLOG512_GATHER(I, T, V, KA, KB) \
	KXNORB     KA, KA, KA \
	KXNORB     KB, KB, KB \
	VGATHERQPD (R8)(I*1), KA, T \
	VGATHERQPD 8(R8)(I*1), KB, V

// x log2 x into R from X, E, M and the entries T, V: the operations of
// xlogAccQuads, in its order, on every lane (S is a temporary; M and E
// are overwritten).
#define XLOG512_SERIES(X, E, M, T, V, S, R) \
	VMULPD V, M, M \
	VMULPD Z23, M, S \
	VSUBPD Z24, S, S \
	VMULPD M, S, S \
	VADDPD Z25, S, S \
	VMULPD M, S, S \
	VSUBPD Z26, S, S \
	VMULPD M, S, S \
	VADDPD Z27, S, S \
	VMULPD M, S, S \
	VSUBPD Z22, S, S \
	VMULPD M, S, S \
	VMULPD Z20, S, S \
	VSUBPD S, T, S \
	VPORQ  Z18, E, E \
	VSUBPD Z21, E, E \
	VADDPD E, S, S \
	VMULPD X, S, R

// func xlogAccOcts(sums, totals, xl []float64, first bool) int
//
// xlogAccQuads (log2avx_amd64.s) eight sums at a time, two octs at a time
// while there are two: the same operations in the same order on each
// lane, so the same bits. For every oct of sums (a multiple of 8, not
// negative): totals[k] += sums[k] and xl[k] += sums[k] log2 sums[k] (0 +
// each when first), stopping before the first oct holding a subnormal
// number. It returns the number of sums done. A zero goes through the
// computation and comes out as -0, which adds as +0 would (see
// xlogAccQuads).
TEXT ·xlogAccOcts(SB), NOSPLIT, $0-88
	MOVQ    sums_base+0(FP), SI
	MOVQ    totals_base+24(FP), DI
	MOVQ    xl_base+48(FP), R10
	MOVBQZX first+72(FP), R11
	MOVQ    sums_len+8(FP), CX
	SHRQ    $3, CX
	LEAQ    ·log2Pairs(SB), R8
	XORQ    DX, DX // elements done
	XLOG512_CONSTANTS

pair_loop:
	CMPQ    CX, $2
	JLT     one_loop
	VMOVUPD (SI), Z0
	VMOVUPD 64(SI), Z8

	// Any lane below the smallest normal number, zeros included: the
	// subnormals are left to the one-oct loop, which stops before them.
	VCMPPD   $1, Z19, Z0, K1
	VCMPPD   $1, Z19, Z8, K2
	KORTESTB K1, K2
	JEQ      pair_compute
	VCMPPD   $4, Z28, Z0, K1, K1 // and not zero
	VCMPPD   $4, Z28, Z8, K2, K2
	KORTESTB K1, K2
	JNE      one_loop

pair_compute:
	XLOG512_PARTS(Z0, Z1, Z2, Z3)
	XLOG512_PARTS(Z8, Z9, Z10, Z11)
	XLOG512_GATHER(Z3, Z6, Z4, K3, K4)
	XLOG512_GATHER(Z11, Z14, Z12, K5, K6)
	XLOG512_SERIES(Z0, Z1, Z2, Z6, Z4, Z5, Z3)
	XLOG512_SERIES(Z8, Z9, Z10, Z14, Z12, Z13, Z11)

	// totals += x, xl += x log2 x (0 + each the first time).
	TESTQ   R11, R11
	JEQ     pair_add
	VADDPD  Z0, Z28, Z0
	VMOVUPD Z0, (DI)
	VADDPD  Z8, Z28, Z8
	VMOVUPD Z8, 64(DI)
	VADDPD  Z3, Z28, Z3
	VMOVUPD Z3, (R10)
	VADDPD  Z11, Z28, Z11
	VMOVUPD Z11, 64(R10)
	JMP     pair_next

pair_add:
	VADDPD  (DI), Z0, Z0
	VMOVUPD Z0, (DI)
	VADDPD  64(DI), Z8, Z8
	VMOVUPD Z8, 64(DI)
	VADDPD  (R10), Z3, Z3
	VMOVUPD Z3, (R10)
	VADDPD  64(R10), Z11, Z11
	VMOVUPD Z11, 64(R10)

pair_next:
	ADDQ $128, SI
	ADDQ $128, DI
	ADDQ $128, R10
	ADDQ $16, DX
	SUBQ $2, CX
	JMP  pair_loop

one_loop:
	TESTQ    CX, CX
	JEQ      done
	VMOVUPD  (SI), Z0
	VCMPPD   $1, Z19, Z0, K1
	VCMPPD   $4, Z28, Z0, K1, K1
	KORTESTB K1, K1
	JNE      done // a subnormal
	XLOG512_PARTS(Z0, Z1, Z2, Z3)
	XLOG512_GATHER(Z3, Z6, Z4, K3, K4)
	XLOG512_SERIES(Z0, Z1, Z2, Z6, Z4, Z5, Z3)
	TESTQ    R11, R11
	JEQ      one_add
	VADDPD   Z0, Z28, Z0
	VMOVUPD  Z0, (DI)
	VADDPD   Z3, Z28, Z3
	VMOVUPD  Z3, (R10)
	JMP      one_next

one_add:
	VADDPD  (DI), Z0, Z0
	VMOVUPD Z0, (DI)
	VADDPD  (R10), Z3, Z3
	VMOVUPD Z3, (R10)

one_next:
	ADDQ $64, SI
	ADDQ $64, DI
	ADDQ $64, R10
	ADDQ $8, DX
	DECQ CX
	JMP  one_loop

done:
	VZEROUPPER
	MOVQ DX, ret+80(FP)
	RET
