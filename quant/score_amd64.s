#include "textflag.h"

// func mse4DotAVX2(code *byte, even, odd *float32, n int, cent *float32) float32
//
// Σ over n bytes (n a multiple of 8) of even[i]·cent[code[i]&15] +
// odd[i]·cent[code[i]>>4]: eight bytes (sixteen 4-bit indices) per step,
// the 16 centroids looked up in two registers by VPERMPS and merged on the
// index's bit 3, two fused multiply-add accumulators.
TEXT ·mse4DotAVX2(SB), NOSPLIT, $0-44
	MOVQ code+0(FP), SI
	MOVQ even+8(FP), DI
	MOVQ odd+16(FP), R8
	MOVQ n+24(FP), CX
	MOVQ cent+32(FP), DX
	VMOVUPS (DX), Y14
	VMOVUPS 32(DX), Y15
	MOVL    $15, AX
	VMOVD   AX, X13
	VPBROADCASTD X13, Y13
	VXORPS  Y8, Y8, Y8
	VXORPS  Y9, Y9, Y9

loop:
	CMPQ CX, $8
	JL   reduce
	VPMOVZXBD (SI), Y0
	VPAND     Y13, Y0, Y1
	VPSRLD    $4, Y0, Y2
	VPERMPS   Y14, Y1, Y3
	VPERMPS   Y15, Y1, Y4
	VPSLLD    $28, Y1, Y5
	VBLENDVPS Y5, Y4, Y3, Y6
	VFMADD231PS (DI), Y6, Y8
	VPERMPS   Y14, Y2, Y3
	VPERMPS   Y15, Y2, Y4
	VPSLLD    $28, Y2, Y5
	VBLENDVPS Y5, Y4, Y3, Y7
	VFMADD231PS (R8), Y7, Y9
	ADDQ $8, SI
	ADDQ $32, DI
	ADDQ $32, R8
	SUBQ $8, CX
	JMP  loop

reduce:
	VADDPS       Y9, Y8, Y8
	VEXTRACTF128 $1, Y8, X1
	VADDPS       X1, X8, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	VZEROUPPER
	MOVSS X0, ret+40(FP)
	RET
