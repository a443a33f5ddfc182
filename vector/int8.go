package vector

// This file holds the 8-bit storage of the graph (Options.Int8): every
// node keeps its vector as dim signed bytes and one float32 scale, x ≈
// scale·c with c in [-127, 127] and scale = max|x|/127, instead of dim
// float32 values. A query stays float32 and is measured against the bytes
// directly (i8DistQ, no decoding); two stored nodes are measured against
// each other the same way (i8Pair), so inserts need no scratch and a
// batch's neighbour choice still runs on every core.

import "math"

// quantize8 writes x's bytes into c and returns the scale.
func quantize8(c []int8, x []float32) float32 {
	var m float32
	for _, v := range x {
		m = max(m, float32(math.Abs(float64(v))))
	}
	if m == 0 {
		clear(c)
		return 0
	}
	inv := 127 / m
	for i, v := range x {
		r := math.Round(float64(v * inv))
		c[i] = int8(max(-127, min(127, r)))
	}
	return m / 127
}

// dequantize8 writes scale·c into x.
func dequantize8(x []float32, c []int8, scale float32) {
	for i, v := range c {
		x[i] = scale * float32(v)
	}
}

// i8 is node id's bytes.
func (ix *Index) i8(id uint32) []int8 {
	o := int(id) * ix.dim
	return ix.bytes8[o : o+ix.dim : o+ix.dim]
}

// i8DistQ is the metric's internal distance from the float32 query q
// (index space) to node n's bytes.
func (ix *Index) i8DistQ(q []float32, n uint32) float32 {
	c, s := ix.i8(n), ix.scale8[n]
	switch ix.o.Metric {
	case L2:
		return l2sqF32I8(q, c, s)
	case Dot:
		return -s * dotF32I8(q, c)
	}
	return 1 - s*dotF32I8(q, c)
}

// i8Pair is the metric's internal distance between stored nodes a and b.
func (ix *Index) i8Pair(a, b uint32) float32 {
	ca, sa, cb, sb := ix.i8(a), ix.scale8[a], ix.i8(b), ix.scale8[b]
	if ix.o.Metric == L2 {
		return l2sqI8I8(ca, sa, cb, sb)
	}
	var d int32
	for i, v := range ca {
		d += int32(v) * int32(cb[i])
	}
	if ix.o.Metric == Dot {
		return -sa * sb * float32(d)
	}
	return 1 - sa*sb*float32(d)
}

// i8Same reports whether nodes a and b store the same vector.
func (ix *Index) i8Same(a, b uint32) bool {
	if ix.scale8[a] != ix.scale8[b] {
		return false
	}
	ca, cb := ix.i8(a), ix.i8(b)
	for i, v := range ca {
		if cb[i] != v {
			return false
		}
	}
	return true
}

// dotF32I8Generic is Σ q[i]·c[i].
func dotF32I8Generic(q []float32, c []int8) float32 {
	c = c[:len(q)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(q); i += 4 {
		s0 += q[i] * float32(c[i])
		s1 += q[i+1] * float32(c[i+1])
		s2 += q[i+2] * float32(c[i+2])
		s3 += q[i+3] * float32(c[i+3])
	}
	for ; i < len(q); i++ {
		s0 += q[i] * float32(c[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// l2sqF32I8Generic is Σ (q[i] − s·c[i])².
func l2sqF32I8Generic(q []float32, c []int8, s float32) float32 {
	c = c[:len(q)]
	var s0, s1 float32
	i := 0
	for ; i+2 <= len(q); i += 2 {
		d0, d1 := q[i]-s*float32(c[i]), q[i+1]-s*float32(c[i+1])
		s0 += d0 * d0
		s1 += d1 * d1
	}
	for ; i < len(q); i++ {
		d := q[i] - s*float32(c[i])
		s0 += d * d
	}
	return s0 + s1
}

// l2sqI8I8Generic is Σ (sa·a[i] − sb·b[i])².
func l2sqI8I8Generic(a []int8, sa float32, b []int8, sb float32) float32 {
	b = b[:len(a)]
	var s0, s1 float32
	i := 0
	for ; i+2 <= len(a); i += 2 {
		d0, d1 := sa*float32(a[i])-sb*float32(b[i]), sa*float32(a[i+1])-sb*float32(b[i+1])
		s0 += d0 * d0
		s1 += d1 * d1
	}
	for ; i < len(a); i++ {
		d := sa*float32(a[i]) - sb*float32(b[i])
		s0 += d * d
	}
	return s0 + s1
}

// AdoptStorage converts the index to the storage o asks for when that
// needs nothing the index no longer has: float32 vectors become Int8
// bytes in place (a snapshot written before the 8-bit storage loads
// without a rebuild; 1M vectors of 100 dimensions in well under a
// second). It reports whether the index now stores vectors as o asks
// (SameStorage).
func (ix *Index) AdoptStorage(o Options) bool {
	ix.lock()
	defer ix.mu.Unlock()
	if o.Int8 && !ix.o.Int8 && ix.quant == nil && o.Quantizer == nil {
		n := len(ix.keys)
		b := make([]int8, n*ix.dim)
		s := make([]float32, n)
		for i := range n {
			s[i] = quantize8(b[i*ix.dim:(i+1)*ix.dim], ix.vecs[i*ix.dim:(i+1)*ix.dim])
		}
		ix.bytes8, ix.scale8, ix.vecs, ix.o.Int8 = b, s, nil, true
	}
	return ix.sameStorage(o)
}
