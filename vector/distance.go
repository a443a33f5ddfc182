package vector

import "math"

// Metric chooses how distance is measured. Lower is always nearer.
type Metric uint8

const (
	// Cosine normalises every vector on the way in and measures 1 − a·b.
	Cosine Metric = iota
	// Dot measures −a·b on vectors as given (for callers that normalise).
	Dot
	// L2 measures Euclidean distance; the graph orders by its square.
	L2
)

func (m Metric) String() string {
	switch m {
	case Cosine:
		return "cosine"
	case Dot:
		return "dot"
	case L2:
		return "l2"
	}
	return "unknown"
}

func (m Metric) valid() bool { return m <= L2 }

// dist is the internal, order-preserving distance of the metric.
func (m Metric) dist(a, b []float32) float32 {
	switch m {
	case L2:
		return l2sq(a, b)
	case Dot:
		return -dot(a, b)
	default:
		return 1 - dot(a, b)
	}
}

// report turns an internal distance into the one callers see.
func (m Metric) report(d float32) float32 {
	if m == L2 {
		return float32(math.Sqrt(float64(d)))
	}
	return d
}

// dotGeneric is the inner product, unrolled by eight into four
// independent accumulators so the adds pipeline; the reslice lets the
// compiler drop bounds checks in the loop. It allocates nothing. On amd64
// with AVX2 and FMA, dot uses the assembly kernel instead.
func dotGeneric(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		aa := a[i : i+8 : i+8]
		bb := b[i : i+8 : i+8]
		s0 += aa[0]*bb[0] + aa[4]*bb[4]
		s1 += aa[1]*bb[1] + aa[5]*bb[5]
		s2 += aa[2]*bb[2] + aa[6]*bb[6]
		s3 += aa[3]*bb[3] + aa[7]*bb[7]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// l2sqGeneric is the squared Euclidean distance, unrolled like dotGeneric.
func l2sqGeneric(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		aa := a[i : i+8 : i+8]
		bb := b[i : i+8 : i+8]
		d0, d1, d2, d3 := aa[0]-bb[0], aa[1]-bb[1], aa[2]-bb[2], aa[3]-bb[3]
		d4, d5, d6, d7 := aa[4]-bb[4], aa[5]-bb[5], aa[6]-bb[6], aa[7]-bb[7]
		s0 += d0*d0 + d4*d4
		s1 += d1*d1 + d5*d5
		s2 += d2*d2 + d6*d6
		s3 += d3*d3 + d7*d7
	}
	for ; i < len(a); i++ {
		d := a[i] - b[i]
		s0 += d * d
	}
	return (s0 + s1) + (s2 + s3)
}

// normalize scales v to unit length in place; a zero vector stays zero.
func normalize(v []float32) {
	n := math.Sqrt(float64(dot(v, v)))
	if n == 0 {
		return
	}
	inv := float32(1 / n)
	for i := range v {
		v[i] *= inv
	}
}
