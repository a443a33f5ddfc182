package local

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
)

// randomEncoder builds an encoder of the given shape with random weights
// in memory (no files): the benchmarks measure speed, not quality, on a
// model the size of all-MiniLM-L6-v2 (6 layers, hidden 384, 12 heads,
// intermediate 1536, 30,522 words).
func randomEncoder(layers, hidden, heads, inter, vocab int) *Encoder {
	r := rand.New(rand.NewPCG(7, 8))
	rnd := func(n int, std float64) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(r.NormFloat64() * std)
		}
		return x
	}
	ones := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = 1
		}
		return x
	}
	lin := func(out, in int) linear {
		return linear{in: in, out: out, w: rnd(out*in, 0.05), b: rnd(out, 0.01)}
	}
	e := &Encoder{
		cfg: bertConfig{ModelType: "bert", Hidden: hidden, Layers: layers, Heads: heads, Intermediate: inter,
			Vocab: vocab, MaxPositions: 512, TypeVocab: 2, LayerNormEps: 1e-12, HiddenAct: "gelu"},
		wordEmb: rnd(vocab*hidden, 0.05), posEmb: rnd(512*hidden, 0.05), typeEmb: rnd(2*hidden, 0.05),
		embLN: norm{g: ones(hidden), b: make([]float32, hidden)},
		act:   gelu, hidden: hidden, heads: heads, headDim: hidden / heads, nl: layers,
	}
	for range layers {
		e.layers = append(e.layers, layer{qkv: lin(3*hidden, hidden), attnOut: lin(hidden, hidden),
			inter: lin(inter, hidden), out: lin(hidden, inter),
			ln1: norm{g: ones(hidden), b: make([]float32, hidden)}, ln2: norm{g: ones(hidden), b: make([]float32, hidden)}})
	}
	return e
}

func randomSeqs(n, tokens, vocab int) []seq {
	r := rand.New(rand.NewPCG(9, 10))
	out := make([]seq, n)
	for i := range out {
		out[i] = seq{ids: make([]int32, tokens), types: make([]int8, tokens)}
		for j := range out[i].ids {
			out[i].ids[j] = int32(r.IntN(vocab))
		}
	}
	return out
}

// BenchmarkEncoder runs the MiniLM-L6-sized encoder over 128-token
// sentences, one per call (as the engine embeds a chunk) and eight per
// call (a batch), reporting sentences per second of wall time and per
// second of process CPU time; run with -cpu 1,2 for one and two cores.
func BenchmarkEncoder(b *testing.B) {
	e := randomEncoder(6, 384, 12, 1536, 30522)
	for _, batch := range []int{1, 8} {
		b.Run(fmt.Sprintf("MiniLM-L6/128tok/batch=%d", batch), func(b *testing.B) {
			seqs := randomSeqs(batch, 128, 30522)
			ctx := context.Background()
			b.ReportAllocs()
			cpu0 := processCPU()
			for b.Loop() {
				ws := getWorkspace()
				if _, _, err := e.forward(ctx, seqs, ws); err != nil {
					b.Fatal(err)
				}
				putWorkspace(ws)
			}
			b.ReportMetric(float64(batch*b.N)/b.Elapsed().Seconds(), "sentences/s")
			if cpu := processCPU() - cpu0; cpu > 0 {
				b.ReportMetric(float64(batch*b.N)/cpu.Seconds(), "sentences/cpu-s")
			}
		})
	}
}

// BenchmarkMatMul compares the product the encoder spends its time in (128
// tokens through MiniLM's intermediate layer: 128 x 384 times 384 x 1536)
// on the AVX2 kernel, on the portable loop with four partial sums, and
// on the plain triple loop, in GFLOP per wall second and per CPU second
// (the machine may be shared) on one goroutine.
func BenchmarkMatMul(b *testing.B) {
	const m, n, k = 128, 1536, 384
	r := rand.New(rand.NewPCG(3, 4))
	a, w, c := randMatrix(r, m*k), randMatrix(r, n*k), make([]float32, m*n)
	flops := float64(2 * m * n * k)
	run := func(b *testing.B, f func()) {
		cpu0 := processCPU()
		for b.Loop() {
			f()
		}
		b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		if cpu := processCPU() - cpu0; cpu > 0 {
			b.ReportMetric(flops*float64(b.N)/cpu.Seconds()/1e9, "GFLOP/cpu-s")
		}
	}
	b.Run("kernel", func(b *testing.B) {
		if !hasAVX2FMA {
			b.Skip("no AVX2/FMA kernel on this machine")
		}
		run(b, func() { matMulTS(c, n, a, w, m, n, k, false) })
	})
	b.Run("portable", func(b *testing.B) {
		defer setKernel(false)()
		run(b, func() { matMulTS(c, n, a, w, m, n, k, false) })
	})
	b.Run("plain-loop", func(b *testing.B) {
		run(b, func() {
			for i := range m {
				for j := range n {
					var s float32
					for t := range k {
						s += a[i*k+t] * w[j*k+t]
					}
					c[i*n+j] = s
				}
			}
		})
	})
}

// BenchmarkFixtureEmbed embeds the reference texts (8 sentences of 3 to 24
// tokens) with the 32-dimensional fixture model end to end: tokenizing,
// encoding, pooling and normalising.
func BenchmarkFixtureEmbed(b *testing.B) {
	em, err := Load("testdata/mean-norm", Options{})
	if err != nil {
		b.Fatal(err)
	}
	texts := []string{"The car engine failure in winter", "A driver fixed the brake; the battery was dead!",
		"Search the database index for a vector.", "Café über naïve", "unknownword xyzzy and 日本語 text",
		"tests testing tested tester", "hello", "one two three four five six seven eight nine ten"}
	ctx := context.Background()
	b.ReportAllocs()
	cpu0 := processCPU()
	for b.Loop() {
		if _, err := em.Embed(ctx, texts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(texts)*b.N)/b.Elapsed().Seconds(), "sentences/s")
	if cpu := processCPU() - cpu0; cpu > 0 {
		b.ReportMetric(float64(len(texts)*b.N)/cpu.Seconds(), "sentences/cpu-s")
	}
}
