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
