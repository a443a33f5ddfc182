//go:build !amd64

package local

func gemmStrip(c []float32, ldc int, a []float32, lda int, b []float32, ldb int, n, k int) bool {
	return false
}
