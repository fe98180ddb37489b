//go:build amd64 && !purego

#include "textflag.h"

// rawlanes<>+32*r: the mask of the first r+1 lanes of a vector.
DATA rawlanes<>+0(SB)/8, $-1
DATA rawlanes<>+8(SB)/8, $0
DATA rawlanes<>+16(SB)/8, $0
DATA rawlanes<>+24(SB)/8, $0
DATA rawlanes<>+32(SB)/8, $-1
DATA rawlanes<>+40(SB)/8, $-1
DATA rawlanes<>+48(SB)/8, $0
DATA rawlanes<>+56(SB)/8, $0
DATA rawlanes<>+64(SB)/8, $-1
DATA rawlanes<>+72(SB)/8, $-1
DATA rawlanes<>+80(SB)/8, $-1
DATA rawlanes<>+88(SB)/8, $0
DATA rawlanes<>+96(SB)/8, $-1
DATA rawlanes<>+104(SB)/8, $-1
DATA rawlanes<>+112(SB)/8, $-1
DATA rawlanes<>+120(SB)/8, $-1
GLOBL rawlanes<>(SB), RODATA|NOPTR, $128

DATA rawabs<>+0(SB)/8, $0x7FFFFFFFFFFFFFFF
GLOBL rawabs<>(SB), RODATA|NOPTR, $8

DATA rawnoise<>+0(SB)/8, $0x3D3C25C268497682 // 1e-13
GLOBL rawnoise<>(SB), RODATA|NOPTR, $8

// func aggregateRawAVX2(T int, xl, tot, sent, ent, lr []float64, gain0, loss0, p, q float64, av, ag, al, kv, kg, kl []float64, split []uint64, lines []float64)
//
// aggregateRawGeneric four intervals at a time: column j of the node's
// intervals, rows i0..i0+3, in one vector per quantity. Lanes past j read
// values of other intervals (xl, tot, ent, lr and the tables have room),
// write values past the column into the tables (the next column's first
// rows, written again before they are read, or the room after the
// table), leave ent alone and set no split bit.
//
// Registers: R8 = T*8, R9 = j, R10 = triIndex(0,j), R11 = i0, R12 =
// j*T*8, SI = xl, DI = tot, BX = ent, DX = &lr[T-1-j]; Y15 = sent[j],
// Y14 = the lanes of the column. Frame: |x| mask, 1e-13, gain0, loss0, p
// and q in four lanes each, then a word.
//
// With lines (cached qualities, in the engine's units: gain and loss of
// every interval, triangular index), the measures are read from them
// instead (xl, tot, sent, ent, lr, gain0 and loss0 unused): four lines,
// two vectors, unpacked into gains and losses.
TEXT ·aggregateRawAVX2(SB), NOSPLIT, $200-352
	VBROADCASTSD rawabs<>(SB), Y0
	VMOVUPD      Y0, 0(SP)
	VBROADCASTSD rawnoise<>(SB), Y0
	VMOVUPD      Y0, 32(SP)
	VBROADCASTSD gain0+128(FP), Y0
	VMOVUPD      Y0, 64(SP)
	VBROADCASTSD loss0+136(FP), Y0
	VMOVUPD      Y0, 96(SP)
	VBROADCASTSD p+144(FP), Y0
	VMOVUPD      Y0, 128(SP)
	VBROADCASTSD q+152(FP), Y0
	VMOVUPD      Y0, 160(SP)
	MOVQ         T+0(FP), R8
	SHLQ         $3, R8
	MOVQ         xl_base+8(FP), SI
	MOVQ         tot_base+32(FP), DI
	MOVQ         ent_base+80(FP), BX
	XORQ         R9, R9
	XORQ         R10, R10
	XORQ         R12, R12

column:
	CMPQ         R9, T+0(FP)
	JGE          done
	MOVQ         sent_base+56(FP), AX
	TESTQ        AX, AX
	JEQ          no_sent
	VBROADCASTSD (AX)(R9*8), Y15

no_sent:
	MOVQ         lr_base+104(FP), DX
	ADDQ         R8, DX
	SUBQ         $8, DX
	MOVQ         R9, AX
	SHLQ         $3, AX
	SUBQ         AX, DX
	XORQ         R11, R11

block:
	CMPQ R11, R9
	JGT  next_column
	MOVQ R9, AX
	SUBQ R11, AX
	CMPQ AX, $3
	JLE  mask
	MOVQ $3, AX

mask:
	SHLQ    $5, AX
	LEAQ    rawlanes<>(SB), CX
	VMOVUPD (CX)(AX*1), Y14

	MOVQ  lines_base+328(FP), AX
	TESTQ AX, AX
	JNE   cached

	// ent(i,j) = ent(i,j-1) + sent[j], ent(j,j) = 0 + sent[j] (ent holds
	// 0 past j-1).
	VMOVUPD   (BX)(R11*8), Y0
	VADDPD    Y15, Y0, Y1
	VBLENDVPD Y14, Y1, Y0, Y0
	VMOVUPD   Y0, (BX)(R11*8)

	// gainLossLog.
	LEAQ    (R10)(R11*1), AX
	VMOVUPD (SI)(AX*8), Y2    // xl
	VMOVUPD (DI)(AX*8), Y3    // total
	VMULPD  (DX)(R11*8), Y3, Y3 // scale = total * logSize
	VANDPD  0(SP), Y2, Y4
	VANDPD  0(SP), Y0, Y5
	VADDPD  Y5, Y4, Y4
	VADDPD  Y3, Y4, Y4
	VMULPD  32(SP), Y4, Y4 // noise
	VSUBPD  Y0, Y2, Y5     // gain = xl - ent
	VCMPPD  $0x12, Y4, Y5, Y6 // gain <= noise
	VANDNPD Y5, Y6, Y5
	VSUBPD  Y5, Y3, Y7     // loss = scale - gain
	VCMPPD  $0x12, Y4, Y7, Y6 // loss <= noise
	VANDNPD Y7, Y6, Y7

	// In the engine's units, and the value at p.
	VDIVPD 64(SP), Y5, Y5 // g
	VDIVPD 96(SP), Y7, Y7 // l
	JMP    value

cached: // lines triIndex(i0,j).. : g, l, g, l... to g, g, g, g and l, l, l, l
	LEAQ      (R10)(R11*1), CX
	SHLQ      $4, CX
	VMOVUPD   (AX)(CX*1), Y2
	VMOVUPD   32(AX)(CX*1), Y3
	VUNPCKLPD Y3, Y2, Y5
	VUNPCKHPD Y3, Y2, Y7
	VPERMPD   $0xD8, Y5, Y5
	VPERMPD   $0xD8, Y7, Y7

value:
	VMULPD 128(SP), Y5, Y8
	VMULPD 160(SP), Y7, Y9
	VSUBPD Y9, Y8, Y8 // v = p*g - q*l

	MOVQ  R12, CX
	LEAQ  (CX)(R11*8), CX // byte offset of [i0..j] in the tables
	MOVQ  kv_base+232(FP), AX
	TESTQ AX, AX
	JEQ   store

	// The children's best, if better (quality.better): larger value,
	// else (same value) larger gain, else (same gain) smaller loss.
	VMOVUPD   (AX)(CX*1), Y10
	MOVQ      kg_base+256(FP), AX
	VMOVUPD   (AX)(CX*1), Y11
	MOVQ      kl_base+280(FP), AX
	VMOVUPD   (AX)(CX*1), Y12
	VCMPPD    $0x04, Y8, Y10, Y0 // kid v != v
	VCMPPD    $0x1e, Y8, Y10, Y1 // kid v > v
	VCMPPD    $0x04, Y5, Y11, Y2 // kid g != g
	VCMPPD    $0x1e, Y5, Y11, Y3 // kid g > g
	VCMPPD    $0x11, Y7, Y12, Y4 // kid l < l
	VBLENDVPD Y2, Y3, Y4, Y4
	VBLENDVPD Y0, Y1, Y4, Y4
	VANDPD    Y14, Y4, Y4
	VBLENDVPD Y4, Y10, Y8, Y8
	VBLENDVPD Y4, Y11, Y5, Y5
	VBLENDVPD Y4, Y12, Y7, Y7
	VMOVMSKPD Y4, AX
	TESTQ     AX, AX
	JEQ       store

	// Split bits at triIndex(i0,j), possibly over two words.
	MOVQ  AX, 192(SP)
	MOVQ  R10, R13
	ADDQ  R11, R13
	MOVQ  R13, CX
	ANDQ  $63, CX
	SHRQ  $6, R13
	MOVQ  split_base+304(FP), R14
	SHLQ  CX, AX
	ORQ   AX, (R14)(R13*8)
	CMPQ  CX, $60
	JLE   split_done
	MOVQ  192(SP), AX
	NEGQ  CX
	ADDQ  $64, CX
	SHRQ  CX, AX
	TESTQ AX, AX
	JEQ   split_done
	ORQ   AX, 8(R14)(R13*8)

split_done:
	MOVQ R12, CX
	LEAQ (CX)(R11*8), CX

store:
	MOVQ    av_base+160(FP), AX
	VMOVUPD Y8, (AX)(CX*1)
	MOVQ    ag_base+184(FP), AX
	VMOVUPD Y5, (AX)(CX*1)
	MOVQ    al_base+208(FP), AX
	VMOVUPD Y7, (AX)(CX*1)
	ADDQ    $4, R11
	JMP     block

next_column:
	INCQ R9
	ADDQ R9, R10 // triIndex(0,j+1) = triIndex(0,j) + j+1
	ADDQ R8, R12
	JMP  column

done:
	VZEROUPPER
	RET
