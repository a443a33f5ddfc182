package quant

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// Benchmarks with fixed seeds over a size sweep: encode throughput,
// scoring of contiguous code arrays against a float32 dot-product scan of
// the same vectors, and the rotation alone.
//
//	go test ./quant -bench . -run '^$'

func benchData(d, n int) [][]float32 {
	r := rand.New(rand.NewPCG(21, 22))
	out := make([][]float32, n)
	for i := range out {
		out[i] = unitVec(r, d)
	}
	return out
}

func BenchmarkEncode(b *testing.B) {
	for _, d := range []int{100, 384, 1024} {
		for _, v := range []Variant{MSE, IP} {
			b.Run(fmt.Sprintf("d=%d/%v/4bit", d, v), func(b *testing.B) {
				q, _ := New(Config{Dim: d, Bits: 4, Variant: v})
				vecs := benchData(d, 256)
				buf := make([]byte, 0, q.CodeSize())
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					buf, _ = q.Encode(buf[:0], vecs[i%len(vecs)])
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "vectors/s")
			})
		}
	}
}

// BenchmarkScan scores n codes per op (Dots over one contiguous array)
// and, for comparison, n float32 dot products over the same vectors.
func BenchmarkScan(b *testing.B) {
	const n = 10000
	for _, d := range []int{100, 384} {
		vecs := benchData(d, n+1)
		query := vecs[n]
		for _, c := range []variantBits{{MSE, 2}, {MSE, 3}, {MSE, 4}, {IP, 4}} {
			b.Run(fmt.Sprintf("d=%d/%v/%dbit", d, c.v, c.b), func(b *testing.B) {
				q, _ := New(Config{Dim: d, Bits: c.b, Variant: c.v})
				var codes []byte
				for _, v := range vecs[:n] {
					codes, _ = q.Encode(codes, v)
				}
				qq, _ := q.NewQuery(query)
				out := make([]float32, n)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					qq.Dots(codes, out)
				}
				b.ReportMetric(float64(b.N)*n/b.Elapsed().Seconds(), "codes/s")
			})
		}
		b.Run(fmt.Sprintf("d=%d/float32", d), func(b *testing.B) {
			flat := make([]float32, 0, n*d)
			for _, v := range vecs[:n] {
				flat = append(flat, v...)
			}
			out := make([]float32, n)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for j := range out {
					out[j] = dotf(flat[j*d:(j+1)*d], query)
				}
			}
			b.ReportMetric(float64(b.N)*n/b.Elapsed().Seconds(), "vectors/s")
		})
	}
}

func BenchmarkRotate(b *testing.B) {
	for _, d := range []int{100, 384, 1024} {
		b.Run(fmt.Sprintf("d=%d", d), func(b *testing.B) {
			r := newRotation(d, 0)
			x := benchData(d, 1)[0]
			out, tmp := make([]float32, d), make([]float32, d)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r.apply(out, x, tmp)
			}
		})
	}
}

func BenchmarkNewQuery(b *testing.B) {
	for _, v := range []Variant{MSE, IP} {
		b.Run(fmt.Sprintf("d=384/%v/4bit", v), func(b *testing.B) {
			q, _ := New(Config{Dim: 384, Bits: 4, Variant: v})
			x := benchData(384, 1)[0]
			qq, _ := q.NewQuery(x)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				_ = qq.Reset(x)
			}
		})
	}
}
