package quant

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
)

// splitmix is the package's own deterministic generator (Steele, Lea and
// Flood's SplitMix64): fully specified here, so a seed realises the same
// rotation and the same QJL matrix on every platform and Go release (the
// reference's numpy PCG64 + LAPACK QR cannot be matched bit for bit, and
// C.14 item 7 only asks for self-consistency).
type splitmix struct{ s uint64 }

func (r *splitmix) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// intn returns a uniform integer in [0, n) (n > 0) by rejection.
func (r *splitmix) intn(n int) int {
	lim := math.MaxUint64 - math.MaxUint64%uint64(n)
	for {
		if v := r.next(); v < lim {
			return int(v % uint64(n))
		}
	}
}

// normal returns a standard normal draw (Box-Muller on two 53-bit uniforms).
func (r *splitmix) normal() float64 {
	u1 := (float64(r.next()>>11) + 0.5) / (1 << 53)
	u2 := float64(r.next()>>11) / (1 << 53)
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
}

// rotationRounds is the number of sign-flip, permute, Hadamard rounds.
// One round of a randomized Hadamard transform leaves a one-hot input with
// coordinates of exactly ±1/√d (far from Gaussian), and with d not a power
// of two the overlapping blocks need rounds to spread energy evenly.
// TestMSEDistortion_C14, 4 bits, 384-d, distortion of one-hot inputs
// against the Gaussian Lloyd-Max 0.0095: 2 rounds 0.032, 3 rounds 0.0109,
// 4 rounds 0.0096, 5 rounds 0.0094 (random unit vectors: 0.0094 at any
// count). Four rounds is the first within 2 % at every bit width.
const rotationRounds = 4

// rotation is the seeded orthogonal transform Π: rotationRounds rounds of
// (random signs, random permutation, Walsh-Hadamard on the first 2^k
// coordinates, Walsh-Hadamard on the last 2^k) where 2^k is the largest
// power of two ≤ d. The two blocks cover every coordinate and overlap when
// d is not a power of two (d = 384: blocks [0,256) and [128,384)), so
// energy crosses between them, without padding: the rotated vector has d
// coordinates and the codes d·b bits. Each step is orthogonal, so Π is;
// applying it costs O(d log d) (BenchmarkRotate).
type rotation struct {
	d     int
	block int       // largest power of two ≤ d
	signs [][]int8  // per round, d signs
	perm  [][]int32 // per round, a permutation of 0..d-1
}

func newRotation(d int, seed uint32) *rotation {
	r := &rotation{d: d, block: 1}
	for r.block*2 <= d {
		r.block *= 2
	}
	g := splitmix{s: uint64(seed) ^ 0x5451_524f_5431} // "TQROT1"
	for range rotationRounds {
		s := make([]int8, d)
		for i := range s {
			s[i] = int8(1 - 2*int(g.next()>>63))
		}
		p := make([]int32, d)
		for i := range p {
			p[i] = int32(i)
		}
		for i := d - 1; i > 0; i-- { // Fisher-Yates
			j := g.intn(i + 1)
			p[i], p[j] = p[j], p[i]
		}
		r.signs = append(r.signs, s)
		r.perm = append(r.perm, p)
	}
	return r
}

// apply writes Π·x to out (len d each); tmp is scratch of len d.
func (r *rotation) apply(out, x, tmp []float32) {
	copy(out, x)
	scale := float32(1 / math.Sqrt(float64(r.block)))
	for k := range rotationRounds {
		s, p := r.signs[k], r.perm[k]
		for i, j := range p {
			tmp[i] = out[j] * float32(s[j])
		}
		fwht(tmp[:r.block], scale)
		if r.block < r.d {
			fwht(tmp[r.d-r.block:], scale)
		}
		copy(out, tmp)
	}
}

// applyT writes Πᵀ·y to out: the steps of apply reversed, each inverted
// (the normalised Hadamard is its own inverse).
func (r *rotation) applyT(out, y, tmp []float32) {
	copy(tmp, y)
	scale := float32(1 / math.Sqrt(float64(r.block)))
	for k := rotationRounds - 1; k >= 0; k-- {
		if r.block < r.d {
			fwht(tmp[r.d-r.block:], scale)
		}
		fwht(tmp[:r.block], scale)
		s, p := r.signs[k], r.perm[k]
		for i, j := range p {
			out[j] = tmp[i] * float32(s[j])
		}
		copy(tmp, out)
	}
}

// fwht is the in-place fast Walsh-Hadamard transform of a power-of-two
// length slice, scaled by scale (1/√n makes it orthonormal).
func fwht(a []float32, scale float32) {
	n := len(a)
	for h := 1; h < n; h *= 2 {
		for i := 0; i < n; i += 2 * h {
			x, y := a[i:i+h:i+h], a[i+h:i+2*h:i+2*h]
			for j := range x {
				u, v := x[j], y[j]
				x[j], y[j] = u+v, u-v
			}
		}
	}
	for i := range a {
		a[i] *= scale
	}
}

// fingerprint is the SHA-256 of the realised rotation: its parameters
// (dimension, rounds, every sign and permutation) and the float32 bytes of
// Π applied to probe vectors (the first and last basis vectors and a fixed
// dense vector), so a change to the generator, the transform code or the
// arithmetic changes it. Hashing the full d×d matrix, as the reference
// does, would cost O(d² log d) at start-up (4096-d: about a second); the
// parameters determine Π, and the probes pin the code that realises it.
func (r *rotation) fingerprint() [32]byte {
	h := sha256.New()
	var buf [8]byte
	put := func(v uint32) {
		binary.LittleEndian.PutUint32(buf[:4], v)
		h.Write(buf[:4])
	}
	h.Write([]byte("TQROT1"))
	put(uint32(r.d))
	put(rotationRounds)
	for k := range rotationRounds {
		for i := range r.d {
			put(uint32(r.perm[k][i]))
			h.Write([]byte{byte(r.signs[k][i])})
		}
	}
	x := make([]float32, r.d)
	out := make([]float32, r.d)
	tmp := make([]float32, r.d)
	probe := func() {
		r.apply(out, x, tmp)
		for _, v := range out {
			put(math.Float32bits(v))
		}
	}
	x[0] = 1
	probe()
	x[0], x[r.d-1] = 0, 1
	probe()
	for i := range x {
		x[i] = float32(math.Sin(float64(i + 1)))
	}
	probe()
	return [32]byte(h.Sum(nil))
}
