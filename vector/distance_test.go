package vector

import (
	"math"
	"math/rand/v2"
	"testing"
)

func naiveDot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func naiveL2sq(a, b []float32) float64 {
	var s float64
	for i := range a {
		d := float64(a[i]) - float64(b[i])
		s += d * d
	}
	return s
}

func TestKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n <= 131; n++ {
		a, b := make([]float32, n), make([]float32, n)
		for i := range a {
			a[i], b[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
		}
		for _, k := range []struct {
			name string
			got  float32
			want float64
		}{
			{"dot", dot(a, b), naiveDot(a, b)},
			{"dotGeneric", dotGeneric(a, b), naiveDot(a, b)},
			{"l2sq", l2sq(a, b), naiveL2sq(a, b)},
			{"l2sqGeneric", l2sqGeneric(a, b), naiveL2sq(a, b)},
		} {
			if math.Abs(float64(k.got)-k.want) > 1e-4*(1+math.Abs(k.want)) {
				t.Fatalf("%s n=%d = %v, want %v", k.name, n, k.got, k.want)
			}
		}
	}
}

func TestKernelsDoNotAllocate(t *testing.T) {
	a, b := make([]float32, 384), make([]float32, 384)
	allocs := testing.AllocsPerRun(100, func() {
		_ = dot(a, b) + l2sq(a, b) + Cosine.dist(a, b)
	})
	if allocs != 0 {
		t.Fatalf("kernels allocate %v times per run", allocs)
	}
}

func BenchmarkKernels(b *testing.B) {
	for _, dim := range []int{100, 384, 1024} {
		x, y := make([]float32, dim), make([]float32, dim)
		for i := range x {
			x[i], y[i] = float32(i%7), float32(i%5)
		}
		for _, k := range []struct {
			name string
			f    func(a, b []float32) float32
		}{{"dot", dot}, {"dotGeneric", dotGeneric}, {"l2sq", l2sq}, {"l2sqGeneric", l2sqGeneric}} {
			b.Run(k.name+"/"+itoa(dim), func(b *testing.B) {
				b.ReportAllocs()
				var s float32
				for b.Loop() {
					s += k.f(x, y)
				}
				_ = s
			})
		}
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}
