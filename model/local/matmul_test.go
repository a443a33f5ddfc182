package local

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// naiveMatMulT is the oracle: the plain triple loop in float64.
func naiveMatMulT(a, b []float32, m, n, k int) []float64 {
	c := make([]float64, m*n)
	for i := range m {
		for j := range n {
			var s float64
			for t := range k {
				s += float64(a[i*k+t]) * float64(b[j*k+t])
			}
			c[i*n+j] = s
		}
	}
	return c
}

func randMatrix(r *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	return x
}

// TestMatMulT checks the kernel path and the portable path against the
// float64 triple loop on shapes that exercise every remainder: odd rows,
// columns not a multiple of four, k not a multiple of eight, several
// tiles, and products large enough to be spread over goroutines.
func TestMatMulT(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	shapes := [][3]int{{1, 1, 1}, {2, 4, 8}, {3, 5, 7}, {2, 4, 16}, {7, 9, 32}, {33, 65, 24}, {64, 130, 40}, {128, 384, 384}, {5, 12, 1536}}
	for _, s := range shapes {
		m, n, k := s[0], s[1], s[2]
		a, b := randMatrix(r, m*k), randMatrix(r, n*k)
		want := naiveMatMulT(a, b, m, n, k)
		for _, asm := range []bool{true, false} {
			t.Run(fmt.Sprintf("%dx%dx%d/asm=%v", m, n, k, asm), func(t *testing.T) {
				defer setKernel(asm)()
				c := make([]float32, m*n)
				for i := range c {
					c[i] = float32(math.NaN()) // every cell must be written
				}
				matMulT(c, a, b, m, n, k)
				for i := range c {
					// float32 sums of k products of unit normals:
					// rounding grows like sqrt(k) ulps of the terms.
					tol := 1e-5 * math.Sqrt(float64(k)) * 4
					if d := math.Abs(float64(c[i]) - want[i]); !(d <= tol) {
						t.Fatalf("c[%d,%d] = %v, want %v (diff %g)", i/n, i%n, c[i], want[i], d)
					}
				}
			})
		}
	}
}

// setKernel turns the assembly kernel on or off for one test and returns
// the function that restores it.
func setKernel(on bool) func() {
	old := hasAVX2FMA
	hasAVX2FMA = old && on
	return func() { hasAVX2FMA = old }
}
