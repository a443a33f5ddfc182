package vector

import "golang.org/x/sys/cpu"

// hasAVX2FMA is read once at start-up: the CPU does not change under us.
var hasAVX2FMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// dotAVX2 and l2sqAVX2 are in distance_amd64.s: eight float32 lanes per
// instruction, four accumulators, fused multiply-add, scalar tail.
//
//go:noescape
func dotAVX2(a, b *float32, n int) float32

//go:noescape
func l2sqAVX2(a, b *float32, n int) float32

func dot(a, b []float32) float32 {
	if hasAVX2FMA && len(a) >= 8 {
		b = b[:len(a)]
		return dotAVX2(&a[0], &b[0], len(a))
	}
	return dotGeneric(a, b)
}

func l2sq(a, b []float32) float32 {
	if hasAVX2FMA && len(a) >= 8 {
		b = b[:len(a)]
		return l2sqAVX2(&a[0], &b[0], len(a))
	}
	return l2sqGeneric(a, b)
}

// prefetch asks the CPU to start loading the first cache lines at p: the
// graph walk touches vectors in random order, and starting the next load
// while the current distance is computed hides part of the miss.
//
//go:noescape
func prefetch(p *float32)

// prefetchLine asks the CPU to start loading the cache line holding p.
//
//go:noescape
func prefetchLine(p *float32)

// The 8-bit kernels (int8.go) in distance_amd64.s take a multiple of
// eight elements: eight bytes widened to int32, converted to float32 and
// fused into two accumulators per step; the tail is added in Go.
//
//go:noescape
func dotF32I8AVX2(q *float32, c *int8, n int) float32

//go:noescape
func l2sqF32I8AVX2(q *float32, c *int8, s float32, n int) float32

//go:noescape
func l2sqI8I8AVX2(a *int8, sa float32, b *int8, sb float32, n int) float32

func dotF32I8(q []float32, c []int8) float32 {
	n := len(q) &^ 7
	if !hasAVX2FMA || n == 0 {
		return dotF32I8Generic(q, c)
	}
	c = c[:len(q)]
	return dotF32I8AVX2(&q[0], &c[0], n) + dotF32I8Generic(q[n:], c[n:])
}

func l2sqF32I8(q []float32, c []int8, s float32) float32 {
	n := len(q) &^ 7
	if !hasAVX2FMA || n == 0 {
		return l2sqF32I8Generic(q, c, s)
	}
	c = c[:len(q)]
	return l2sqF32I8AVX2(&q[0], &c[0], s, n) + l2sqF32I8Generic(q[n:], c[n:], s)
}

func l2sqI8I8(a []int8, sa float32, b []int8, sb float32) float32 {
	n := len(a) &^ 7
	if !hasAVX2FMA || n == 0 {
		return l2sqI8I8Generic(a, sa, b, sb)
	}
	b = b[:len(a)]
	return l2sqI8I8AVX2(&a[0], sa, &b[0], sb, n) + l2sqI8I8Generic(a[n:], sa, b[n:], sb)
}
