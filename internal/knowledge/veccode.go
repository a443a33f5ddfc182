package knowledge

import "math"

// The chunk index keeps each chunk's vector as int16 codes, two bytes a
// dimension, instead of float32: symmetric scalar quantisation with a
// scale of its own per vector, code = round(x / max|x| * 32767). The
// semantic leg ranks by cosine, which does not depend on a vector's
// length, so the scale is not kept either: the cosine of the query with
// the codes is the cosine with the dequantised vector. The float32
// vectors were the largest part of the index left after the texts went:
// 73 MB of the Go heap 30 s after a bulk upload of 100 x 1 MB of
// Markdown (198,000 chunks of 100 dimensions); as codes they take half.
//
// Why not one byte: the fused ranking turns on differences smaller than
// int8's error. Each component is off by at most max|x|/(2 x codeMax),
// which moves a 100-dimension cosine by up to 3e-3 with int8
// (TestVecCodeOracle measured 0.0029 on the evaluation sets) and 1e-5
// with int16. On internal/lab/keval's documentation set (built-in
// embedder, 2026-12-05), vectors rounded to 8 or 9 bits moved one
// question of the choosing half from first to second in Hybrid (MRR@10
// of all questions 0.610 to 0.601, Semantic 0.602 to 0.601); at 10 bits
// and more every figure was the float32 one. quant's 1-4-bit rotation
// codebooks (the context tools' vector index) are coarser still (4 bits:
// about 1% of a unit vector's length, quant's TestMSEDistortion).

// codeMax is the code of a vector's largest component.
const codeMax = 32767

// encodeVec appends v's codes to dst. A vector with a component that is
// not finite, or all of whose components are 0, has no direction: it is
// coded all 0, and the semantic leg skips it as it skipped a zero vector.
func encodeVec(dst []int16, v []float32) []int16 {
	var m float64
	for _, x := range v {
		m = max(m, math.Abs(float64(x)))
	}
	if m == 0 || math.IsInf(m, 0) || math.IsNaN(m) {
		for range v {
			dst = append(dst, 0)
		}
		return dst
	}
	k := codeMax / m
	for _, x := range v {
		dst = append(dst, int16(math.Round(float64(x)*k)))
	}
	return dst
}

// encodeVecs codes vecs, one per chunk, into one allocation (a slice of
// 200 bytes would be rounded up to the 208-byte size class, and every
// slice is a separate object for the collector); nil unless
// every chunk has a vector.
func encodeVecs(vecs [][]float32) [][]int16 {
	n := 0
	for _, v := range vecs {
		if v == nil {
			return nil
		}
		n += len(v)
	}
	slab := make([]int16, 0, n)
	out := make([][]int16, len(vecs))
	for i, v := range vecs {
		at := len(slab)
		slab = encodeVec(slab, v)
		out[i] = slab[at:len(slab):len(slab)]
	}
	return out
}

// cosineCode is the cosine of query q (of length qn, not 0) with codes c,
// and false when c is all 0 (no direction) or of another dimension.
func cosineCode(q []float32, qn float64, c []int16) (float64, bool) {
	if len(c) != len(q) {
		return 0, false
	}
	var dot float64
	var nn int64
	for j, x := range c {
		dot += float64(x) * float64(q[j])
		nn += int64(x) * int64(x)
	}
	if nn == 0 {
		return 0, false
	}
	return dot / (qn * math.Sqrt(float64(nn))), true
}
