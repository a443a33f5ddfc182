package quant

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/contextd/contextd/cerrors"
)

// Variant chooses the code: MSE (scalar codes only) or IP (MSE at one bit
// less plus the 1-bit QJL sketch of the residual, whose inner-product
// estimate is unbiased).
type Variant uint8

const (
	// MSE is the zero value: TestVariantRanking measures it ranking
	// neighbours better than IP at the same bits (README, Compression).
	MSE Variant = 0
	IP  Variant = 1
)

func (v Variant) String() string {
	if v == IP {
		return "ip"
	}
	return "mse"
}

// ParseVariant reads "mse" or "ip" (any case).
func ParseVariant(s string) (Variant, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "mse":
		return MSE, nil
	case "ip":
		return IP, nil
	}
	return 0, fmt.Errorf("%w: compression variant %q: want mse or ip", cerrors.ErrInvalid, s)
}

// Limits of Config.
const (
	MaxDim   = 65535 // the payload's u16
	MaxIPDim = 4096  // the QJL matrix is d×d float32 (4096-d: 64 MiB)
)

// Config selects a quantizer. The zero value of every field but Dim means
// the default: 4 bits, MSE, seed 0.
type Config struct {
	Dim     int
	Bits    int // 1-4 for MSE, 2-4 for IP; 0 means 4
	Variant Variant
	Seed    uint32
}

// Quantizer encodes float32 vectors of one dimension to fixed-size code
// records and scores them. It is safe for concurrent use.
//
// A record is: norm (float32 LE), then for IP the residual norm γ
// (float32 LE), the MSE indices packed LSB first (d·b' bits padded to a
// byte, b' = Bits for MSE, Bits−1 for IP) and for IP the QJL signs
// (d bits padded to a byte). Padding each row to whole bytes lifts the
// reference's d·b_eff % 8 == 0 rule: the 100-d built-in model at ip/4
// bits takes 38 bytes of indices (300 bits + 4 zero bits).
type Quantizer struct {
	cfg     Config
	mseBits int
	rot     *rotation
	cb      codebook
	qjl     []float32 // IP: m×d Gaussian rows (m = d), row-major
	mseLen  int
	qjlLen  int
	rowSize int
	fp      [32]byte
	pool    sync.Pool // *scratch
}

type scratch struct {
	a, b, c []float32
	idx     []uint8
}

// New returns the quantizer of c, or an ErrInvalid error naming the bad
// field.
func New(c Config) (*Quantizer, error) {
	if c.Bits == 0 {
		c.Bits = 4
	}
	if c.Dim < 1 || c.Dim > MaxDim {
		return nil, fmt.Errorf("%w: compression dimension %d outside 1..%d", cerrors.ErrInvalid, c.Dim, MaxDim)
	}
	switch c.Variant {
	case MSE:
		if c.Bits < 1 || c.Bits > 4 {
			return nil, fmt.Errorf("%w: compression bits %d outside 1..4 for mse", cerrors.ErrInvalid, c.Bits)
		}
	case IP:
		if c.Bits < 2 || c.Bits > 4 {
			return nil, fmt.Errorf("%w: compression bits %d outside 2..4 for ip", cerrors.ErrInvalid, c.Bits)
		}
		if c.Dim > MaxIPDim {
			return nil, fmt.Errorf("%w: compression dimension %d above %d for ip", cerrors.ErrInvalid, c.Dim, MaxIPDim)
		}
	default:
		return nil, fmt.Errorf("%w: compression variant %d", cerrors.ErrInvalid, c.Variant)
	}
	q := &Quantizer{cfg: c, mseBits: c.Bits, rot: newRotation(c.Dim, c.Seed)}
	if c.Variant == IP {
		q.mseBits = c.Bits - 1
		q.qjl = make([]float32, c.Dim*c.Dim)
		g := splitmix{s: uint64(c.Seed) + 1} // PRNG(s+1), C.14 item 4
		for i := range q.qjl {
			q.qjl[i] = float32(g.normal())
		}
		q.qjlLen = packedLen(c.Dim, 1)
	}
	q.cb = newCodebook(q.mseBits, c.Dim)
	q.mseLen = packedLen(c.Dim, q.mseBits)
	q.rowSize = 4 + q.mseLen
	if c.Variant == IP {
		q.rowSize += 4 + q.qjlLen
	}
	q.fp = q.rot.fingerprint()
	d := c.Dim
	q.pool.New = func() any {
		return &scratch{a: make([]float32, d), b: make([]float32, d), c: make([]float32, d), idx: make([]uint8, d)}
	}
	return q, nil
}

// Config is the resolved configuration (Bits filled in).
func (q *Quantizer) Config() Config { return q.cfg }

// Dim is the vector dimension.
func (q *Quantizer) Dim() int { return q.cfg.Dim }

// CodeSize is the bytes of one code record (384-d MSE 4 bits: 196).
func (q *Quantizer) CodeSize() int { return q.rowSize }

// Fingerprint is the SHA-256 of the realised rotation (see rotation).
func (q *Quantizer) Fingerprint() [32]byte { return q.fp }

func (q *Quantizer) check(x []float32) error {
	if len(x) != q.cfg.Dim {
		return fmt.Errorf("%w: vector has %d dimensions, the quantizer %d", cerrors.ErrInvalid, len(x), q.cfg.Dim)
	}
	for i, v := range x {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("%w: vector component %d is not finite", cerrors.ErrInvalid, i)
		}
	}
	return nil
}

// Encode appends the code record of x to dst. x is not modified.
func (q *Quantizer) Encode(dst []byte, x []float32) ([]byte, error) {
	if err := q.check(x); err != nil {
		return dst, err
	}
	s := q.pool.Get().(*scratch)
	defer q.pool.Put(s)
	n := math.Sqrt(float64(dotf(x, x)))
	inv := float32(1 / max(n, 1e-12))
	u := s.a
	for i, v := range x {
		u[i] = v * inv
	}
	r := s.b
	q.rot.apply(r, u, s.c)
	for j, v := range r {
		s.idx[j] = q.cb.index(v)
	}
	off := len(dst)
	dst = append(dst, make([]byte, q.rowSize)...)
	rec := dst[off:]
	binary.LittleEndian.PutUint32(rec, math.Float32bits(float32(n)))
	if q.cfg.Variant == MSE {
		pack(rec[4:], s.idx, q.mseBits)
		return dst, nil
	}
	pack(rec[8:8+q.mseLen], s.idx, q.mseBits)
	// The residual in rotated space: Π is orthogonal, so its norm is the
	// residual's, and S·Πᵀ is as Gaussian as S (the sketch is taken there
	// and the query is rotated once for both parts).
	res := s.a
	var g2 float64
	for j, v := range r {
		res[j] = float32(n) * (v - q.cb.centroids[s.idx[j]])
		g2 += float64(res[j]) * float64(res[j])
	}
	binary.LittleEndian.PutUint32(rec[4:], math.Float32bits(float32(math.Sqrt(g2))))
	z := rec[8+q.mseLen:]
	d := q.cfg.Dim
	for i := range d {
		if dotf(q.qjl[i*d:(i+1)*d], res) >= 0 {
			z[i>>3] |= 1 << (i & 7)
		}
	}
	return dst, nil
}

// Decode writes the reconstruction x̃ of one code record to dst (len Dim):
// for MSE the centroids rotated back and scaled by the norm, for IP that
// plus the QJL residual estimate (√(π/2)/m)·γ·Sᵀs.
func (q *Quantizer) Decode(dst []float32, code []byte) error {
	if err := q.checkDecode(dst, code); err != nil {
		return err
	}
	s := q.pool.Get().(*scratch)
	defer q.pool.Put(s)
	q.centroidsOf(s.b, code, s.idx)
	if q.cfg.Variant == IP {
		q.addResidual(s.b, code)
	}
	q.rot.applyT(dst, s.b, s.c)
	return nil
}

// Approx writes the cheap reconstruction of one code record in rotated
// space: the centroids times the norm (Π·x̂; for IP without the QJL
// residual, whose reconstruction costs d² and is meant for inner products
// with a query, not between two codes). Π is orthogonal, so distances
// between two reconstructions are the same as in the original space, and
// skipping the inverse rotation and the sketch makes it d table reads:
// the HNSW compares stored nodes this way.
func (q *Quantizer) Approx(dst []float32, code []byte) error {
	if err := q.checkDecode(dst, code); err != nil {
		return err
	}
	s := q.pool.Get().(*scratch)
	defer q.pool.Put(s)
	q.centroidsOf(dst, code, s.idx)
	return nil
}

func (q *Quantizer) checkDecode(dst []float32, code []byte) error {
	if len(dst) != q.cfg.Dim || len(code) != q.rowSize {
		return fmt.Errorf("%w: decode wants %d floats and a %d-byte code, got %d and %d",
			cerrors.ErrInvalid, q.cfg.Dim, q.rowSize, len(dst), len(code))
	}
	return nil
}

// centroidsOf writes n·c[idx] (Π·x̂, the MSE part in rotated space).
func (q *Quantizer) centroidsOf(y []float32, code []byte, idx []uint8) {
	n := math.Float32frombits(binary.LittleEndian.Uint32(code))
	mse := code[4 : 4+q.mseLen]
	if q.cfg.Variant == IP {
		mse = code[8 : 8+q.mseLen]
	}
	if q.mseBits == 4 {
		// Two coordinates a byte, read directly: the HNSW decodes every
		// candidate it prunes with (Approx), and the generic bit reader
		// was half of that (profile of BenchmarkBuildStorage, 2026-12-03).
		c := q.cb.centroids[:16]
		d := len(y)
		for i, b := range mse[:d/2] {
			y[2*i] = n * c[b&15]
			y[2*i+1] = n * c[b>>4]
		}
		if d%2 == 1 {
			y[d-1] = n * c[mse[d/2]&15]
		}
		return
	}
	unpack(idx, mse, q.mseBits)
	for j, k := range idx {
		y[j] = n * q.cb.centroids[k]
	}
}

// addResidual adds the QJL residual estimate (√(π/2)/m)·γ·Sᵀs to y.
func (q *Quantizer) addResidual(y []float32, code []byte) {
	d := q.cfg.Dim
	gamma := math.Float32frombits(binary.LittleEndian.Uint32(code[4:]))
	z := code[8+q.mseLen:]
	c := float32(math.Sqrt(math.Pi/2)/float64(d)) * gamma
	for i := range d {
		sgn := -c
		if z[i>>3]>>(i&7)&1 != 0 {
			sgn = c
		}
		row := q.qjl[i*d : (i+1)*d]
		for j := range y {
			y[j] += sgn * row[j]
		}
	}
}

// dotf is a float32 inner product with four accumulators (quant sits
// below vector and cannot use its assembly kernel).
func dotf(a, b []float32) float32 {
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
