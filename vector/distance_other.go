//go:build !amd64

package vector

func dot(a, b []float32) float32  { return dotGeneric(a, b) }
func l2sq(a, b []float32) float32 { return l2sqGeneric(a, b) }

func prefetch(*float32)     {}
func prefetchLine(*float32) {}

func dotF32I8(q []float32, c []int8) float32             { return dotF32I8Generic(q, c) }
func l2sqF32I8(q []float32, c []int8, s float32) float32 { return l2sqF32I8Generic(q, c, s) }
func l2sqI8I8(a []int8, sa float32, b []int8, sb float32) float32 {
	return l2sqI8I8Generic(a, sa, b, sb)
}
