//go:build amd64 && !purego

#include "textflag.h"

// columnSearchAVX512 is columnSearchAVX2 (column_amd64.s) by blocks of
// eight rows, two blocks at once while sixteen rows are left: the same
// operations on each row, in the same order, so the same winners and the
// same bits. The masks that the AVX2 kernel keeps in vector registers are
// opmask registers here (one bit a row), and the lanes past the rows of
// a column are masked off in the loads and stores: the kernel reads and
// writes no more than columnSearchAVX2 does.

// On to the next m: its cut in Z3, &best(i0,m) in R12.
#define NEXT512 \
	VPADDQ Z4, Z3, Z3 \
	ADDQ   R8, R12 \
	INCQ   R11

// One step of the search of a block of eight rows, for m: the candidates
// cand = best(i,m) + agg(m+1,j) (R12 = &best(i0,m), the rows past j
// masked off by K7 and read as 0), K1 = cand > top (ordered: $0x1e), K3 =
// cand == top or unordered ($0x08), both in the lanes of K5 only (the
// rows that have a candidate); the rows where cand is larger than their
// top take it (Z0) and the cut m+1 (Z3, into Z1); a row where cand
// equals its top, or either is NaN, is flagged (K2).
#define STEP512 \
	VBROADCASTSD 8(DI)(R11*8), Z5 \
	VMOVUPD.Z    (R12), K7, Z6 \
	VADDPD       Z5, Z6, Z6 \
	VCMPPD       $0x1e, Z0, Z6, K5, K1 \
	VCMPPD       $0x08, Z0, Z6, K5, K3 \
	VMAXPD       Z0, Z6, Z0 \
	VMOVDQU64    Z3, K1, Z1 \
	KORB         K3, K2, K2 \
	NEXT512

// STEP512 on the diagonal, where the rows past m (outside K5) must not
// take a value: VMAXPD would, so a masked move.
#define STEP512_MASKED \
	VBROADCASTSD 8(DI)(R11*8), Z5 \
	VMOVUPD.Z    (R12), K7, Z6 \
	VADDPD       Z5, Z6, Z6 \
	VCMPPD       $0x1e, Z0, Z6, K5, K1 \
	VCMPPD       $0x08, Z0, Z6, K5, K3 \
	VMOVAPD      Z6, K1, Z0 \
	VMOVDQU64    Z3, K1, Z1 \
	KORB         K3, K2, K2 \
	NEXT512

// The same step for two blocks of eight rows at once, i0..i0+7 (Z0, Z1,
// K2) and i0+8..i0+15 (Z9, Z10, K6), every row at most j: their
// candidates are one column of best, sixteen rows long. K5 masks the
// second block's rows on its diagonal (all of them after).
#define PAIR512(SECOND_KEEP) \
	VBROADCASTSD 8(DI)(R11*8), Z5 \
	VMOVUPD      (R12), Z6 \
	VADDPD       Z5, Z6, Z6 \
	VMOVUPD      64(R12), Z12 \
	VADDPD       Z5, Z12, Z12 \
	VCMPPD       $0x1e, Z0, Z6, K1 \
	VCMPPD       $0x08, Z0, Z6, K3 \
	VCMPPD       $0x1e, Z9, Z12, K5, K4 \
	VCMPPD       $0x08, Z9, Z12, K5, K0 \
	VMAXPD       Z0, Z6, Z0 \
	VMOVDQU64    Z3, K1, Z1 \
	KORB         K3, K2, K2 \
	SECOND_KEEP \
	VMOVDQU64    Z3, K4, Z10 \
	KORB         K0, K6, K6 \
	NEXT512

#define KEEP_SECOND VMAXPD Z9, Z12, Z9
#define KEEP_SECOND_MASKED VMOVAPD Z12, K4, Z9

// The start of a pass over a block's candidates, at m = i0: Z3 = the cut
// after m in every lane, R11 = m, R12 = &best(i0,i0), R13 = 1, the lane
// mask of the first step (one more lane each step on the diagonal).
#define FIRST512 \
	LEAQ         1(R10), CX \
	VPBROADCASTQ CX, Z3 \
	MOVQ         R10, R11 \
	MOVQ         R10, R12 \
	IMULQ        R8, R12 \
	ADDQ         SI, R12 \
	LEAQ         (R12)(R10*8), R12 \
	MOVQ         $1, R13

// The mask of the block's rows that are at most j into K7 (all eight but
// in a column's last block). Uses AX, BX, CX.
#define ROWS512 \
	MOVQ    R9, CX \
	SUBQ    R10, CX \
	INCQ    CX \
	MOVQ    $1, AX \
	SHLQ    CX, AX \
	DECQ    AX \
	MOVQ    $0xFF, BX \
	CMPQ    CX, $8 \
	CMOVQGE BX, AX \
	KMOVB   AX, K7

// One step of the resolution of a block's flagged rows, for m: the
// candidates' values as the search adds them (Z6), K1 = NaN, then (after
// RESOLVE512_EQUAL, which keeps K6 = a NaN seen) K1 = equal to the row's
// largest value (Z0), both within K5. RESOLVE512_KEEP takes, in the rows
// where the candidate is equal, the candidate with a larger gain (Z8,
// against Z9), or the same gain and a smaller loss (Z15, against Z10), or
// any if the row has no winner yet (K4): its cut into Z11, its value,
// gain and loss into Z1, Z9, Z10. BX = ag, DX = al, R14 and AX the
// offsets of g and l from v.
#define RESOLVE512_VALUES \
	VBROADCASTSD 8(DI)(R11*8), Z5 \
	VADDPD.Z     (R12), Z5, K7, Z6 \
	VCMPPD       $3, Z6, Z6, K5, K1

#define RESOLVE512_EQUAL \
	KORB   K1, K6, K6 \
	VCMPPD $0x00, Z0, Z6, K5, K1

#define RESOLVE512_KEEP \
	VBROADCASTSD 8(BX)(R11*8), Z5 \
	VADDPD.Z     (R12)(R14*1), Z5, K7, Z8 \
	VBROADCASTSD 8(DX)(R11*8), Z5 \
	VADDPD.Z     (R12)(AX*1), Z5, K7, Z15 \
	VCMPPD       $0x1e, Z9, Z8, K3 \
	VCMPPD       $0x00, Z9, Z8, K2 \
	VCMPPD       $0x11, Z10, Z15, K2, K0 \
	KORB         K0, K3, K3 \
	KORB         K4, K3, K3 \
	KANDB        K1, K3, K3 \
	VMOVDQU64    Z3, K3, Z11 \
	VMOVAPD      Z6, K3, Z1 \
	VMOVAPD      Z8, K3, Z9 \
	VMOVAPD      Z15, K3, Z10 \
	KANDNB       K4, K3, K4 \
	NEXT512

// The gain and loss of row i's optimum (R11 = i, R13 = byte offset of
// best(i,j)), when agg(i,j) wins: copied from ag and al. Uses BX, X5.
#define COMPOSE512_AGG \
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
#define COMPOSE512_CUT \
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

// NEXT_COLUMN ends the search of column j: to FINISHED if a row had no
// winner or j was the last column; otherwise the arguments move on to
// column j+1 (its values, gains and losses one row of R8 bytes further, its
// cuts past column j's j+1) and the search starts again at BLOCK.
#define NEXT_COLUMN(FINISHED, BLOCK) \
	CMPQ  72(SP), $0 \
	JNE   FINISHED \
	INCQ  160(SP) \
	CMPQ  R9, last+224(FP) \
	JGE   FINISHED \
	ADDQ  R8, av_base+80(FP) \
	ADDQ  R8, ag_base+104(FP) \
	ADDQ  R8, al_base+128(FP) \
	LEAQ  1(R9), AX \
	ADDQ  AX, cut_base+200(FP) \
	INCQ  R9 \
	MOVQ  R9, AX \
	IMULQ R8, AX \
	MOVQ  AX, 64(SP) \
	MOVQ  av_base+80(FP), DI \
	XORQ  R10, R10 \
	JMP   BLOCK

// func columnSearchAVX512(v, g, l []float64, T int, av, ag, al []float64, pos []int, skip []bool, cut []byte, last int) (done int)
//
// Registers as columnSearchAVX2's: SI = v, DI = av, R8 = T*8, R9 = j,
// R10 = i0, R11 = m, R12 = &best(i0,m); Z4 = 1 in every lane, K7 = the
// block's rows. Frame: the winners of a block at 0(SP), j*T*8 at 64(SP),
// left at 72(SP), the flags of a block at 80(SP), the largest values of
// a block at 96(SP), the columns done at 160(SP); when two blocks are
// searched together, the second block's largest values, winners and
// flags at 176(SP), 240(SP) and 304(SP), and at 168(SP) 1 while its rows
// wait for the first block's to be finished.
TEXT ·columnSearchAVX512(SB), NOSPLIT, $312-240
	MOVQ         v_base+0(FP), SI
	MOVQ         av_base+80(FP), DI
	MOVQ         T+72(FP), R8
	SHLQ         $3, R8
	MOVQ         pos_len+160(FP), R9
	DECQ         R9
	MOVQ         R9, AX
	IMULQ        R8, AX
	MOVQ         AX, 64(SP)
	MOVQ         $0, 72(SP)
	MOVQ         $0, 160(SP)
	MOVQ         $0, 168(SP)
	MOVQ         $1, AX
	VPBROADCASTQ AX, Z4
	XORQ         R10, R10

block:
	CMPQ  R10, R9
	JGT   done
	MOVQ  skip_base+176(FP), R11
	TESTQ R11, R11
	JEQ   unskipped
	MOVQ  R10, AX
	LEAQ  8(R10), CX

skip_row: // is every row of the block skipped?
	CMPB (R11)(AX*1), $0
	JEQ  search
	INCQ AX
	CMPQ AX, R9
	JGT  next_block
	CMPQ AX, CX
	JLT  skip_row
	JMP  next_block

unskipped: // sixteen rows or more left: two blocks at once
	LEAQ 15(R10), AX
	CMPQ AX, R9
	JLE  pair

search:
	ROWS512
	VMOVUPD.Z (DI)(R10*8), K7, Z0 // agg(i,j)
	VCMPPD    $3, Z0, Z0, K2      // NaN: flagged
	VPXORQ    Z1, Z1, Z1
	FIRST512

diag: // m = i0+s, s < 7: rows i0+s+1.. have no candidate yet
	CMPQ  R11, R9
	JGE   finish
	CMPQ  R13, $0xFF
	JEQ   main
	KMOVB R13, K5
	STEP512_MASKED
	LEAQ  1(R13)(R13*1), R13
	JMP   diag

main:
	KXNORB K5, K5, K5

main_loop:
	CMPQ R11, R9
	JGE  finish
	STEP512
	JMP  main_loop

finish:
	KANDB     K7, K2, K2 // rows past j are not flagged
	KMOVB     K2, AX     // flagged rows
	VMOVDQU64 Z1, 0(SP)
	VMOVUPD   Z0, 96(SP)
	TESTQ     AX, AX
	JEQ       rows

	// Flagged rows, eight at a time: the candidates again, in order, those
	// equal to the row's largest value compared by the whole rule (the
	// first one, then a larger gain, or the same gain and a smaller loss),
	// as resolveRow does. Z11 = the winner, Z1, Z9, Z10 its value, gain and
	// loss, K4 = no winner yet, K6 = a NaN seen; the flags are kept at
	// 80(SP). A flagged row with a NaN (or, which cannot happen otherwise,
	// no winner) leaves the block to the row-by-row resolution below.
	KMOVB     K2, 80(SP)
	MOVQ      ag_base+104(FP), BX
	MOVQ      al_base+128(FP), DX
	VMOVUPD.Z (DI)(R10*8), K7, Z1 // agg(i,j), the first candidate
	VCMPPD    $0x00, Z0, Z1, K1
	VCMPPD    $3, Z1, Z1, K6
	VMOVUPD.Z (BX)(R10*8), K7, Z9
	VMOVUPD.Z (DX)(R10*8), K7, Z10
	VPXORQ    Z11, Z11, Z11
	KNOTB     K1, K4
	MOVQ      g_base+24(FP), R14
	SUBQ      SI, R14 // g - v
	MOVQ      l_base+48(FP), AX
	SUBQ      SI, AX // l - v
	FIRST512

resolve_diag:
	CMPQ  R11, R9
	JGE   resolved_block
	CMPQ  R13, $0xFF
	JEQ   resolve_main
	KMOVB R13, K5
	RESOLVE512_VALUES
	RESOLVE512_EQUAL
	RESOLVE512_KEEP
	LEAQ  1(R13)(R13*1), R13
	JMP   resolve_diag

resolve_main:
	KXNORB K5, K5, K5

resolve_loop:
	CMPQ R11, R9
	JGE  resolved_block
	RESOLVE512_VALUES
	RESOLVE512_EQUAL
	RESOLVE512_KEEP
	JMP  resolve_loop

resolved_block:
	KMOVB     80(SP), K2
	KMOVB     K2, AX // flagged rows
	KORB      K4, K6, K6
	KANDB     K2, K6, K6
	KORTESTB  K6, K6
	JNE       rows // a NaN: one by one
	VMOVDQU64 0(SP), Z5
	VMOVDQU64 Z11, K2, Z5
	VMOVDQU64 Z5, 0(SP) // the winners
	VMOVAPD   Z1, K2, Z0 // their values, the winners' own bits
	XORQ      AX, AX // no row left flagged

rows:
	XORQ  CX, CX // row of the block
	MOVQ  cut_base+200(FP), R12
	TESTQ R12, R12
	JEQ   row

	// Composing: the optimum's value of a row with a single winner is
	// its largest value, the same sum, stored for the block's rows at
	// once; a flagged row's is written again once resolved.
	MOVQ    64(SP), R13
	LEAQ    (R13)(R10*8), R13
	VMOVUPD Z0, K7, (SI)(R13*1)

row_composed:
	CMPQ  CX, $8
	JGE   next_block
	LEAQ  (R10)(CX*1), R11 // i
	CMPQ  R11, R9
	JGT   next_block
	BTQ   CX, AX
	JCS   resolve
	MOVQ  0(SP)(CX*8), DX // 0 or the cut c
	MOVQ  cut_base+200(FP), R12
	MOVB  DX, (R12)(R11*1)
	MOVQ  64(SP), R13
	LEAQ  (R13)(R11*8), R13 // byte offset of best(i,j)
	TESTQ DX, DX
	JNE   composed_cut
	COMPOSE512_AGG
	INCQ  CX
	JMP   row_composed

composed_cut: // gain and loss of best(i,c-1) + agg(c,j)
	LEAQ  -1(DX), R12
	IMULQ R8, R12
	LEAQ  (R12)(R11*8), R12 // byte offset of best(i,c-1)
	COMPOSE512_CUT
	INCQ  CX
	JMP   row_composed

row:
	CMPQ CX, $8
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
	VMOVSD   96(SP)(CX*8), X10 // the largest value
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
	MOVQ  64(SP), R13
	LEAQ  (R13)(R11*8), R13 // byte offset of best(i,j)
	TESTQ DX, DX
	JNE   compose_cut

	// agg(i,j) wins.
	VMOVSD (DI)(R11*8), X5
	VMOVSD X5, (SI)(R13*1)
	COMPOSE512_AGG
	JMP    next_row

compose_cut: // best(i,c-1) + agg(c,j)
	LEAQ   -1(DX), R12
	IMULQ  R8, R12
	LEAQ   (R12)(R11*8), R12 // byte offset of best(i,c-1)
	VMOVSD (SI)(R12*1), X5
	VADDSD (DI)(DX*8), X5, X5
	VMOVSD X5, (SI)(R13*1)
	COMPOSE512_CUT

next_row:
	INCQ  CX
	MOVQ  cut_base+200(FP), R12
	TESTQ R12, R12
	JEQ   row
	JMP   row_composed

next_block:
	ADDQ $8, R10
	CMPQ 168(SP), $0
	JEQ  block

	// The second block of a pair: its search is done, on to its rows
	// (all eight at most j: K7 is still every lane).
	MOVQ      $0, 168(SP)
	VMOVUPD   176(SP), Z0
	VMOVDQU64 240(SP), Z1
	KMOVB     304(SP), K2
	JMP       finish

pair: // rows i0..i0+15, all at most j
	KXNORB    K7, K7, K7
	VMOVUPD   (DI)(R10*8), Z0 // agg(i,j)
	VCMPPD    $3, Z0, Z0, K2  // NaN: flagged
	VPXORQ    Z1, Z1, Z1
	VMOVUPD   64(DI)(R10*8), Z9
	VCMPPD    $3, Z9, Z9, K6
	VPXORQ    Z10, Z10, Z10
	FIRST512

pair_first: // m = i0..i0+6: the first block's diagonal, no candidate in the second
	CMPQ  R13, $0xFF
	JEQ   pair_eighth
	KMOVB R13, K5
	STEP512_MASKED
	LEAQ  1(R13)(R13*1), R13
	JMP   pair_first

pair_eighth: // m = i0+7: the first block whole, still none in the second
	KXNORB K5, K5, K5
	STEP512
	MOVQ   $1, R13

pair_diag: // m = i0+8..i0+14 (< j): the second block's diagonal
	CMPQ  R13, $0xFF
	JEQ   pair_main
	KMOVB R13, K5
	PAIR512(KEEP_SECOND_MASKED)
	LEAQ  1(R13)(R13*1), R13
	JMP   pair_diag

pair_main:
	KXNORB K5, K5, K5

pair_loop:
	CMPQ R11, R9
	JGE  pair_done
	PAIR512(KEEP_SECOND)
	JMP  pair_loop

pair_done: // the first block's rows now, the second's after them (next_block)
	VMOVUPD   Z9, 176(SP)
	VMOVDQU64 Z10, 240(SP)
	KMOVB     K6, 304(SP)
	MOVQ      $1, 168(SP)
	JMP       finish

done: // column j is searched: on to the next, if any, unless a row had no winner
	NEXT_COLUMN(finished, block)

finished:
	MOVQ 160(SP), AX
	MOVQ AX, done+232(FP)
	VZEROUPPER
	RET

// The search at p = 0 by blocks of eight rows (columnSearchLexAVX512),
// one step for m: the candidates' values cand = best(i,m) + agg(m+1,j)
// (Z6) and gains best.g(i,m) + ag(m+1) (Z7), R14 = the offset of g from
// v, BX = ag; K1 = take: the candidate larger than the row's top (Z0),
// or equal to it with a larger gain than the top's (Z9), within K5 (the
// rows that have a candidate); the rows that take it take its value,
// gain and cut (Z3, into Z1); a NaN candidate flags its row (K2).
#define LEX512 \
	VBROADCASTSD 8(DI)(R11*8), Z5 \
	VBROADCASTSD 8(BX)(R11*8), Z13 \
	VMOVUPD.Z    (R12), K7, Z6 \
	VADDPD       Z5, Z6, Z6 \
	VMOVUPD.Z    (R12)(R14*1), K7, Z7 \
	VADDPD       Z13, Z7, Z7 \
	VCMPPD       $0x00, Z0, Z6, K5, K3 \
	VCMPPD       $0x1e, Z9, Z7, K3, K3 \
	VCMPPD       $0x1e, Z0, Z6, K5, K1 \
	KORB         K3, K1, K1 \
	VCMPPD       $3, Z6, Z6, K5, K3 \
	KORB         K3, K2, K2 \
	VMOVAPD      Z6, K1, Z0 \
	VMOVAPD      Z7, K1, Z9 \
	VMOVDQU64    Z3, K1, Z1 \
	NEXT512

// LEX512 for two blocks of eight rows at once, i0..i0+7 (Z0, Z9, Z1, K2)
// and i0+8..i0+15 (Z10, Z11, Z12, K6), every row at most j: the first
// block's rows all have a candidate, the second's those of K5.
#define PAIRLEX512 \
	VBROADCASTSD 8(DI)(R11*8), Z5 \
	VBROADCASTSD 8(BX)(R11*8), Z13 \
	VADDPD       (R12), Z5, Z6 \
	VADDPD       (R12)(R14*1), Z13, Z7 \
	VADDPD       64(R12), Z5, Z14 \
	VADDPD       64(R12)(R14*1), Z13, Z15 \
	VCMPPD       $0x00, Z0, Z6, K3 \
	VCMPPD       $0x1e, Z9, Z7, K3, K3 \
	VCMPPD       $0x1e, Z0, Z6, K1 \
	KORB         K3, K1, K1 \
	VCMPPD       $3, Z6, Z6, K3 \
	KORB         K3, K2, K2 \
	VCMPPD       $0x00, Z10, Z14, K5, K4 \
	VCMPPD       $0x1e, Z11, Z15, K4, K4 \
	VCMPPD       $0x1e, Z10, Z14, K5, K0 \
	KORB         K0, K4, K4 \
	VCMPPD       $3, Z14, Z14, K5, K0 \
	KORB         K0, K6, K6 \
	VMOVAPD      Z6, K1, Z0 \
	VMOVAPD      Z7, K1, Z9 \
	VMOVDQU64    Z3, K1, Z1 \
	VMOVAPD      Z14, K4, Z10 \
	VMOVAPD      Z15, K4, Z11 \
	VMOVDQU64    Z3, K4, Z12 \
	NEXT512

// func columnSearchLexAVX512(v, g, l []float64, T int, av, ag, al []float64, pos []int, skip []bool, cut []byte, last int) (done int)
//
// columnSearchLexAVX2 by blocks of eight rows, two blocks at once while
// sixteen rows are left: the same operations on each row, in the same
// order, so the same winners and the same bits. Registers as
// columnSearchAVX512's, with the gains of the rows' tops in Z9 (Z11 for
// a pair's second block, whose tops, winners and flags are Z10, Z12,
// K6). Frame: the winners of a block at 0(SP), j*T*8 at 64(SP), left at
// 72(SP), the columns done at 160(SP); the second block of a pair's tops,
// winners and flags at 176(SP), 240(SP) and 304(SP), and at 168(SP) 1
// while its rows wait for the first block's to be finished.
TEXT ·columnSearchLexAVX512(SB), NOSPLIT, $312-240
	MOVQ         v_base+0(FP), SI
	MOVQ         av_base+80(FP), DI
	MOVQ         T+72(FP), R8
	SHLQ         $3, R8
	MOVQ         pos_len+160(FP), R9
	DECQ         R9
	MOVQ         R9, AX
	IMULQ        R8, AX
	MOVQ         AX, 64(SP)
	MOVQ         $0, 72(SP)
	MOVQ         $0, 160(SP)
	MOVQ         $0, 168(SP)
	MOVQ         $1, AX
	VPBROADCASTQ AX, Z4
	XORQ         R10, R10

lex_block:
	CMPQ R10, R9
	JGT  lex_done
	LEAQ 15(R10), AX
	CMPQ AX, R9
	JLE  lex_pair
	ROWS512
	MOVQ      ag_base+104(FP), BX
	MOVQ      g_base+24(FP), R14
	SUBQ      SI, R14 // g - v
	VMOVUPD.Z (DI)(R10*8), K7, Z0 // agg(i,j)
	VCMPPD    $3, Z0, Z0, K2      // NaN: flagged
	VMOVUPD.Z (BX)(R10*8), K7, Z9 // its gain
	VPXORQ    Z1, Z1, Z1
	FIRST512

lex_diag: // m = i0+s, s < 7: rows i0+s+1.. have no candidate yet
	CMPQ  R11, R9
	JGE   lex_finish
	CMPQ  R13, $0xFF
	JEQ   lex_main
	KMOVB R13, K5
	LEX512
	LEAQ  1(R13)(R13*1), R13
	JMP   lex_diag

lex_main:
	KXNORB K5, K5, K5

lex_main_loop:
	CMPQ R11, R9
	JGE  lex_finish
	LEX512
	JMP  lex_main_loop

lex_finish:
	KANDB     K7, K2, K2 // rows past j are not flagged
	KMOVB     K2, AX     // rows with a NaN
	VMOVDQU64 Z1, 0(SP)
	XORQ      CX, CX // row of the block

	// The optima's values, the winners' sums, for the block's rows at once.
	MOVQ    64(SP), R13
	LEAQ    (R13)(R10*8), R13
	VMOVUPD Z0, K7, (SI)(R13*1)

lex_row:
	CMPQ  CX, $8
	JGE   lex_next_block
	LEAQ  (R10)(CX*1), R11 // i
	CMPQ  R11, R9
	JGT   lex_next_block
	BTQ   CX, AX
	JCS   lex_no_winner
	MOVQ  0(SP)(CX*8), DX // 0 or the cut c
	MOVQ  cut_base+200(FP), R12
	MOVB  DX, (R12)(R11*1)
	MOVQ  64(SP), R13
	LEAQ  (R13)(R11*8), R13 // byte offset of best(i,j)
	TESTQ DX, DX
	JNE   lex_composed_cut
	COMPOSE512_AGG
	INCQ  CX
	JMP   lex_row

lex_composed_cut: // gain and loss of best(i,c-1) + agg(c,j)
	LEAQ  -1(DX), R12
	IMULQ R8, R12
	LEAQ  (R12)(R11*8), R12 // byte offset of best(i,c-1)
	COMPOSE512_CUT
	INCQ  CX
	JMP   lex_row

lex_no_winner: // NaN: left to the caller
	MOVQ pos_base+152(FP), R12
	MOVQ $-1, (R12)(R11*8)
	INCQ 72(SP)
	INCQ CX
	JMP  lex_row

lex_next_block:
	ADDQ $8, R10
	CMPQ 168(SP), $0
	JEQ  lex_block

	// The second block of a pair: its search is done, on to its rows
	// (all eight at most j: K7 is still every lane).
	MOVQ      $0, 168(SP)
	VMOVUPD   176(SP), Z0
	VMOVDQU64 240(SP), Z1
	KMOVB     304(SP), K2
	JMP       lex_finish

lex_pair: // rows i0..i0+15, all at most j
	KXNORB    K7, K7, K7
	MOVQ      ag_base+104(FP), BX
	MOVQ      g_base+24(FP), R14
	SUBQ      SI, R14              // g - v
	VMOVUPD   (DI)(R10*8), Z0      // agg(i,j)
	VCMPPD    $3, Z0, Z0, K2       // NaN: flagged
	VMOVUPD   (BX)(R10*8), Z9      // its gain
	VPXORQ    Z1, Z1, Z1
	VMOVUPD   64(DI)(R10*8), Z10
	VCMPPD    $3, Z10, Z10, K6
	VMOVUPD   64(BX)(R10*8), Z11
	VPXORQ    Z12, Z12, Z12
	FIRST512

lex_pair_first: // m = i0..i0+6: the first block's diagonal, no candidate in the second
	CMPQ  R13, $0xFF
	JEQ   lex_pair_eighth
	KMOVB R13, K5
	LEX512
	LEAQ  1(R13)(R13*1), R13
	JMP   lex_pair_first

lex_pair_eighth: // m = i0+7: the first block whole, still none in the second
	KXNORB K5, K5, K5
	LEX512
	MOVQ   $1, R13

lex_pair_diag: // m = i0+8..i0+14 (< j): the second block's diagonal
	CMPQ  R13, $0xFF
	JEQ   lex_pair_main
	KMOVB R13, K5
	PAIRLEX512
	LEAQ  1(R13)(R13*1), R13
	JMP   lex_pair_diag

lex_pair_main:
	KXNORB K5, K5, K5

lex_pair_loop:
	CMPQ R11, R9
	JGE  lex_pair_done
	PAIRLEX512
	JMP  lex_pair_loop

lex_pair_done: // the first block's rows now, the second's after them (lex_next_block)
	VMOVUPD   Z10, 176(SP)
	VMOVDQU64 Z12, 240(SP)
	KMOVB     K6, 304(SP)
	MOVQ      $1, 168(SP)
	JMP       lex_finish

lex_done: // column j is searched: on to the next, if any, unless a row had no winner
	NEXT_COLUMN(lex_finished, lex_block)

lex_finished:
	MOVQ 160(SP), AX
	MOVQ AX, done+232(FP)
	VZEROUPPER
	RET
