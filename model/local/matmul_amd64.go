package local

import "golang.org/x/sys/cpu"

// hasAVX2FMA is read once at start-up: the CPU does not change under us.
var hasAVX2FMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// gemm2x4AVX2 is in matmul_amd64.s.
//
//go:noescape
func gemm2x4AVX2(a *float32, lda int, b *float32, ldb int, c *float32, ldc int, k int, nblk int)

// gemmStrip computes c[r][j] = a[r]·b[j] for the two rows of a at a[0:]
// and a[lda:] and the first n rows of b (n a multiple of 4). It reports
// false, doing nothing, when the kernel cannot run (no AVX2/FMA, or k not
// a multiple of 8); the caller then runs the portable loop.
func gemmStrip(c []float32, ldc int, a []float32, lda int, b []float32, ldb int, n, k int) bool {
	if !hasAVX2FMA || k%8 != 0 || k == 0 || n == 0 {
		return false
	}
	// Bounds the kernel relies on, checked once here.
	_ = a[lda+k-1]
	_ = b[(n-1)*ldb+k-1]
	_ = c[ldc+n-1]
	gemm2x4AVX2(&a[0], lda, &b[0], ldb, &c[0], ldc, k, n/4)
	return true
}
