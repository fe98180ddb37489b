//go:build amd64 && !purego

#include "textflag.h"

// func columnBestSSE2(v, g, l []float64, T int, av, ag, al, top []float64, pos []int, skip []bool)
//
// For i = 0..j (j = len(top)-1), with h = &v[i*T+i], t = &av[i+1] and
// n = j-i candidates after the first (av[i]):
//
//	pass 1: top[i] = max(av[i], h[k]+t[k] for k < n), two lanes at a time;
//	pass 2: the candidates equal to top[i], in order, two lanes at a time;
//	        the first is the winner, a later one replaces it if its gain
//	        is larger, or equal with a smaller loss (scalar, on hits only).
//	        pos[i] = 0 for av[i], k+1 for h[k]+t[k], -1 for none (NaN).
//
// Registers: SI = h, DI = av, CX = i, AX = k, BX = t, DX = n, R8 = the
// winner, X0 = top (both lanes), X8 and X9 = the winner's gain and loss.
TEXT ·columnBestSSE2(SB), NOSPLIT, $0-224
	MOVQ v_base+0(FP), SI
	MOVQ av_base+80(FP), DI
	XORQ CX, CX

loop_i:
	CMPQ  CX, top_len+160(FP)
	JGE   done
	MOVQ  skip_base+200(FP), R9
	TESTQ R9, R9
	JEQ   row
	MOVBQZX (R9)(CX*1), R12
	TESTQ R12, R12
	JNE   next_row // a row the caller does not need

row:

	// Pass 1: the maximum, in X0 and X1 (two lanes each).
	MOVSD    (DI)(CX*8), X0
	UNPCKLPD X0, X0
	MOVAPS   X0, X1
	MOVQ     SI, AX
	LEAQ     8(DI)(CX*8), BX
	MOVQ     top_len+160(FP), DX
	DECQ     DX
	SUBQ     CX, DX // n

p1_4:
	CMPQ   DX, $4
	JLT    p1_2
	MOVUPD (AX), X2
	MOVUPD (BX), X3
	ADDPD  X3, X2
	MAXPD  X2, X0
	MOVUPD 16(AX), X4
	MOVUPD 16(BX), X5
	ADDPD  X5, X4
	MAXPD  X4, X1
	ADDQ   $32, AX
	ADDQ   $32, BX
	SUBQ   $4, DX
	JMP    p1_4

p1_2:
	CMPQ   DX, $2
	JLT    p1_1
	MOVUPD (AX), X2
	MOVUPD (BX), X3
	ADDPD  X3, X2
	MAXPD  X2, X0
	ADDQ   $16, AX
	ADDQ   $16, BX
	SUBQ   $2, DX

p1_1:
	TESTQ DX, DX
	JEQ   p1_end
	MOVSD (AX), X2
	ADDSD (BX), X2
	MAXSD X2, X0

p1_end:
	MAXPD    X1, X0
	MOVAPS   X0, X1
	UNPCKHPD X1, X1
	MAXSD    X1, X0
	MOVQ     top_base+152(FP), R9
	MOVSD    X0, (R9)(CX*8)
	UNPCKLPD X0, X0 // top in both lanes

	// Pass 2.
	MOVQ    $-1, R8
	MOVSD   (DI)(CX*8), X2
	UCOMISD X0, X2
	JNE     p2_start
	JPS     p2_start
	XORQ    R8, R8
	MOVQ    ag_base+104(FP), R9
	MOVSD   (R9)(CX*8), X8
	MOVQ    al_base+128(FP), R9
	MOVSD   (R9)(CX*8), X9

p2_start:
	XORQ AX, AX
	LEAQ 8(DI)(CX*8), BX
	MOVQ top_len+160(FP), DX
	DECQ DX
	SUBQ CX, DX

p2_2:
	LEAQ     2(AX), R12
	CMPQ     R12, DX
	JGT      p2_1
	MOVUPD   (SI)(AX*8), X2
	MOVUPD   (BX)(AX*8), X3
	ADDPD    X3, X2
	CMPPD    X0, X2, $0 // equal
	MOVMSKPD X2, R12
	TESTQ    R12, R12
	JNE      hits
	ADDQ     $2, AX
	JMP      p2_2

p2_1:
	CMPQ    AX, DX
	JGE     p2_end
	MOVSD   (SI)(AX*8), X2
	ADDSD   (BX)(AX*8), X2
	UCOMISD X0, X2
	JNE     p2_end
	JPS     p2_end
	MOVQ    $1, R12 // one hit, in lane 0; then AX+2 > n ends the loop

hits:
	// R12: the lanes of AX, AX+1 that equal top.
	TESTQ R12, R12
	JEQ   hits_done
	BSFQ  R12, R10
	MOVQ  R12, R13
	DECQ  R13
	ANDQ  R13, R12 // clear the lowest bit
	ADDQ  AX, R10  // candidate R10: best(i, i+R10) + agg(i+R10+1, j)

	// X10, X11 = its gain and loss.
	MOVQ  SI, R13
	SUBQ  v_base+0(FP), R13
	LEAQ  (R13)(R10*8), R13
	MOVQ  g_base+24(FP), R9
	MOVSD (R9)(R13*1), X10
	MOVQ  l_base+48(FP), R9
	MOVSD (R9)(R13*1), X11
	LEAQ  1(CX)(R10*1), R13
	MOVQ  ag_base+104(FP), R9
	ADDSD (R9)(R13*8), X10
	MOVQ  al_base+128(FP), R9
	ADDSD (R9)(R13*8), X11

	TESTQ R8, R8
	JLT   take // the first candidate of the largest value

	MOVAPS X8, X12
	CMPSD  X10, X12, $1 // winner's gain < candidate's
	MOVQ   X12, R9
	TESTQ  R9, R9
	JNE    take
	MOVAPS X8, X12
	CMPSD  X10, X12, $0 // gains equal
	MOVQ   X12, R9
	TESTQ  R9, R9
	JEQ    hits
	MOVAPS X11, X12
	CMPSD  X9, X12, $1 // candidate's loss < winner's
	MOVQ   X12, R9
	TESTQ  R9, R9
	JEQ    hits

take:
	LEAQ   1(R10), R8
	MOVAPS X10, X8
	MOVAPS X11, X9
	JMP    hits

hits_done:
	ADDQ $2, AX
	JMP  p2_2

p2_end:
	MOVQ pos_base+176(FP), R9
	MOVQ R8, (R9)(CX*8)

next_row:
	MOVQ T+72(FP), R9
	LEAQ 8(SI)(R9*8), SI // next row, one further along
	INCQ CX
	JMP  loop_i

done:
	RET

// lanes<>+32*(r-1): the mask of the first r lanes of a vector.
DATA lanes<>+0(SB)/8, $-1
DATA lanes<>+8(SB)/8, $0
DATA lanes<>+16(SB)/8, $0
DATA lanes<>+24(SB)/8, $0
DATA lanes<>+32(SB)/8, $-1
DATA lanes<>+40(SB)/8, $-1
DATA lanes<>+48(SB)/8, $0
DATA lanes<>+56(SB)/8, $0
DATA lanes<>+64(SB)/8, $-1
DATA lanes<>+72(SB)/8, $-1
DATA lanes<>+80(SB)/8, $-1
DATA lanes<>+88(SB)/8, $0
DATA lanes<>+96(SB)/8, $-1
DATA lanes<>+104(SB)/8, $-1
DATA lanes<>+112(SB)/8, $-1
DATA lanes<>+120(SB)/8, $-1
GLOBL lanes<>(SB), RODATA|NOPTR, $128

DATA neginf<>+0(SB)/8, $0xFFF0000000000000
GLOBL neginf<>(SB), RODATA|NOPTR, $8

// func columnBestAVX2(v, g, l []float64, T int, av, ag, al, top []float64, pos []int, skip []bool, cut []byte)
//
// columnBestSSE2 with four lanes (VEX encoding throughout). A row is read
// in whole vectors, up to 3 values past its end (v and av must have room
// for them); those lanes are set to -Inf before the maximum is taken, and
// dropped from the candidates equal to it. When a row has at most 64
// candidates (always when T <= 65), pass 2 collects which equal the
// maximum in a bit mask, without a branch per vector.
//
// When cut is not nil, each row with a winner also gets its optimum,
// composed as bestIntervals composes it: best(i,j) = agg(i,j) (pos 0), or
// best(i,c-1) + agg(c,j) with c = i+pos, value, gain and loss; and cut[i]
// = 0 or c.
//
// Registers: R11 = i, SI = h, DI = av, BX = t, DX = n, R8 = the winner,
// Y0 = top, X8 and X9 = the winner's gain and loss.
TEXT ·columnBestAVX2(SB), NOSPLIT, $0-248
	MOVQ v_base+0(FP), SI
	MOVQ av_base+80(FP), DI
	XORQ R11, R11

avx_loop_i:
	CMPQ  R11, top_len+160(FP)
	JGE   avx_done
	MOVQ  skip_base+200(FP), R9
	TESTQ R9, R9
	JEQ   avx_row
	MOVBQZX (R9)(R11*1), R12
	TESTQ R12, R12
	JNE   avx_next_row // a row the caller does not need

avx_row:
	LEAQ 8(DI)(R11*8), BX
	MOVQ top_len+160(FP), DX
	DECQ DX
	SUBQ R11, DX // n

	// Pass 1: the maximum, in Y0 and Y1: whole vectors, then the last
	// one with its lanes past the row set to -Inf.
	VBROADCASTSD (DI)(R11*8), Y0
	VMOVAPD      Y0, Y1
	XORQ         AX, AX // byte offset
	TESTQ        DX, DX
	JEQ          avx_p1_end
	MOVQ         DX, R13
	DECQ         R13
	MOVQ         R13, R12
	SHRQ         $2, R13 // whole vectors before the last
	ANDQ         $3, R12
	SHLQ         $5, R12 // offset of the mask of the last vector's lanes

avx_p1_2:
	CMPQ    R13, $2
	JLT     avx_p1_1
	VMOVUPD (SI)(AX*1), Y2
	VADDPD  (BX)(AX*1), Y2, Y2
	VMAXPD  Y2, Y0, Y0
	VMOVUPD 32(SI)(AX*1), Y3
	VADDPD  32(BX)(AX*1), Y3, Y3
	VMAXPD  Y3, Y1, Y1
	ADDQ    $64, AX
	SUBQ    $2, R13
	JMP     avx_p1_2

avx_p1_1:
	TESTQ   R13, R13
	JEQ     avx_p1_last
	VMOVUPD (SI)(AX*1), Y2
	VADDPD  (BX)(AX*1), Y2, Y2
	VMAXPD  Y2, Y0, Y0
	ADDQ    $32, AX

avx_p1_last:
	LEAQ         lanes<>(SB), R9
	VMOVUPD      (R9)(R12*1), Y4
	VBROADCASTSD neginf<>(SB), Y5
	VMOVUPD      (SI)(AX*1), Y2
	VADDPD       (BX)(AX*1), Y2, Y2
	VBLENDVPD    Y4, Y2, Y5, Y2
	VMAXPD       Y2, Y0, Y0

avx_p1_end:
	VMAXPD       Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VMAXPD       X1, X0, X0
	VUNPCKHPD    X0, X0, X1
	VMAXSD       X1, X0, X0
	MOVQ         top_base+152(FP), R9
	VMOVSD       X0, (R9)(R11*8)
	VBROADCASTSD X0, Y0 // top in every lane

	// Pass 2: is agg(i,j) the largest? (Lanes past the row hold values
	// of other intervals: their bits are dropped.)
	MOVQ     $-1, R8
	VMOVSD   (DI)(R11*8), X2
	VUCOMISD X0, X2
	JNE      avx_p2_start
	JPS      avx_p2_start
	XORQ     R8, R8
	MOVQ     ag_base+104(FP), R9
	VMOVSD   (R9)(R11*8), X8
	MOVQ     al_base+128(FP), R9
	VMOVSD   (R9)(R11*8), X9

avx_p2_start:
	MOVQ top_len+160(FP), DX
	DECQ DX
	SUBQ R11, DX // n
	CMPQ DX, $64
	JGT  avx_long
	ADDQ $3, DX
	SHRQ $2, DX  // vectors
	XORQ AX, AX  // vector
	XORQ CX, CX  // 4 * vector
	XORQ R13, R13 // mask of the candidates equal to top

avx_mask:
	CMPQ      AX, DX
	JGE       avx_mask_done
	MOVQ      AX, R9
	SHLQ      $5, R9
	VMOVUPD   (SI)(R9*1), Y2
	VADDPD    (BX)(R9*1), Y2, Y2
	VCMPPD    $0, Y0, Y2, Y2 // equal
	VMOVMSKPD Y2, R12
	SHLQ      CX, R12
	ORQ       R12, R13
	ADDQ      $4, CX
	INCQ      AX
	JMP       avx_mask

avx_mask_done:
	MOVQ top_len+160(FP), CX
	DECQ CX
	SUBQ R11, CX // n
	CMPQ CX, $64
	JGE  avx_mask_all
	MOVQ $1, R9
	SHLQ CX, R9
	DECQ R9
	ANDQ R9, R13 // the candidates of the row only

avx_mask_all:
	XORQ AX, AX // base of the candidate numbers in R12
	MOVQ R13, R12

	// Hits: R12 holds the candidates AX+bit equal to top; the winner is
	// the first, unless a later one has a larger gain, or the same gain
	// and a smaller loss. Then the row is done.
avx_hits:
	TESTQ R12, R12
	JEQ   avx_p2_end
	BSFQ  R12, R10
	MOVQ  R12, R13
	DECQ  R13
	ANDQ  R13, R12 // clear the lowest bit
	ADDQ  AX, R10  // candidate R10: best(i, i+R10) + agg(i+R10+1, j)
	TESTQ R8, R8
	JGE   avx_compare
	TESTQ R12, R12
	JNE   avx_compare
	LEAQ  1(R10), R8 // the only candidate of the largest value
	JMP   avx_p2_end

avx_compare:
	// X10, X11 = the gain and loss of candidate R10.
	MOVQ   SI, R13
	SUBQ   v_base+0(FP), R13
	LEAQ   (R13)(R10*8), R13
	MOVQ   g_base+24(FP), R9
	VMOVSD (R9)(R13*1), X10
	MOVQ   l_base+48(FP), R9
	VMOVSD (R9)(R13*1), X11
	LEAQ   1(R11)(R10*1), R13
	MOVQ   ag_base+104(FP), R9
	VADDSD (R9)(R13*8), X10, X10
	MOVQ   al_base+128(FP), R9
	VADDSD (R9)(R13*8), X11, X11
	TESTQ  R8, R8
	JLT    avx_mask_take // the first candidate of the largest value
	VCMPSD $1, X10, X8, X12 // winner's gain < candidate's
	VMOVQ  X12, R9
	TESTQ  R9, R9
	JNE    avx_mask_take
	VCMPSD $0, X10, X8, X12 // gains equal
	VMOVQ  X12, R9
	TESTQ  R9, R9
	JEQ    avx_hits
	VCMPSD $1, X9, X11, X12 // candidate's loss < winner's
	VMOVQ  X12, R9
	TESTQ  R9, R9
	JEQ    avx_hits

avx_mask_take:
	LEAQ    1(R10), R8
	VMOVAPD X10, X8
	VMOVAPD X11, X9
	JMP     avx_hits

	// Rows of more than 64 candidates: four at a time, hits at once.
avx_long:
	XORQ AX, AX

avx_long_loop:
	CMPQ      AX, DX
	JGE       avx_p2_end
	VMOVUPD   (SI)(AX*8), Y2
	VADDPD    (BX)(AX*8), Y2, Y2
	VCMPPD    $0, Y0, Y2, Y2
	VMOVMSKPD Y2, R12
	MOVQ      DX, CX
	SUBQ      AX, CX // candidates left in the row
	CMPQ      CX, $4
	JGE       avx_long_hits
	MOVQ      $1, R9
	SHLQ      CX, R9
	DECQ      R9
	ANDQ      R9, R12

avx_long_hits:
	TESTQ R12, R12
	JEQ   avx_long_next
	BSFQ  R12, R10
	MOVQ  R12, R13
	DECQ  R13
	ANDQ  R13, R12
	ADDQ  AX, R10
	// X10, X11 = the gain and loss of candidate R10.
	MOVQ   SI, R13
	SUBQ   v_base+0(FP), R13
	LEAQ   (R13)(R10*8), R13
	MOVQ   g_base+24(FP), R9
	VMOVSD (R9)(R13*1), X10
	MOVQ   l_base+48(FP), R9
	VMOVSD (R9)(R13*1), X11
	LEAQ   1(R11)(R10*1), R13
	MOVQ   ag_base+104(FP), R9
	VADDSD (R9)(R13*8), X10, X10
	MOVQ   al_base+128(FP), R9
	VADDSD (R9)(R13*8), X11, X11
	TESTQ  R8, R8
	JLT    avx_long_take // the first candidate of the largest value
	VCMPSD $1, X10, X8, X12 // winner's gain < candidate's
	VMOVQ  X12, R9
	TESTQ  R9, R9
	JNE    avx_long_take
	VCMPSD $0, X10, X8, X12 // gains equal
	VMOVQ  X12, R9
	TESTQ  R9, R9
	JEQ    avx_long_hits
	VCMPSD $1, X9, X11, X12 // candidate's loss < winner's
	VMOVQ  X12, R9
	TESTQ  R9, R9
	JEQ    avx_long_hits

avx_long_take:
	LEAQ    1(R10), R8
	VMOVAPD X10, X8
	VMOVAPD X11, X9
	JMP     avx_long_hits

avx_long_next:
	ADDQ $4, AX
	JMP  avx_long_loop

avx_p2_end:
	MOVQ  pos_base+176(FP), R9
	MOVQ  R8, (R9)(R11*8)
	MOVQ  cut_base+224(FP), R9
	TESTQ R9, R9
	JEQ   avx_next_row
	TESTQ R8, R8
	JLT   avx_next_row // no winner (NaN): left to the caller

	// R13 = the byte offset of best(i,i) in v, g and l; R10 that of
	// best(i,j), n = j-i values further.
	MOVQ SI, R13
	SUBQ v_base+0(FP), R13
	MOVQ top_len+160(FP), DX
	DECQ DX
	SUBQ R11, DX
	LEAQ (R13)(DX*8), R10
	TESTQ R8, R8
	JNE   avx_compose_cut

	// agg(i,j) wins.
	MOVB   $0, (R9)(R11*1)
	VMOVSD (DI)(R11*8), X2
	MOVQ   v_base+0(FP), CX
	VMOVSD X2, (CX)(R10*1)
	MOVQ   ag_base+104(FP), DX
	VMOVSD (DX)(R11*8), X2
	MOVQ   g_base+24(FP), CX
	VMOVSD X2, (CX)(R10*1)
	MOVQ   al_base+128(FP), DX
	VMOVSD (DX)(R11*8), X2
	MOVQ   l_base+48(FP), CX
	VMOVSD X2, (CX)(R10*1)
	JMP    avx_next_row

avx_compose_cut:
	// c = i + pos: best(i,c-1), at R12 = R13 + (pos-1)*8, plus agg(c,j).
	LEAQ   (R11)(R8*1), AX
	MOVB   AX, (R9)(R11*1)
	LEAQ   -8(R13)(R8*8), R12
	MOVQ   v_base+0(FP), CX
	VMOVSD (CX)(R12*1), X2
	VADDSD (DI)(AX*8), X2, X2
	VMOVSD X2, (CX)(R10*1)
	MOVQ   g_base+24(FP), CX
	MOVQ   ag_base+104(FP), DX
	VMOVSD (CX)(R12*1), X2
	VADDSD (DX)(AX*8), X2, X2
	VMOVSD X2, (CX)(R10*1)
	MOVQ   l_base+48(FP), CX
	MOVQ   al_base+128(FP), DX
	VMOVSD (CX)(R12*1), X2
	VADDSD (DX)(AX*8), X2, X2
	VMOVSD X2, (CX)(R10*1)

avx_next_row:
	MOVQ T+72(FP), R9
	LEAQ 8(SI)(R9*8), SI // next row, one further along
	INCQ R11
	JMP  avx_loop_i

avx_done:
	VZEROUPPER
	RET
