package quant

import (
	"encoding/binary"
	"math"
)

// Query scores code records against one float32 query without decoding
// them (asymmetric distance): the query is rotated once, then every
// coordinate gets a table of its products with the 2^b centroids, and a
// code's inner product is one table read per coordinate. For IP the query
// is also projected by the QJL matrix once, and the sign bits are read
// four at a time through a table of partial sums.
//
// A Query is not safe for concurrent use; make one per goroutine (Reset
// reuses its memory for the next query).
type Query struct {
	q     *Quantizer
	rot   []float32 // Π·v
	norm2 float32   // ‖v‖²
	lut   []float32 // d × 2^b': rot_j · centroid_k
	lut8  []float32 // 4 bits without AVX2: per byte (two coordinates), its 256 sums
	even  []float32 // 4 bits with AVX2: rot_0, rot_2, …; the kernel reads no table
	odd   []float32 // rot_1, rot_3, … (0 past the last coordinate)
	sq    []float32 // IP: S·Π·v
	nib   []float32 // IP: per group of 4 signs, 16 partial sums of sq
	sqSum float32
	tmp   []float32
}

// NewQuery prepares the scoring of v (len Dim, finite).
func (q *Quantizer) NewQuery(v []float32) (*Query, error) {
	qq := &Query{q: q}
	return qq, qq.Reset(v)
}

// Reset prepares the query for another vector, reusing its memory.
func (qq *Query) Reset(v []float32) error {
	q := qq.q
	if err := q.check(v); err != nil {
		return err
	}
	d := q.cfg.Dim
	if len(qq.rot) != d {
		qq.rot = make([]float32, d)
		qq.tmp = make([]float32, d)
	}
	q.rot.apply(qq.rot, v, qq.tmp)
	qq.norm2 = dotf(v, v)
	return qq.prepare()
}

// ResetRotated prepares the query for a vector given already rotated (Π·v,
// len Dim, finite): what Approx returns, so stored codes can be compared
// with one another through the tables (the HNSW's pruning does).
func (qq *Query) ResetRotated(r []float32) error {
	q := qq.q
	if err := q.check(r); err != nil {
		return err
	}
	if len(qq.rot) != len(r) {
		qq.rot = make([]float32, len(r))
		qq.tmp = make([]float32, len(r))
	}
	copy(qq.rot, r)
	qq.norm2 = dotf(r, r)
	return qq.prepare()
}

// prepare builds the tables of the rotated query qq.rot.
func (qq *Query) prepare() error {
	q := qq.q
	d := q.cfg.Dim
	k := 1 << q.mseBits
	if len(qq.lut) != d*k {
		qq.lut = make([]float32, d*k)
	}
	if q.mseBits == 4 && hasAVX2FMA {
		// The AVX2 kernel looks the 16 centroids up in registers: no
		// table per query (the tables below cost d·144 operations and
		// 51 KB of cache per query at 100-d, which each graph insertion
		// pays), and 16 coordinates per step instead of one table read
		// per byte. Measured in BenchmarkScan and BenchmarkBuildStorage
		// (README, Compression).
		h := (d + 1) / 2
		if len(qq.even) != h {
			qq.even, qq.odd = make([]float32, h), make([]float32, h)
		}
		qq.odd[h-1] = 0
		for j, r := range qq.rot {
			if j%2 == 0 {
				qq.even[j/2] = r
			} else {
				qq.odd[j/2] = r
			}
		}
		return nil // MSE only: IP codes at 4 bits hold 3-bit indices
	}
	for j, r := range qq.rot {
		t := qq.lut[j*k : (j+1)*k]
		for c, cv := range q.cb.centroids {
			t[c] = r * cv
		}
	}
	if q.mseBits == 4 {
		// One table read per byte instead of two plus the nibble shifts.
		// Timed interleaved in one process on 10,000 codes (2026-12-03,
		// loaded machine): 3.1 times faster per code at 100-d, 7.5 times
		// at 384-d; building the 256 sums per byte costs d·128 adds per
		// query, repaid after a few hundred codes (a graph search scores
		// thousands).
		if len(qq.lut8) != d/2*256 {
			qq.lut8 = make([]float32, d/2*256)
		}
		for p := 0; p < d/2; p++ {
			lo, hi := qq.lut[2*p*16:2*p*16+16], qq.lut[2*p*16+16:2*p*16+32]
			t := qq.lut8[p*256 : p*256+256]
			for h, hv := range hi {
				row := t[h*16 : h*16+16]
				for l, lv := range lo {
					row[l] = lv + hv
				}
			}
		}
	}
	if q.cfg.Variant == MSE {
		return nil
	}
	if len(qq.sq) != d {
		qq.sq = make([]float32, (d+3)/4*4) // zero tail: a padded group sums nothing
		qq.nib = make([]float32, (d+3)/4*16)
	}
	qq.sqSum = 0
	for i := range d {
		qq.sq[i] = dotf(q.qjl[i*d:(i+1)*d], qq.rot)
		qq.sqSum += qq.sq[i]
	}
	for g := 0; g < len(qq.sq)/4; g++ {
		s := qq.sq[4*g : 4*g+4]
		t := qq.nib[16*g : 16*g+16]
		for m := range 16 {
			var acc float32
			for b := range 4 {
				if m>>b&1 != 0 {
					acc += s[b]
				}
			}
			t[m] = acc
		}
	}
	return nil
}

// Dot is the estimated inner product ⟨x, v⟩ of the vector x coded in code
// (a record of CodeSize bytes). For IP it is unbiased.
func (qq *Query) Dot(code []byte) float32 {
	q := qq.q
	n := math.Float32frombits(binary.LittleEndian.Uint32(code))
	if q.cfg.Variant == MSE {
		return n * qq.mseDot(code[4:4+q.mseLen])
	}
	gamma := math.Float32frombits(binary.LittleEndian.Uint32(code[4:]))
	est := n * qq.mseDot(code[8:8+q.mseLen])
	z := code[8+q.mseLen : 8+q.mseLen+q.qjlLen]
	var pos float32
	for p, b := range z {
		pos += qq.nib[32*p+int(b&15)]
		if 32*p+16 < len(qq.nib) {
			pos += qq.nib[32*p+16+int(b>>4)]
		}
	}
	d := q.cfg.Dim
	return est + float32(math.Sqrt(math.Pi/2)/float64(d))*gamma*(2*pos-qq.sqSum)
}

// L2 is the estimated squared Euclidean distance ‖x − v‖² = ‖x‖² + ‖v‖² −
// 2⟨x, v⟩, with the stored (exact) norm of x.
func (qq *Query) L2(code []byte) float32 {
	n := math.Float32frombits(binary.LittleEndian.Uint32(code))
	return max(0, n*n+qq.norm2-2*qq.Dot(code))
}

// Dots scores a contiguous array of records (len(codes) = len(out) ×
// CodeSize) into out.
func (qq *Query) Dots(codes []byte, out []float32) {
	rs := qq.q.rowSize
	for i := range out {
		out[i] = qq.Dot(codes[i*rs : (i+1)*rs : (i+1)*rs])
	}
}

// mseDot is Σ_j rot_j · centroid[idx_j] over the packed indices.
func (qq *Query) mseDot(p []byte) float32 {
	lut := qq.lut
	d := qq.q.cfg.Dim
	switch qq.q.mseBits {
	case 4:
		if qq.even != nil {
			return mse4Dot(p[:len(qq.even)], qq.even, qq.odd, qq.q.cb.centroids)
		}
		var s0, s1 float32
		t := qq.lut8
		pp := p[:d/2]
		i := 0
		for ; i+1 < len(pp); i += 2 {
			s0 += t[i*256+int(pp[i])]
			s1 += t[i*256+256+int(pp[i+1])]
		}
		if i < len(pp) {
			s0 += t[i*256+int(pp[i])]
		}
		if d%2 == 1 {
			s0 += lut[(d-1)*16+int(p[d/2]&15)]
		}
		return s0 + s1
	case 2:
		var s0, s1 float32
		j := 0
		for _, b := range p[:d/4] {
			t := lut[j*4 : j*4+16 : j*4+16]
			s0 += t[b&3] + t[8+int(b>>4&3)]
			s1 += t[4+int(b>>2&3)] + t[12+int(b>>6)]
			j += 4
		}
		for ; j < d; j++ {
			s0 += lut[j*4+int(p[j/4]>>(2*(j%4))&3)]
		}
		return s0 + s1
	case 1:
		var s float32
		for j := range d {
			s += lut[j*2+int(p[j>>3]>>(j&7)&1)]
		}
		return s
	}
	// 3 bits: eight indices in every three bytes.
	var s0, s1 float32
	j := 0
	for ; j+8 <= d; j += 8 {
		o := j / 8 * 3
		w := uint32(p[o]) | uint32(p[o+1])<<8 | uint32(p[o+2])<<16
		t := lut[j*8 : j*8+64 : j*8+64]
		s0 += t[w&7] + t[16+int(w>>6&7)] + t[32+int(w>>12&7)] + t[48+int(w>>18&7)]
		s1 += t[8+int(w>>3&7)] + t[24+int(w>>9&7)] + t[40+int(w>>15&7)] + t[56+int(w>>21&7)]
	}
	for ; j < d; j++ {
		pos := 3 * j
		w := uint16(p[pos>>3])
		if (pos&7)+3 > 8 {
			w |= uint16(p[pos>>3+1]) << 8
		}
		s0 += lut[j*8+int(w>>(pos&7)&7)]
	}
	return s0 + s1
}

// mse4DotGeneric is mse4Dot without SIMD.
func mse4DotGeneric(p []byte, even, odd, cent []float32) float32 {
	var s0, s1 float32
	c := cent[:16]
	for i, b := range p {
		s0 += even[i] * c[b&15]
		s1 += odd[i] * c[b>>4]
	}
	return s0 + s1
}
