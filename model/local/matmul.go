package local

import (
	"runtime"
	"sync"
)

// The encoder's cost is its matrix products: a MiniLM-L6-sized model
// spends about 2.7 GFLOP on a 128-token sentence, of which the layers'
// linear maps are 97 %. Every product here has the shape the checkpoints
// store, C = A·Bᵀ with B's rows contiguous (a linear layer's weight is
// [out, in]), so each output is a dot product of two contiguous rows.
// The kernel computes a 2 x 4 block of such dot products at once (eight
// AVX2 accumulators, six loads per eight fused multiply-adds); tiles of
// tileM rows of A by tileN rows of B keep both operands in the L2 cache
// while they are reused, and the tiles are spread over the cores.

const (
	tileM = 32 // rows of A per tile (even: the kernel takes two)
	// tileBBytes is the part of B one tile holds: it stays in the L1
	// data cache (32-48 KB) while every pair of A's rows sweeps it.
	tileBBytes = 24 << 10
	// parallelFlops is the smallest product worth spreading over
	// goroutines: below it the hand-off costs more than it saves.
	parallelFlops = 1 << 18
)

// matMulT sets c (m x n, row-major) to a·bᵀ, a being m x k and b n x k,
// all contiguous. Work is spread over up to GOMAXPROCS goroutines when
// it is large enough.
func matMulT(c, a, b []float32, m, n, k int) { matMulTS(c, n, a, b, m, n, k, true) }

// matMulTS is matMulT with c's row stride ldc (at least n) and the
// spreading over goroutines optional: attention runs many small products
// at once, each on one goroutine.
func matMulTS(c []float32, ldc int, a, b []float32, m, n, k int, spread bool) {
	if m == 0 || n == 0 {
		return
	}
	_ = a[m*k-1]
	_ = b[n*k-1]
	_ = c[(m-1)*ldc+n-1]
	tileN := min(max(tileBBytes/(4*k), 4)&^3, 256)
	tm := (m + tileM - 1) / tileM
	tn := (n + tileN - 1) / tileN
	tiles := tm * tn
	workers := min(runtime.GOMAXPROCS(0), tiles)
	if !spread || workers <= 1 || 2*m*n*k < parallelFlops {
		for t := range tiles {
			matMulTile(c, ldc, a, b, n, k, t/tn, t%tn, m, tileN)
		}
		return
	}
	var next sync.Mutex
	t := 0
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				next.Lock()
				i := t
				t++
				next.Unlock()
				if i >= tiles {
					return
				}
				matMulTile(c, ldc, a, b, n, k, i/tn, i%tn, m, tileN)
			}
		})
	}
	wg.Wait()
}

// matMulTile computes the tile (ti, tj) of c = a·bᵀ.
func matMulTile(c []float32, ldc int, a, b []float32, n, k, ti, tj, m, tileN int) {
	i0, i1 := ti*tileM, min(ti*tileM+tileM, m)
	j0, j1 := tj*tileN, min(tj*tileN+tileN, n)
	j4 := j0 + (j1-j0)&^3
	i := i0
	for ; i+1 < i1; i += 2 {
		if j4 > j0 && gemmStrip(c[i*ldc+j0:], ldc, a[i*k:], k, b[j0*k:], k, j4-j0, k) {
			gemmTail(c, ldc, a, b, k, i, i+2, j4, j1)
			continue
		}
		gemmTail(c, ldc, a, b, k, i, i+2, j0, j1)
	}
	gemmTail(c, ldc, a, b, k, i, i1, j0, j1)
}

// gemmTail is the portable path: rows [i0, i1) of a against rows [j0, j1)
// of b, four independent sums per dot product so the loop is not bound by
// the latency of one chain of additions.
func gemmTail(c []float32, ldc int, a, b []float32, k, i0, i1, j0, j1 int) {
	for i := i0; i < i1; i++ {
		ar := a[i*k : i*k+k]
		cr := c[i*ldc : i*ldc+j1]
		for j := j0; j < j1; j++ {
			cr[j] = dotGo(ar, b[j*k:j*k+k])
		}
	}
}

// dotGo is a·b with four partial sums.
func dotGo(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}
