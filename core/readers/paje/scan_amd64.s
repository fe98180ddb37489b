//go:build amd64 && !purego

#include "textflag.h"

// func classifyAVX2(data []byte, spaces, odds []uint64)
//
// For each block of 64 bytes: the bytes equal to ' ' (spaces), and those
// below '$' as signed bytes (so from 0x80 up as well) that are not ' '
// (odds), one bit a byte.
TEXT ·classifyAVX2(SB), NOSPLIT, $0-72
	MOVQ data_base+0(FP), SI
	MOVQ spaces_base+24(FP), DI
	MOVQ spaces_len+32(FP), CX
	MOVQ odds_base+48(FP), R8
	TESTQ CX, CX
	JZ   done
	MOVQ $0x24, AX
	MOVQ AX, X4
	VPBROADCASTB X4, Y4
	MOVQ $0x20, AX
	MOVQ AX, X5
	VPBROADCASTB X5, Y5

loop:
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1
	VPCMPEQB Y0, Y5, Y2
	VPCMPEQB Y1, Y5, Y3
	VPCMPGTB Y0, Y4, Y6
	VPCMPGTB Y1, Y4, Y7
	VPMOVMSKB Y2, AX
	VPMOVMSKB Y3, BX
	SHLQ $32, BX
	ORQ  BX, AX
	VPMOVMSKB Y6, DX
	VPMOVMSKB Y7, BX
	SHLQ $32, BX
	ORQ  BX, DX
	MOVQ AX, (DI)
	NOTQ AX
	ANDQ AX, DX
	MOVQ DX, (R8)
	ADDQ $64, SI
	ADDQ $8, DI
	ADDQ $8, R8
	DECQ CX
	JNZ  loop
	VZEROUPPER

done:
	RET
