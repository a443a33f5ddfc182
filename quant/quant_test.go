package quant

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/contextd/contextd/cerrors"
)

func unitVec(r *rand.Rand, d int) []float32 {
	v := make([]float32, d)
	var n float64
	for i := range v {
		x := r.NormFloat64()
		v[i] = float32(x)
		n += x * x
	}
	s := float32(1 / math.Sqrt(n))
	for i := range v {
		v[i] *= s
	}
	return v
}

func dot64(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

type variantBits struct {
	v Variant
	b int
}

func allConfigs() []variantBits {
	var out []variantBits
	for b := 1; b <= 4; b++ {
		out = append(out, variantBits{MSE, b})
	}
	for b := 2; b <= 4; b++ {
		out = append(out, variantBits{IP, b})
	}
	return out
}

func TestRotationOrthogonal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, d := range []int{1, 2, 3, 7, 100, 256, 384, 1000} {
		rot := newRotation(d, 7)
		x := unitVec(r, d)
		y, back, tmp := make([]float32, d), make([]float32, d), make([]float32, d)
		rot.apply(y, x, tmp)
		if n := dot64(y, y); math.Abs(n-1) > 1e-5 {
			t.Fatalf("d=%d: ‖Πx‖² = %v, want 1", d, n)
		}
		rot.applyT(back, y, tmp)
		for i := range x {
			if math.Abs(float64(x[i]-back[i])) > 1e-5 {
				t.Fatalf("d=%d: ΠᵀΠx differs from x at %d: %v vs %v", d, i, back[i], x[i])
			}
		}
	}
}

func TestFingerprintDeterministic(t *testing.T) {
	a := newRotation(384, 0).fingerprint()
	if a != newRotation(384, 0).fingerprint() {
		t.Fatal("same seed and dimension gave two fingerprints")
	}
	if a == newRotation(384, 1).fingerprint() || a == newRotation(385, 0).fingerprint() {
		t.Fatal("another seed or dimension gave the same fingerprint")
	}
}

func TestPackRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for b := 1; b <= 4; b++ {
		for n := 0; n < 40; n++ {
			src := make([]uint8, n)
			for i := range src {
				src[i] = uint8(r.IntN(1 << b))
			}
			p := make([]byte, packedLen(n, b))
			pack(p, src, b)
			got := make([]uint8, n)
			unpack(got, p, b)
			if !bytes.Equal(got, src) {
				t.Fatalf("b=%d n=%d: unpack(pack(x)) = %v, want %v", b, n, got, src)
			}
			// LSB first: bit k of value j at stream position j·b+k.
			for j, v := range src {
				for k := range b {
					pos := j*b + k
					if (p[pos/8]>>(pos%8)&1 == 1) != (v>>k&1 == 1) {
						t.Fatalf("b=%d: bit %d of value %d not at stream position %d", b, k, j, pos)
					}
				}
			}
		}
	}
}

// TestRoundTrip_C14 encodes, marshals, unmarshals and decodes for every
// bits × variant and several dimensions (odd ones and the default 100).
func TestRoundTrip_C14(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, c := range allConfigs() {
		for _, d := range []int{1, 5, 100, 384} {
			q, err := New(Config{Dim: d, Bits: c.b, Variant: c.v, Seed: 42})
			if err != nil {
				t.Fatal(err)
			}
			var codes []byte
			vecs := make([][]float32, 5)
			for i := range vecs {
				vecs[i] = unitVec(r, d)
				for j := range vecs[i] {
					vecs[i][j] *= 3 // a non-unit norm is kept
				}
				if codes, err = q.Encode(codes, vecs[i]); err != nil {
					t.Fatal(err)
				}
			}
			if len(codes) != 5*q.CodeSize() {
				t.Fatalf("%v/%d d=%d: %d code bytes, want %d", c.v, c.b, d, len(codes), 5*q.CodeSize())
			}
			p, err := q.MarshalPayload(codes)
			if err != nil {
				t.Fatal(err)
			}
			pl, err := DecodePayload(p)
			if err != nil {
				t.Fatalf("%v/%d d=%d: %v", c.v, c.b, d, err)
			}
			if pl.Rows != 5 || pl.Dim != d || pl.Bits != c.b || pl.Variant != c.v || pl.Seed != 42 {
				t.Fatalf("header %+v", pl.Header)
			}
			back, err := q.UnmarshalPayload(nil, p)
			if err != nil || !bytes.Equal(back, codes) {
				t.Fatalf("%v/%d d=%d: unmarshal differs (%v)", c.v, c.b, d, err)
			}
			// Concatenating the columns of two payloads is one payload of
			// both rows (C.14 item 5): re-marshalling the records gives it.
			both, _ := q.MarshalPayload(append(bytes.Clone(codes), codes...))
			if pl2, err := DecodePayload(both); err != nil || pl2.Rows != 10 {
				t.Fatalf("concatenated payload: %v", err)
			}
			out := make([]float32, d)
			for i, v := range vecs {
				rec := codes[i*q.CodeSize() : (i+1)*q.CodeSize()]
				if err := q.Decode(out, rec); err != nil {
					t.Fatal(err)
				}
				var e float64
				for j := range v {
					e += float64(v[j]-out[j]) * float64(v[j]-out[j])
				}
				// Per-vector error of a 3-norm vector: loose, the mean is
				// checked by TestMSEDistortion.
				if d >= 100 && e/9 > 4*GaussianMSE[max(1, c.b-1)] {
					t.Fatalf("%v/%d d=%d: relative error %v", c.v, c.b, d, e/9)
				}
			}
		}
	}
}

// TestMSEDistortion_C14 measures E‖x − x̃‖² of unit vectors, random and
// one-hot, against the Lloyd-Max Gaussian figures (within 10 %).
func TestMSEDistortion_C14(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const n = 400
	for _, d := range []int{100, 384} {
		for b := 1; b <= 4; b++ {
			q, _ := New(Config{Dim: d, Bits: b})
			out := make([]float32, d)
			for _, kind := range []string{"random", "one-hot"} {
				var sum float64
				for i := range n {
					x := unitVec(r, d)
					if kind == "one-hot" {
						clear(x)
						x[i%d] = 1
					}
					code, _ := q.Encode(nil, x)
					_ = q.Decode(out, code)
					for j := range x {
						sum += float64(x[j]-out[j]) * float64(x[j]-out[j])
					}
				}
				mse := sum / n
				t.Logf("%d-d %d bits %s: MSE %.5f (Lloyd-Max %.5f)", d, b, kind, mse, GaussianMSE[b])
				if math.Abs(mse-GaussianMSE[b]) > 0.1*GaussianMSE[b] {
					t.Errorf("%d-d %d bits %s: MSE %.5f, want within 10%% of %.5f", d, b, kind, mse, GaussianMSE[b])
				}
			}
		}
	}
}

// TestIPUnbiased_C14: the ip estimate of ⟨x, y⟩ over many random pairs
// has a mean error within 3 standard errors of 0; the mse estimate of the
// same pairs is measurably biased (shrunk), which is why ip exists.
func TestIPUnbiased_C14(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	const d, n = 128, 4000
	for b := 2; b <= 4; b++ {
		q, _ := New(Config{Dim: d, Bits: b, Variant: IP, Seed: 3})
		qm, _ := New(Config{Dim: d, Bits: b, Seed: 3})
		var sum, sum2, msum, msum2 float64
		for range n {
			x := unitVec(r, d)
			// Correlated pairs, so inner products span a range and the
			// MSE part's shrinkage would show.
			y := unitVec(r, d)
			for j := range y {
				y[j] = 0.6*x[j] + 0.8*y[j]
			}
			code, _ := q.Encode(nil, x)
			qq, _ := q.NewQuery(y)
			e := float64(qq.Dot(code)) - dot64(x, y)
			sum += e
			sum2 += e * e
			mcode, _ := qm.Encode(nil, x)
			mq, _ := qm.NewQuery(y)
			me := float64(mq.Dot(mcode)) - dot64(x, y)
			msum += me
			msum2 += me * me
		}
		mean := sum / n
		se := math.Sqrt((sum2/n - mean*mean) / n)
		mmean := msum / n
		mse := math.Sqrt((msum2/n - mmean*mmean) / n)
		t.Logf("%d bits: ip mean error %.5f (standard error %.5f); mse mean error %.5f (%.5f)", b, mean, se, mmean, mse)
		if math.Abs(mean) > 3*se {
			t.Errorf("ip %d bits: mean error %.5f beyond 3 standard errors (%.5f)", b, mean, 3*se)
		}
		if mmean > -3*mse {
			t.Errorf("mse %d bits: mean error %.5f, expected the shrinkage bias below -3 standard errors (%.5f)", b, mmean, 3*mse)
		}
	}
}

// TestQueryMatchesDecode: scoring through the lookup tables equals the
// inner product with the decoded vector, for every bits × variant.
func TestQueryMatchesDecode(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, c := range allConfigs() {
		for _, d := range []int{3, 9, 100, 384} {
			q, _ := New(Config{Dim: d, Bits: c.b, Variant: c.v, Seed: 1})
			x, y := unitVec(r, d), unitVec(r, d)
			code, _ := q.Encode(nil, x)
			out := make([]float32, d)
			_ = q.Decode(out, code)
			qq, _ := q.NewQuery(y)
			want := dot64(out, y)
			if got := float64(qq.Dot(code)); math.Abs(got-want) > 1e-4 {
				t.Fatalf("%v/%d d=%d: Dot %v, decoded dot %v", c.v, c.b, d, got, want)
			}
			scores := make([]float32, 2)
			qq.Dots(append(bytes.Clone(code), code...), scores)
			if scores[0] != qq.Dot(code) || scores[1] != scores[0] {
				t.Fatalf("Dots %v, Dot %v", scores, qq.Dot(code))
			}
			wantL2 := 1 + 1 - 2*float64(qq.Dot(code)) // norms of x and y are 1
			if got := float64(qq.L2(code)); math.Abs(got-wantL2) > 1e-4 {
				t.Fatalf("L2 %v, want %v", got, wantL2)
			}
		}
	}
}

func TestNewRejects(t *testing.T) {
	for _, c := range []Config{{Dim: 0}, {Dim: 70000}, {Dim: 8, Bits: 5}, {Dim: 8, Bits: 1, Variant: IP},
		{Dim: 8, Variant: 2}, {Dim: 5000, Variant: IP}} {
		if _, err := New(c); !errors.Is(err, cerrors.ErrInvalid) {
			t.Errorf("New(%+v) = %v, want ErrInvalid", c, err)
		}
	}
	q, _ := New(Config{Dim: 4})
	for _, v := range [][]float32{{1, 2, 3}, {1, 2, 3, float32(math.NaN())}, {1, float32(math.Inf(1)), 0, 0}} {
		if _, err := q.Encode(nil, v); !errors.Is(err, cerrors.ErrInvalid) {
			t.Errorf("Encode(%v) = %v, want ErrInvalid", v, err)
		}
		if _, err := q.NewQuery(v); !errors.Is(err, cerrors.ErrInvalid) {
			t.Errorf("NewQuery(%v) = %v, want ErrInvalid", v, err)
		}
	}
	if _, err := ParseVariant("pq"); !errors.Is(err, cerrors.ErrInvalid) {
		t.Error("ParseVariant accepted pq")
	}
	if v, err := ParseVariant(" IP "); err != nil || v != IP {
		t.Errorf("ParseVariant(IP) = %v, %v", v, err)
	}
}

func validPayloads(t testing.TB) [][]byte {
	r := rand.New(rand.NewPCG(13, 14))
	var out [][]byte
	for _, c := range []variantBits{{MSE, 4}, {IP, 4}, {MSE, 3}, {IP, 2}} {
		q, err := New(Config{Dim: 10, Bits: c.b, Variant: c.v})
		if err != nil {
			t.Fatal(err)
		}
		var codes []byte
		for range 3 {
			codes, _ = q.Encode(codes, unitVec(r, 10))
		}
		p, _ := q.MarshalPayload(codes)
		out = append(out, p)
	}
	return out
}

// TestPayloadCorrupt_C14: truncations at every length, a wrong magic,
// variant, bits, lengths, trailing bytes and bad norms are errors.
func TestPayloadCorrupt_C14(t *testing.T) {
	for _, p := range validPayloads(t) {
		for n := range len(p) {
			if _, err := DecodePayload(p[:n]); !errors.Is(err, cerrors.ErrInvalid) {
				t.Fatalf("truncated to %d of %d bytes: %v", n, len(p), err)
			}
		}
		mutate := func(name string, f func(b []byte) []byte) {
			b := f(bytes.Clone(p))
			if _, err := DecodePayload(b); !errors.Is(err, cerrors.ErrInvalid) {
				t.Errorf("%s: accepted", name)
			}
		}
		mutate("magic", func(b []byte) []byte { b[3] = '2'; return b })
		mutate("variant", func(b []byte) []byte { b[4] = 9; return b })
		mutate("bits", func(b []byte) []byte { b[5] = 7; return b })
		mutate("rows", func(b []byte) []byte { b[8]++; return b })
		mutate("huge rows", func(b []byte) []byte { b[11] = 0xff; return b })
		mutate("norms length", func(b []byte) []byte { b[len(b)-1-(len(b)-20)]++; return b })
		mutate("trailing", func(b []byte) []byte { return append(b, 0) })
		mutate("nan norm", func(b []byte) []byte {
			off := 20
			if b[4] == byte(IP) {
				off = 24
			}
			copy(b[off:], []byte{0, 0, 0xc0, 0x7f})
			return b
		})
	}
	q, _ := New(Config{Dim: 11})
	if _, err := q.UnmarshalPayload(nil, validPayloads(t)[0]); !errors.Is(err, cerrors.ErrInvalid) {
		t.Error("a 10-d payload was accepted by an 11-d quantizer")
	}
	if _, err := q.MarshalPayload(make([]byte, 3)); !errors.Is(err, cerrors.ErrInvalid) {
		t.Error("a partial record was marshalled")
	}
}

// FuzzDecodePayload: the decoder never panics, and whatever it accepts
// re-encodes to the same bytes.
func FuzzDecodePayload(f *testing.F) {
	for _, p := range validPayloads(f) {
		f.Add(p)
	}
	f.Add([]byte("TQP1"))
	f.Fuzz(func(t *testing.T, p []byte) {
		pl, err := DecodePayload(p)
		if err != nil {
			if !errors.Is(err, cerrors.ErrInvalid) {
				t.Fatalf("error %v is not ErrInvalid", err)
			}
			return
		}
		q, err := New(Config{Dim: pl.Dim, Bits: pl.Bits, Variant: pl.Variant, Seed: pl.Seed})
		if err != nil {
			return // e.g. an ip payload above MaxIPDim
		}
		codes, err := q.UnmarshalPayload(nil, p)
		if err != nil {
			t.Fatal(err)
		}
		again, err := q.MarshalPayload(codes)
		if err != nil || !bytes.Equal(again, p) {
			t.Fatalf("re-encoding differs: %v", err)
		}
	})
}

// TestMSE4DotKernel: the AVX2 kernel of 4-bit scoring (when the CPU has
// it) agrees with the scalar loop and with the inner product of the
// decoded vector, at dimensions around its 16-coordinate steps.
func TestMSE4DotKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, d := range []int{2, 15, 16, 17, 31, 100, 101, 384} {
		q, err := New(Config{Dim: d, Bits: 4})
		if err != nil {
			t.Fatal(err)
		}
		for range 20 {
			x, v := make([]float32, d), make([]float32, d)
			for i := range x {
				x[i], v[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
			}
			code, _ := q.Encode(nil, x)
			qq, _ := q.NewQuery(v)
			back := make([]float32, d)
			if err := q.Decode(back, code); err != nil {
				t.Fatal(err)
			}
			want := dotf(back, v)
			got := qq.Dot(code)
			if diff := math.Abs(float64(got - want)); diff > 1e-4*math.Max(1, math.Abs(float64(want))) {
				t.Fatalf("d=%d: Dot %v, decoded dot %v", d, got, want)
			}
			if qq.even != nil {
				p := code[4 : 4+q.mseLen]
				g := mse4DotGeneric(p, qq.even, qq.odd, q.cb.centroids)
				if k := mse4Dot(p, qq.even, qq.odd, q.cb.centroids); math.Abs(float64(k-g)) > 1e-5*math.Max(1, math.Abs(float64(g))) {
					t.Fatalf("d=%d: kernel %v, scalar %v", d, k, g)
				}
			}
		}
	}
}
