//go:build amd64 && !purego

#include "textflag.h"

// The offsets of the fields of a block (stage1.go).
#define QUOTES 0
#define INSIDE 8
#define STRUCTURAL 16
#define BLANKS 24
#define NEWLINES 32
#define STOPS 40
#define BLOCK 48

// CLASSIFY classifies the 32 bytes in Y, the half at byte offset OFF (0
// or 4) of the block's words: it writes the blanks, newlines and stops of
// the block and leaves the raw quotes in Q, the backslashes in B and the
// raw structural characters in S, for the scalar part. AX, BX, Y14 and
// Y15 are scratch.
#define CLASSIFY(Y, OFF, Q, B, S) \
	VPCMPEQB Y, Y2, Y14 \
	VPMOVMSKB Y14, Q \
	VPCMPEQB Y, Y3, Y15 \
	VPMOVMSKB Y15, B \
	MOVL Q, AX \
	ORL B, AX \
	VPMINUB Y, Y13, Y14 \
	VPCMPEQB Y14, Y, Y14 \
	VPMOVMSKB Y14, BX \
	ORL BX, AX \
	VPMOVMSKB Y, BX \
	ORL BX, AX \
	MOVL AX, (STOPS+OFF)(DI) \
	VPCMPEQB Y, Y7, Y14 \
	VPMOVMSKB Y14, AX \
	MOVL AX, (NEWLINES+OFF)(DI) \
	VPCMPEQB Y, Y4, Y15 \
	VPOR Y15, Y14, Y14 \
	VPCMPEQB Y, Y5, Y15 \
	VPOR Y15, Y14, Y14 \
	VPCMPEQB Y, Y6, Y15 \
	VPOR Y15, Y14, Y14 \
	VPMOVMSKB Y14, AX \
	MOVL AX, (BLANKS+OFF)(DI) \
	VPOR Y, Y12, Y14 \
	VPCMPEQB Y14, Y8, Y15 \
	VPCMPEQB Y14, Y9, Y14 \
	VPOR Y15, Y14, Y14 \
	VPCMPEQB Y, Y10, Y15 \
	VPOR Y15, Y14, Y14 \
	VPCMPEQB Y, Y11, Y15 \
	VPOR Y15, Y14, Y14 \
	VPMOVMSKB Y14, S

#define BROADCAST(V, Y) \
	MOVQ $V, AX \
	VMOVQ AX, X14 \
	VPBROADCASTB X14, Y

// func indexAVX2(data []byte, blocks []block, c *carry)
//
// For each block of 64 bytes, the bitmaps of indexGeneric: the bytes are
// classified with vector compares, then the escaped bytes are found from
// the backslashes as escapedBytes does and the inside of strings from
// the quotes by a carry-less multiplication with all ones (the prefix
// XOR).
TEXT ·indexAVX2(SB), NOSPLIT, $0-56
	MOVQ data_base+0(FP), SI
	MOVQ blocks_base+24(FP), DI
	MOVQ blocks_len+32(FP), CX
	MOVQ c+48(FP), R8
	TESTQ CX, CX
	JZ   done
	MOVQ 0(R8), R9  // escaped
	MOVQ 8(R8), R10 // inString
	BROADCAST(0x22, Y2)
	BROADCAST(0x5c, Y3)
	BROADCAST(0x20, Y4)
	BROADCAST(0x09, Y5)
	BROADCAST(0x0d, Y6)
	BROADCAST(0x0a, Y7)
	BROADCAST(0x7b, Y8)
	BROADCAST(0x7d, Y9)
	BROADCAST(0x3a, Y10)
	BROADCAST(0x2c, Y11)
	BROADCAST(0x20, Y12)
	BROADCAST(0x1f, Y13)

loop:
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1
	CLASSIFY(Y0, 0, DX, R11, R13)
	CLASSIFY(Y1, 4, R8, R12, R14)
	SHLQ $32, R8
	ORQ  R8, DX  // raw quotes
	SHLQ $32, R12
	ORQ  R12, R11 // backslashes
	SHLQ $32, R14
	ORQ  R14, R13 // raw structural characters

	// The escaped bytes, into AX (escapedBytes).
	TESTQ R11, R11
	JNZ  backslashes
	MOVQ R9, AX
	XORQ R9, R9
	JMP  escaped

backslashes:
	ANDNQ R11, R9, R11 // backslashes &^ escaped
	MOVQ  R11, BX
	SHLQ  $1, BX
	ORQ   R9, BX        // followsEscape
	MOVQ  $0x5555555555555555, R12
	ANDNQ R11, R12, R8  // backslashes &^ evenBits
	ANDNQ R8, BX, R8    // &^ followsEscape: oddStarts
	MOVL  $0, R9
	ADDQ  R11, R8       // evenStarts
	ADCQ  $0, R9        // the carry out: the next block's first byte is escaped
	SHLQ  $1, R8
	XORQ  R12, R8
	ANDQ  BX, R8
	MOVQ  R8, AX

escaped:
	ANDNQ DX, AX, DX // quotes: raw quotes &^ escaped
	MOVQ  DX, QUOTES(DI)
	VMOVQ DX, X14
	VPCMPEQB X15, X15, X15
	VPCLMULQDQ $0, X15, X14, X14 // the prefix XOR
	VMOVQ X14, AX
	XORQ  R10, AX    // inside
	MOVQ  AX, INSIDE(DI)
	MOVQ  AX, R10
	SARQ  $63, R10   // inString
	ANDNQ R13, AX, R13
	MOVQ  R13, STRUCTURAL(DI)

	ADDQ $64, SI
	ADDQ $BLOCK, DI
	DECQ CX
	JNZ  loop
	VZEROUPPER
	MOVQ c+48(FP), R8
	MOVQ R9, 0(R8)
	MOVQ R10, 8(R8)

done:
	RET
