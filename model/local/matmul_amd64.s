#include "textflag.h"

// func gemm2x4AVX2(a *float32, lda int, b *float32, ldb int, c *float32, ldc int, k int, nblk int)
//
// For the two rows of a (a and a+lda) and 4*nblk rows of b (b, b+ldb,
// ...), c[r*ldc+j] = Σ_t a[r*lda+t]·b[j*ldb+t], t < k; k is a multiple of
// 8. Strides are in elements. Eight accumulators (2 rows x 4 columns)
// keep both FMA ports busy through the FMA latency; six loads feed eight
// FMAs per step of eight lanes.
TEXT ·gemm2x4AVX2(SB), NOSPLIT, $0-64
	MOVQ a+0(FP), SI
	MOVQ lda+8(FP), R8
	SHLQ $2, R8
	ADDQ SI, R8              // R8: second row of a
	MOVQ b+16(FP), DI
	MOVQ ldb+24(FP), R9
	SHLQ $2, R9              // R9: ldb in bytes
	MOVQ c+32(FP), R10
	MOVQ k+48(FP), DX
	SHLQ $2, DX              // DX: k in bytes
	MOVQ nblk+56(FP), BX

block:
	CMPQ BX, $0
	JE   done
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	MOVQ DI, R11
	LEAQ (R11)(R9*1), R12
	LEAQ (R12)(R9*1), R13
	LEAQ (R13)(R9*1), AX
	XORQ CX, CX

kloop:
	VMOVUPS     (SI)(CX*1), Y8
	VMOVUPS     (R8)(CX*1), Y9
	VMOVUPS     (R11)(CX*1), Y10
	VFMADD231PS Y10, Y8, Y0
	VFMADD231PS Y10, Y9, Y4
	VMOVUPS     (R12)(CX*1), Y11
	VFMADD231PS Y11, Y8, Y1
	VFMADD231PS Y11, Y9, Y5
	VMOVUPS     (R13)(CX*1), Y12
	VFMADD231PS Y12, Y8, Y2
	VFMADD231PS Y12, Y9, Y6
	VMOVUPS     (AX)(CX*1), Y13
	VFMADD231PS Y13, Y8, Y3
	VFMADD231PS Y13, Y9, Y7
	ADDQ        $32, CX
	CMPQ        CX, DX
	JL          kloop

	// Row 0: the four sums of Y0..Y3 into X0.
	VHADDPS      Y1, Y0, Y0
	VHADDPS      Y3, Y2, Y2
	VHADDPS      Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMOVUPS      X0, (R10)

	// Row 1: Y4..Y7 into X4, stored ldc elements further.
	VHADDPS      Y5, Y4, Y4
	VHADDPS      Y7, Y6, Y6
	VHADDPS      Y6, Y4, Y4
	VEXTRACTF128 $1, Y4, X5
	VADDPS       X5, X4, X4
	MOVQ         ldc+40(FP), R11
	VMOVUPS      X4, (R10)(R11*4)

	ADDQ $16, R10
	LEAQ (AX)(R9*1), DI      // the next four rows of b
	DECQ BX
	JMP  block

done:
	VZEROUPPER
	RET
