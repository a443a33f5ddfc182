package quant

import "golang.org/x/sys/cpu"

// hasAVX2FMA is read once at start-up: the CPU does not change under us.
var hasAVX2FMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// mse4DotAVX2 is in score_amd64.s.
//
//go:noescape
func mse4DotAVX2(code *byte, even, odd *float32, n int, cent *float32) float32

// mse4Dot is Σ_j rot_j·centroid[idx_j] over 4-bit packed indices p, the
// query's rotation split into even and odd coordinates (byte i holds
// coordinates 2i and 2i+1). Whole groups of eight bytes go through the
// AVX2 kernel, the rest through the scalar loop.
func mse4Dot(p []byte, even, odd, cent []float32) float32 {
	var s float32
	i := 0
	if n := len(p) &^ 7; hasAVX2FMA && n > 0 {
		s = mse4DotAVX2(&p[0], &even[0], &odd[0], n, &cent[0])
		i = n
	}
	return s + mse4DotGeneric(p[i:], even[i:], odd[i:], cent)
}
