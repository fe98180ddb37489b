//go:build amd64 && !purego

#include "textflag.h"

// func addSixteens(dst, a, b []float64)
//
// dst[k] = a[k] + b[k] for k below len(b)&^15, sixteen values (four
// vectors) at a time; dst may be a.
TEXT ·addSixteens(SB), NOSPLIT, $0-72
	MOVQ dst_base+0(FP), DI
	MOVQ a_base+24(FP), DX
	MOVQ b_base+48(FP), SI
	MOVQ b_len+56(FP), CX
	SHRQ $4, CX

loop:
	TESTQ   CX, CX
	JEQ     done
	VMOVUPD (SI), Y0
	VMOVUPD 32(SI), Y1
	VMOVUPD 64(SI), Y2
	VMOVUPD 96(SI), Y3
	VADDPD  (DX), Y0, Y0
	VADDPD  32(DX), Y1, Y1
	VADDPD  64(DX), Y2, Y2
	VADDPD  96(DX), Y3, Y3
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	ADDQ    $128, SI
	ADDQ    $128, DX
	ADDQ    $128, DI
	DECQ    CX
	JMP     loop

done:
	VZEROUPPER
	RET

// func intervalSumsAVX2(sums, v []float64, stride, T int)
//
// For j = 0..T-1, with x = v[j*stride], col = &sums[j(j+1)/2] and
// prev = &sums[(j-1)j/2]: col[i] = prev[i] + x for i < j, four at a time
// then one at a time, and col[j] = 0 + x.
//
// Registers: DI = col, SI = prev, R8 = &v[j*stride], R9 = stride*8,
// CX = j, DX = T, AX = i, X0/Y0 = x, X1 = 0.
TEXT ·intervalSumsAVX2(SB), NOSPLIT, $0-64
	MOVQ   sums_base+0(FP), DI
	MOVQ   v_base+24(FP), R8
	MOVQ   stride+48(FP), R9
	SHLQ   $3, R9
	MOVQ   T+56(FP), DX
	XORQ   CX, CX
	VXORPD X1, X1, X1
	MOVQ   DI, SI

sums_col:
	CMPQ         CX, DX
	JGE          sums_done
	VBROADCASTSD (R8), Y0
	XORQ         AX, AX

sums_quads:
	LEAQ    4(AX), BX
	CMPQ    BX, CX
	JGT     sums_ones
	VADDPD  (SI)(AX*8), Y0, Y2
	VMOVUPD Y2, (DI)(AX*8)
	MOVQ    BX, AX
	JMP     sums_quads

sums_ones:
	CMPQ   AX, CX
	JGE    sums_last
	VMOVSD (SI)(AX*8), X2
	VADDSD X0, X2, X2
	VMOVSD X2, (DI)(AX*8)
	INCQ   AX
	JMP    sums_ones

sums_last:
	VADDSD X0, X1, X2 // 0 + x
	VMOVSD X2, (DI)(CX*8)
	MOVQ   DI, SI
	LEAQ   8(DI)(CX*8), DI
	ADDQ   R9, R8
	INCQ   CX
	JMP    sums_col

sums_done:
	VZEROUPPER
	RET
