//go:build amd64 && !purego

#include "textflag.h"

// lanes<>+32*s: the mask of the first s+1 lanes of a vector.
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
GLOBL lanes<>(SB), RODATA|NOPTR, $96

// On to the next m: its cut in Y3, &best(i0,m) in R12.
#define NEXT_CANDIDATES \
	VPADDQ Y4, Y3, Y3 \
	ADDQ   R8, R12 \
	INCQ   R11

// One step of the search of a block of four rows, for m: the candidates
// cand = best(i,m) + agg(m+1,j) (R12 = &best(i0,m)), Y7 = cand > top
// (ordered: $0x1e), Y8 = cand == top or unordered ($0x08); the rows where
// cand is larger than their top take it (Y0) and the cut m+1 (Y3, into
// Y1); a row where cand equals its top, or either is NaN, is flagged (Y2).
#define STEP_CANDIDATES \
	VBROADCASTSD 8(DI)(R11*8), Y5 \
	VMOVUPD      (R12), Y6 \
	VADDPD       Y5, Y6, Y6 \
	VCMPPD       $0x1e, Y0, Y6, Y7 \
	VCMPPD       $0x08, Y0, Y6, Y8

//
// The rows take their new largest value with VMAXPD, which gives the
// same bits as blending on Y7 (the candidate if larger, else the top, NaN
// or equal included) but is not chained to the compare: the loop waits on
// one instruction's latency per step instead of two. Lanes masked off on
// the diagonal must not take a value: STEP_KEEP_MASKED blends them.
#define STEP_KEEP \
	VMAXPD    Y0, Y6, Y0 \
	VBLENDVPD Y7, Y3, Y1, Y1 \
	VORPD     Y8, Y2, Y2 \
	NEXT_CANDIDATES

#define STEP_KEEP_MASKED \
	VBLENDVPD Y7, Y6, Y0, Y0 \
	VBLENDVPD Y7, Y3, Y1, Y1 \
	VORPD     Y8, Y2, Y2 \
	NEXT_CANDIDATES

// The same step for two blocks of four rows at once, i0..i0+3 (Y0, Y1,
// Y2) and i0+4..i0+7 (Y9, Y10, Y11): their candidates are one column of
// best, eight rows long. Two blocks are two independent chains of
// compare and blend, which a core runs side by side, where one block
// waits on each step's latency.
#define PAIR_CANDIDATES \
	VBROADCASTSD 8(DI)(R11*8), Y5 \
	VMOVUPD      (R12), Y6 \
	VADDPD       Y5, Y6, Y6 \
	VMOVUPD      32(R12), Y12 \
	VADDPD       Y5, Y12, Y12 \
	VCMPPD       $0x1e, Y0, Y6, Y7 \
	VCMPPD       $0x08, Y0, Y6, Y8 \
	VCMPPD       $0x1e, Y9, Y12, Y13 \
	VCMPPD       $0x08, Y9, Y12, Y14

#define PAIR_KEEP \
	VMAXPD    Y0, Y6, Y0 \
	VBLENDVPD Y7, Y3, Y1, Y1 \
	VORPD     Y8, Y2, Y2 \
	VMAXPD    Y9, Y12, Y9 \
	VBLENDVPD Y13, Y3, Y10, Y10 \
	VORPD     Y14, Y11, Y11 \
	NEXT_CANDIDATES

// PAIR_KEEP on the second block's diagonal (see STEP_KEEP_MASKED).
#define PAIR_KEEP_MASKED \
	VMAXPD    Y0, Y6, Y0 \
	VBLENDVPD Y7, Y3, Y1, Y1 \
	VORPD     Y8, Y2, Y2 \
	VBLENDVPD Y13, Y12, Y9, Y9 \
	VBLENDVPD Y13, Y3, Y10, Y10 \
	VORPD     Y14, Y11, Y11 \
	NEXT_CANDIDATES

// The start of a pass over a block's candidates, at m = i0: Y3 = the cut
// after m in every lane, R11 = m, R12 = &best(i0,i0), R13 = the lane masks
// of the first three steps, CX = 0 (the offset of the first mask).
#define FIRST_CANDIDATES \
	LEAQ         1(R10), CX \
	VMOVQ        CX, X3 \
	VPBROADCASTQ X3, Y3 \
	MOVQ         R10, R11 \
	MOVQ         R10, R12 \
	IMULQ        R8, R12 \
	ADDQ         SI, R12 \
	LEAQ         (R12)(R10*8), R12 \
	LEAQ         lanes<>(SB), R13 \
	XORQ         CX, CX

// One step of the resolution of a block's flagged rows, for m: the
// candidates' values as the search adds them (Y6), Y7 = NaN, then (after
// RESOLVE_EQUAL, which keeps Y13 = a NaN seen) Y7 = equal to the row's
// largest value (Y0). RESOLVE_KEEP takes, in the rows where the candidate
// is equal, the candidate with a larger gain (Y8, against Y9), or the same
// gain and a smaller loss (Y15, against Y10), or any if the row has no
// winner yet (Y14): its cut into Y11, its value, gain and loss into Y1,
// Y9, Y10. BX = ag, DX = al, R14 and AX the offsets of g and l from v.
#define RESOLVE_VALUES \
	VBROADCASTSD 8(DI)(R11*8), Y5 \
	VADDPD       (R12), Y5, Y6 \
	VCMPPD       $3, Y6, Y6, Y7

#define RESOLVE_EQUAL \
	VORPD  Y7, Y13, Y13 \
	VCMPPD $0x00, Y0, Y6, Y7

#define RESOLVE_KEEP \
	VBROADCASTSD 8(BX)(R11*8), Y5 \
	VADDPD       (R12)(R14*1), Y5, Y8 \
	VBROADCASTSD 8(DX)(R11*8), Y5 \
	VADDPD       (R12)(AX*1), Y5, Y15 \
	VCMPPD       $0x1e, Y9, Y8, Y12 \
	VCMPPD       $0x00, Y9, Y8, Y5 \
	VCMPPD       $0x11, Y10, Y15, Y2 \
	VANDPD       Y2, Y5, Y5 \
	VORPD        Y5, Y12, Y12 \
	VORPD        Y14, Y12, Y12 \
	VANDPD       Y7, Y12, Y12 \
	VBLENDVPD    Y12, Y3, Y11, Y11 \
	VBLENDVPD    Y12, Y6, Y1, Y1 \
	VBLENDVPD    Y12, Y8, Y9, Y9 \
	VBLENDVPD    Y12, Y15, Y10, Y10 \
	VANDNPD      Y14, Y12, Y14 \
	NEXT_CANDIDATES

// The gain and loss of row i's optimum (R11 = i, R13 = byte offset of
// best(i,j)), when agg(i,j) wins: copied from ag and al. Uses BX, X5.
#define COMPOSE_AGG \
	MOVQ   ag_base+104(FP), BX \
	VMOVSD (BX)(R11*8), X5 \
	MOVQ   g_base+24(FP), BX \
	VMOVSD X5, (BX)(R13*1) \
	MOVQ   al_base+128(FP), BX \
	VMOVSD (BX)(R11*8), X5 \
	MOVQ   l_base+48(FP), BX \
	VMOVSD X5, (BX)(R13*1)

// The same when the cut c (DX) wins: best(i,c-1) + agg(c,j), R12 = byte
// offset of best(i,c-1). Uses BX, R14, X5.
#define COMPOSE_CUT \
	MOVQ   g_base+24(FP), BX \
	MOVQ   ag_base+104(FP), R14 \
	VMOVSD (BX)(R12*1), X5 \
	VADDSD (R14)(DX*8), X5, X5 \
	VMOVSD X5, (BX)(R13*1) \
	MOVQ   l_base+48(FP), BX \
	MOVQ   al_base+128(FP), R14 \
	VMOVSD (BX)(R12*1), X5 \
	VADDSD (R14)(DX*8), X5, X5 \
	VMOVSD X5, (BX)(R13*1)

// func columnSearchAVX2(v, g, l []float64, T int, av, ag, al []float64, pos []int, skip []bool, cut []byte, last int) (done int)
//
// Column j = len(pos)-1, by blocks of four rows i0..i0+3: the lanes of
// Y0 (the largest value so far, from agg(i,j)), Y1 (the candidate that
// reached it first: 0 or the cut) and Y2 (flagged) are the rows. For
// m = i0..j-1, the candidates of the four rows are one vector of column m
// of best; for the first three m, the rows past m have no candidate and
// their lanes are masked off. Lanes past j hold values of other intervals
// and are dropped when the block is stored. The block's flagged rows go
// through their candidates again, four at a time, as resolveRow does,
// with the largest value already known: the first equal to it wins, and a
// later one replaces it if its gain is larger, or equal with a smaller
// loss. A NaN sends the block's rows through the same rule one by one,
// where NaN leaves a row to the caller (pos[i] = -1, counted in left).
// Then, row by row, pos[i] = the winner, and (when cut is not nil) its
// optimum, composed as columnComposeGeneric composes it.
//
// Columns j+1, ..., last follow in the same call (av, ag, al and cut moved
// on to each, pos longer by one) as long as every row has a winner; done
// counts the columns searched so.
//
// Registers: SI = v, DI = av, R8 = T*8, R9 = j, R10 = i0, R11 = m,
// R12 = &best(i0,m); Y4 = 1 in every lane. Frame: the winners of a block
// at 0(SP), j*T*8 at 32(SP), the largest values of a block at 40(SP),
// left at 72(SP), the flags of a block at 80(SP), the columns done at
// 112(SP); when two blocks are searched together, the second block's
// largest values, winners and flags at 128(SP), 160(SP) and 192(SP), and
// at 224(SP) 1 while its rows wait for the first block's to be finished.
TEXT ·columnSearchAVX2(SB), NOSPLIT, $232-240
	MOVQ         v_base+0(FP), SI
	MOVQ         av_base+80(FP), DI
	MOVQ         T+72(FP), R8
	SHLQ         $3, R8
	MOVQ         pos_len+160(FP), R9
	DECQ         R9
	MOVQ         R9, AX
	IMULQ        R8, AX
	MOVQ         AX, 32(SP)
	MOVQ         $0, 72(SP)
	MOVQ         $0, 112(SP)
	MOVQ         $0, 224(SP)
	MOVQ         $1, AX
	VMOVQ        AX, X4
	VPBROADCASTQ X4, Y4
	XORQ         R10, R10

block:
	CMPQ  R10, R9
	JGT   done
	MOVQ  skip_base+176(FP), R11
	TESTQ R11, R11
	JEQ   unskipped
	MOVQ  R10, AX
	LEAQ  4(R10), CX

skip_row: // is every row of the block skipped?
	CMPB (R11)(AX*1), $0
	JEQ  search
	INCQ AX
	CMPQ AX, R9
	JGT  next_block
	CMPQ AX, CX
	JLT  skip_row
	JMP  next_block

unskipped: // eight rows or more left: two blocks at once
	LEAQ 7(R10), AX
	CMPQ AX, R9
	JLE  pair

search:
	VMOVUPD      (DI)(R10*8), Y0 // agg(i,j)
	VCMPPD       $3, Y0, Y0, Y2  // NaN: flagged
	VPXOR        Y1, Y1, Y1
	FIRST_CANDIDATES

diag: // m = i0+s, s < 3: rows i0+s+1.. have no candidate yet
	CMPQ R11, R9
	JGE  finish
	CMPQ CX, $96
	JGE  main
	STEP_CANDIDATES
	VANDPD (R13)(CX*1), Y7, Y7
	VANDPD (R13)(CX*1), Y8, Y8
	STEP_KEEP_MASKED
	ADDQ $32, CX
	JMP  diag

main:
	CMPQ R11, R9
	JGE  finish
	STEP_CANDIDATES
	STEP_KEEP
	JMP  main

finish:
	VMOVMSKPD Y2, AX // flagged rows
	VMOVDQU   Y1, 0(SP)
	VMOVUPD   Y0, 40(SP)
	TESTQ     AX, AX
	JEQ       rows

	// Flagged rows, four at a time: the candidates again, in order, those
	// equal to the row's largest value compared by the whole rule (the
	// first one, then a larger gain, or the same gain and a smaller loss),
	// as resolveRow does. Y11 = the winner, Y1, Y9, Y10 its value, gain and
	// loss, Y14 = no winner yet, Y13 = a NaN seen; the flags are kept at
	// 80(SP). A flagged row with a NaN (or, which cannot happen otherwise,
	// no winner) leaves the block to the row-by-row resolution below.
	VMOVUPD      Y2, 80(SP)
	MOVQ         ag_base+104(FP), BX
	MOVQ         al_base+128(FP), DX
	VMOVUPD      (DI)(R10*8), Y1 // agg(i,j), the first candidate
	VCMPPD       $0x00, Y0, Y1, Y7
	VCMPPD       $3, Y1, Y1, Y13
	VMOVUPD      (BX)(R10*8), Y9
	VMOVUPD      (DX)(R10*8), Y10
	VPXOR        Y11, Y11, Y11
	VPCMPEQQ     Y14, Y14, Y14
	VXORPD       Y7, Y14, Y14
	MOVQ         g_base+24(FP), R14
	SUBQ         SI, R14 // g - v
	MOVQ         l_base+48(FP), AX
	SUBQ         SI, AX // l - v
	FIRST_CANDIDATES

resolve_diag:
	CMPQ R11, R9
	JGE  resolved_block
	CMPQ CX, $96
	JGE  resolve_main
	RESOLVE_VALUES
	VANDPD (R13)(CX*1), Y7, Y7
	RESOLVE_EQUAL
	VANDPD (R13)(CX*1), Y7, Y7
	RESOLVE_KEEP
	ADDQ $32, CX
	JMP  resolve_diag

resolve_main:
	CMPQ R11, R9
	JGE  resolved_block
	RESOLVE_VALUES
	RESOLVE_EQUAL
	RESOLVE_KEEP
	JMP  resolve_main

resolved_block:
	VMOVUPD   80(SP), Y2
	VMOVMSKPD Y2, AX // flagged rows
	VORPD     Y14, Y13, Y13
	VANDPD    Y2, Y13, Y13
	VMOVMSKPD Y13, BX
	TESTQ     BX, BX
	JNE       rows // a NaN: one by one
	VMOVDQU   0(SP), Y5
	VBLENDVPD Y2, Y11, Y5, Y5
	VMOVDQU   Y5, 0(SP) // the winners
	VBLENDVPD Y2, Y1, Y0, Y0 // their values, the winners' own bits
	XORQ      AX, AX // no row left flagged

rows:
	XORQ      CX, CX // row of the block
	MOVQ      cut_base+200(FP), R12
	TESTQ     R12, R12
	JEQ       row

	// Composing: the optimum's value of a row with a single winner is
	// its largest value, the same sum, stored for the four rows at once
	// (past j: junk below the diagonal, or the next column's first rows,
	// written again before they are read, or the room after the table);
	// a flagged row's is written again once resolved.
	MOVQ    32(SP), R13
	LEAQ    (R13)(R10*8), R13
	VMOVUPD Y0, (SI)(R13*1)

row_composed:
	CMPQ CX, $4
	JGE  next_block
	LEAQ (R10)(CX*1), R11 // i
	CMPQ R11, R9
	JGT  next_block
	BTQ  CX, AX
	JCS  resolve
	MOVQ 0(SP)(CX*8), DX // 0 or the cut c
	MOVQ cut_base+200(FP), R12
	MOVB DX, (R12)(R11*1)
	MOVQ 32(SP), R13
	LEAQ (R13)(R11*8), R13 // byte offset of best(i,j)
	TESTQ DX, DX
	JNE  composed_cut
	COMPOSE_AGG
	INCQ CX
	JMP  row_composed

composed_cut: // gain and loss of best(i,c-1) + agg(c,j)
	LEAQ   -1(DX), R12
	IMULQ  R8, R12
	LEAQ   (R12)(R11*8), R12 // byte offset of best(i,c-1)
	COMPOSE_CUT
	INCQ   CX
	JMP    row_composed

row:
	CMPQ CX, $4
	JGE  next_block
	LEAQ (R10)(CX*1), R11 // i
	CMPQ R11, R9
	JGT  next_block
	BTQ  CX, AX
	JCS  resolve
	MOVQ 0(SP)(CX*8), DX // 0 or the cut c
	JMP  winner

resolve: // the whole rule, DX = the winner so far, X8, X9 its gain and loss
	MOVQ     $-1, DX
	VMOVSD   40(SP)(CX*8), X10 // the largest value
	VUCOMISD X10, X10
	JPS      no_winner
	VMOVSD   (DI)(R11*8), X2
	VUCOMISD X10, X2
	JNE      resolve_cuts
	XORQ     DX, DX // agg(i,j)
	MOVQ     ag_base+104(FP), BX
	VMOVSD   (BX)(R11*8), X8
	MOVQ     al_base+128(FP), BX
	VMOVSD   (BX)(R11*8), X9

resolve_cuts:
	MOVQ  R11, R13 // m
	MOVQ  R11, R12
	IMULQ R8, R12
	LEAQ  (R12)(R11*8), R12 // byte offset of best(i,m)

resolve_next:
	CMPQ     R13, R9
	JGE      resolved
	VMOVSD   (SI)(R12*1), X2
	VADDSD   8(DI)(R13*8), X2, X2
	VUCOMISD X10, X2
	JPS      no_winner
	JNE      resolve_step
	MOVQ     g_base+24(FP), BX
	VMOVSD   (BX)(R12*1), X11
	MOVQ     ag_base+104(FP), BX
	VADDSD   8(BX)(R13*8), X11, X11
	MOVQ     l_base+48(FP), BX
	VMOVSD   (BX)(R12*1), X12
	MOVQ     al_base+128(FP), BX
	VADDSD   8(BX)(R13*8), X12, X12
	TESTQ    DX, DX
	JLT      resolve_take // the first candidate of the largest value
	VCMPSD   $1, X11, X8, X13 // winner's gain < candidate's
	VMOVQ    X13, BX
	TESTQ    BX, BX
	JNE      resolve_take
	VCMPSD   $0, X11, X8, X13 // gains equal
	VMOVQ    X13, BX
	TESTQ    BX, BX
	JEQ      resolve_step
	VCMPSD   $1, X9, X12, X13 // candidate's loss < winner's
	VMOVQ    X13, BX
	TESTQ    BX, BX
	JEQ      resolve_step

resolve_take:
	LEAQ    1(R13), DX
	VMOVAPD X11, X8
	VMOVAPD X12, X9

resolve_step:
	ADDQ R8, R12
	INCQ R13
	JMP  resolve_next

no_winner: // NaN: left to the caller
	MOVQ pos_base+152(FP), R12
	MOVQ $-1, (R12)(R11*8)
	INCQ 72(SP)
	JMP  next_row

resolved:
	TESTQ DX, DX
	JLT   no_winner

winner:
	MOVQ  pos_base+152(FP), R12
	MOVQ  DX, (R12)(R11*8)
	MOVQ  cut_base+200(FP), R12
	TESTQ R12, R12
	JEQ   next_row
	MOVB  DX, (R12)(R11*1)
	MOVQ  32(SP), R13
	LEAQ  (R13)(R11*8), R13 // byte offset of best(i,j)
	TESTQ DX, DX
	JNE   compose_cut

	// agg(i,j) wins.
	VMOVSD (DI)(R11*8), X5
	VMOVSD X5, (SI)(R13*1)
	COMPOSE_AGG
	JMP    next_row

compose_cut: // best(i,c-1) + agg(c,j)
	LEAQ   -1(DX), R12
	IMULQ  R8, R12
	LEAQ   (R12)(R11*8), R12 // byte offset of best(i,c-1)
	VMOVSD (SI)(R12*1), X5
	VADDSD (DI)(DX*8), X5, X5
	VMOVSD X5, (SI)(R13*1)
	COMPOSE_CUT

next_row:
	INCQ  CX
	MOVQ  cut_base+200(FP), R12
	TESTQ R12, R12
	JEQ   row
	JMP   row_composed

next_block:
	ADDQ $4, R10
	CMPQ 224(SP), $0
	JEQ  block

	// The second block of a pair: its search is done, on to its rows.
	MOVQ    $0, 224(SP)
	VMOVUPD 128(SP), Y0
	VMOVDQU 160(SP), Y1
	VMOVUPD 192(SP), Y2
	JMP     finish

pair: // rows i0..i0+7, all at most j
	VMOVUPD (DI)(R10*8), Y0 // agg(i,j)
	VCMPPD  $3, Y0, Y0, Y2  // NaN: flagged
	VPXOR   Y1, Y1, Y1
	VMOVUPD 32(DI)(R10*8), Y9
	VCMPPD  $3, Y9, Y9, Y11
	VPXOR   Y10, Y10, Y10
	FIRST_CANDIDATES

pair_first: // m = i0..i0+2: the first block's diagonal, no candidate in the second
	CMPQ CX, $96
	JGE  pair_fourth
	STEP_CANDIDATES
	VANDPD (R13)(CX*1), Y7, Y7
	VANDPD (R13)(CX*1), Y8, Y8
	STEP_KEEP_MASKED
	ADDQ $32, CX
	JMP  pair_first

pair_fourth: // m = i0+3: the first block whole, still none in the second
	STEP_CANDIDATES
	STEP_KEEP
	XORQ CX, CX

pair_diag: // m = i0+4..i0+6 (< j): the second block's diagonal
	CMPQ CX, $96
	JGE  pair_main
	PAIR_CANDIDATES
	VANDPD (R13)(CX*1), Y13, Y13
	VANDPD (R13)(CX*1), Y14, Y14
	PAIR_KEEP_MASKED
	ADDQ $32, CX
	JMP  pair_diag

pair_main:
	CMPQ R11, R9
	JGE  pair_done
	PAIR_CANDIDATES
	PAIR_KEEP
	JMP  pair_main

pair_done: // the first block's rows now, the second's after them (next_block)
	VMOVUPD Y9, 128(SP)
	VMOVDQU Y10, 160(SP)
	VMOVUPD Y11, 192(SP)
	MOVQ    $1, 224(SP)
	JMP     finish

done: // column j is searched: on to the next, if any, unless a row had no winner
	CMPQ 72(SP), $0
	JNE  finished
	INCQ 112(SP)
	CMPQ R9, last+224(FP)
	JGE  finished
	ADDQ R8, av_base+80(FP)
	ADDQ R8, ag_base+104(FP)
	ADDQ R8, al_base+128(FP)
	LEAQ 1(R9), AX
	ADDQ AX, cut_base+200(FP) // past column j's j+1 cuts
	INCQ R9
	MOVQ R9, AX
	IMULQ R8, AX
	MOVQ AX, 32(SP)
	MOVQ av_base+80(FP), DI
	XORQ R10, R10
	JMP  block

finished:
	MOVQ 112(SP), AX
	MOVQ AX, done+232(FP)
	VZEROUPPER
	RET

// The search at p = 0 (columnSearchLexAVX2), for m: LEX_BROADCAST
// broadcasts agg(m+1,j) and its gain (Y5, Y14; BX = ag); LEX_CANDIDATES
// takes the candidates of the block of four rows at off(R12) (R14 = the
// offset of g from v): their values cand = best(i,m) + agg(m+1,j) (Y6)
// and gains best.g(i,m) + ag(m+1) (Y15), Y7 = take: the candidate larger
// than the row's top (TOP), or equal with a larger gain than the top's
// (TG); Y8 = the candidate is NaN. LEX_KEEP: the rows that take the
// candidate take its value, gain and cut (the winner's own bits); a NaN
// flags the row. The two blocks of a pair use the same temporaries, one
// after the other: renamed, their chains run side by side.
#define LEX_BROADCAST \
	VBROADCASTSD 8(DI)(R11*8), Y5 \
	VBROADCASTSD 8(BX)(R11*8), Y14

#define LEX_CANDIDATES(off, TOP, TG) \
	VADDPD off(R12), Y5, Y6 \
	VADDPD off(R12)(R14*1), Y14, Y15 \
	VCMPPD $0x1e, TG, Y15, Y7 \
	VCMPPD $0x00, TOP, Y6, Y8 \
	VANDPD Y8, Y7, Y7 \
	VCMPPD $0x1e, TOP, Y6, Y8 \
	VORPD  Y8, Y7, Y7 \
	VCMPPD $3, Y6, Y6, Y8

#define LEX_MASK \
	VANDPD (R13)(CX*1), Y7, Y7 \
	VANDPD (R13)(CX*1), Y8, Y8

#define LEX_KEEP(TOP, CUT, FLAG, TG) \
	VBLENDVPD Y7, Y6, TOP, TOP \
	VBLENDVPD Y7, Y15, TG, TG \
	VBLENDVPD Y7, Y3, CUT, CUT \
	VORPD     Y8, FLAG, FLAG

// func columnSearchLexAVX2(v, g, l []float64, T int, av, ag, al []float64, pos []int, skip []bool, cut []byte, last int) (done int)
//
// columnSearchAVX2 composing (cut is not nil, skip nil) for tables whose
// values are minus their losses: each row keeps the first candidate of
// the largest value and, among those, of the largest gain (see
// columnSearchLexGeneric), in one pass, by blocks of four rows, two
// blocks at once while eight rows are left. A row with a NaN (a
// candidate, or agg(i,j)) has no winner by the whole rule (the largest
// value is NaN, or a NaN candidate is met): pos[i] = -1, left to the
// caller, as columnSearchAVX2 leaves it. The other rows' optima are
// composed as columnSearchAVX2 composes them.
//
// Registers as columnSearchAVX2's, with the gains of the rows' tops in Y9
// (and Y13 for a pair's second block, whose tops, winners and flags are
// Y10, Y11, Y12), and BX, R14 as in LEX_BROADCAST and LEX_CANDIDATES
// (set again for every block: composing uses them). Frame: the winners
// of a block at 0(SP), j*T*8 at 32(SP), left at 72(SP), the columns done
// at 112(SP); the second block of a pair's tops, winners and flags at
// 128(SP), 160(SP) and 192(SP), and at 224(SP) 1 while its rows wait for
// the first block's to be finished.
TEXT ·columnSearchLexAVX2(SB), NOSPLIT, $232-240
	MOVQ         v_base+0(FP), SI
	MOVQ         av_base+80(FP), DI
	MOVQ         T+72(FP), R8
	SHLQ         $3, R8
	MOVQ         pos_len+160(FP), R9
	DECQ         R9
	MOVQ         R9, AX
	IMULQ        R8, AX
	MOVQ         AX, 32(SP)
	MOVQ         $0, 72(SP)
	MOVQ         $0, 112(SP)
	MOVQ         $0, 224(SP)
	MOVQ         $1, AX
	VMOVQ        AX, X4
	VPBROADCASTQ X4, Y4
	XORQ         R10, R10

block:
	CMPQ    R10, R9
	JGT     done
	MOVQ    ag_base+104(FP), BX
	MOVQ    g_base+24(FP), R14
	SUBQ    SI, R14 // g - v
	LEAQ    7(R10), AX
	CMPQ    AX, R9
	JLE     pair
	VMOVUPD (DI)(R10*8), Y0 // agg(i,j)
	VCMPPD  $3, Y0, Y0, Y2  // NaN: flagged
	VMOVUPD (BX)(R10*8), Y9 // its gain
	VPXOR   Y1, Y1, Y1
	FIRST_CANDIDATES

diag: // m = i0+s, s < 3: rows i0+s+1.. have no candidate yet
	CMPQ R11, R9
	JGE  finish
	CMPQ CX, $96
	JGE  main
	LEX_BROADCAST
	LEX_CANDIDATES(0, Y0, Y9)
	LEX_MASK
	LEX_KEEP(Y0, Y1, Y2, Y9)
	NEXT_CANDIDATES
	ADDQ $32, CX
	JMP  diag

main:
	CMPQ R11, R9
	JGE  finish
	LEX_BROADCAST
	LEX_CANDIDATES(0, Y0, Y9)
	LEX_KEEP(Y0, Y1, Y2, Y9)
	NEXT_CANDIDATES
	JMP  main

finish:
	VMOVMSKPD Y2, AX // rows with a NaN
	VMOVDQU   Y1, 0(SP)
	XORQ      CX, CX // row of the block

	// The optima's values, the winners' sums, for the four rows at once
	// (past j: junk, as in columnSearchAVX2).
	MOVQ    32(SP), R13
	LEAQ    (R13)(R10*8), R13
	VMOVUPD Y0, (SI)(R13*1)

row:
	CMPQ  CX, $4
	JGE   next_block
	LEAQ  (R10)(CX*1), R11 // i
	CMPQ  R11, R9
	JGT   next_block
	BTQ   CX, AX
	JCS   no_winner
	MOVQ  0(SP)(CX*8), DX // 0 or the cut c
	MOVQ  cut_base+200(FP), R12
	MOVB  DX, (R12)(R11*1)
	MOVQ  32(SP), R13
	LEAQ  (R13)(R11*8), R13 // byte offset of best(i,j)
	TESTQ DX, DX
	JNE   composed_cut
	COMPOSE_AGG
	INCQ  CX
	JMP   row

composed_cut: // gain and loss of best(i,c-1) + agg(c,j)
	LEAQ  -1(DX), R12
	IMULQ R8, R12
	LEAQ  (R12)(R11*8), R12 // byte offset of best(i,c-1)
	COMPOSE_CUT
	INCQ  CX
	JMP   row

no_winner: // NaN: left to the caller
	MOVQ pos_base+152(FP), R12
	MOVQ $-1, (R12)(R11*8)
	INCQ 72(SP)
	INCQ CX
	JMP  row

next_block:
	ADDQ $4, R10
	CMPQ 224(SP), $0
	JEQ  block

	// The second block of a pair: its search is done, on to its rows.
	MOVQ    $0, 224(SP)
	VMOVUPD 128(SP), Y0
	VMOVDQU 160(SP), Y1
	VMOVUPD 192(SP), Y2
	JMP     finish

pair: // rows i0..i0+7, all at most j
	VMOVUPD (DI)(R10*8), Y0 // agg(i,j)
	VCMPPD  $3, Y0, Y0, Y2  // NaN: flagged
	VMOVUPD (BX)(R10*8), Y9
	VPXOR   Y1, Y1, Y1
	VMOVUPD 32(DI)(R10*8), Y10
	VCMPPD  $3, Y10, Y10, Y12
	VMOVUPD 32(BX)(R10*8), Y13
	VPXOR   Y11, Y11, Y11
	FIRST_CANDIDATES

pair_first: // m = i0..i0+2: the first block's diagonal, no candidate in the second
	CMPQ CX, $96
	JGE  pair_fourth
	LEX_BROADCAST
	LEX_CANDIDATES(0, Y0, Y9)
	LEX_MASK
	LEX_KEEP(Y0, Y1, Y2, Y9)
	NEXT_CANDIDATES
	ADDQ $32, CX
	JMP  pair_first

pair_fourth: // m = i0+3: the first block whole, still none in the second
	LEX_BROADCAST
	LEX_CANDIDATES(0, Y0, Y9)
	LEX_KEEP(Y0, Y1, Y2, Y9)
	NEXT_CANDIDATES
	XORQ CX, CX

pair_diag: // m = i0+4..i0+6 (< j): the second block's diagonal
	CMPQ CX, $96
	JGE  pair_main
	LEX_BROADCAST
	LEX_CANDIDATES(0, Y0, Y9)
	LEX_KEEP(Y0, Y1, Y2, Y9)
	LEX_CANDIDATES(32, Y10, Y13)
	LEX_MASK
	LEX_KEEP(Y10, Y11, Y12, Y13)
	NEXT_CANDIDATES
	ADDQ $32, CX
	JMP  pair_diag

pair_main:
	CMPQ R11, R9
	JGE  pair_done
	LEX_BROADCAST
	LEX_CANDIDATES(0, Y0, Y9)
	LEX_KEEP(Y0, Y1, Y2, Y9)
	LEX_CANDIDATES(32, Y10, Y13)
	LEX_KEEP(Y10, Y11, Y12, Y13)
	NEXT_CANDIDATES
	JMP  pair_main

pair_done: // the first block's rows now, the second's after them (next_block)
	VMOVUPD Y10, 128(SP)
	VMOVDQU Y11, 160(SP)
	VMOVUPD Y12, 192(SP)
	MOVQ    $1, 224(SP)
	JMP     finish

done: // column j is searched: on to the next, if any, unless a row had no winner
	CMPQ  72(SP), $0
	JNE   finished
	INCQ  112(SP)
	CMPQ  R9, last+224(FP)
	JGE   finished
	ADDQ  R8, av_base+80(FP)
	ADDQ  R8, ag_base+104(FP)
	ADDQ  R8, al_base+128(FP)
	LEAQ  1(R9), AX
	ADDQ  AX, cut_base+200(FP) // past column j's j+1 cuts
	INCQ  R9
	MOVQ  R9, AX
	IMULQ R8, AX
	MOVQ  AX, 32(SP)
	MOVQ  av_base+80(FP), DI
	XORQ  R10, R10
	JMP   block

finished:
	MOVQ 112(SP), AX
	MOVQ AX, done+232(FP)
	VZEROUPPER
	RET
