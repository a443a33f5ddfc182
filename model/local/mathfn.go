package local

import "math"

// erf32 is the error function in float32 by the rational approximation
// Eigen and XLA use for GELU (odd polynomial of degree 13 over an even one
// of degree 8, argument clamped to [-4, 4], where erf is 1 to float32
// precision). Its error against math.Erf is below 1e-6 on the real line
// (TestErf32), while it costs a tenth of the float64 call: the GELU of a
// MiniLM-sized layer takes 196,608 of them per 128-token sentence.
func erf32(x float32) float32 {
	x = min(max(x, -4), 4)
	x2 := x * x
	p := x2*-2.72614225801306e-10 + 2.77068142495902e-08
	p = x2*p + -2.10102402082508e-06
	p = x2*p + -5.69250639462346e-05
	p = x2*p + -7.34990630326855e-04
	p = x2*p + -2.95459980854025e-03
	p = x2*p + -1.60960333262415e-02
	p *= x
	q := x2*-1.45660718464996e-05 + -2.13374055278905e-04
	q = x2*q + -1.68282697438203e-03
	q = x2*q + -7.37332916720468e-03
	q = x2*q + -1.42647390514189e-02
	return p / q
}

// gelu is the exact GELU, x·Φ(x) = x/2·(1 + erf(x/√2)), BERT's
// hidden_act "gelu".
func gelu(x []float32) {
	for i, v := range x {
		x[i] = 0.5 * v * (1 + erf32(v*math.Sqrt2/2))
	}
}

// geluTanh is the tanh approximation ("gelu_new", "gelu_pytorch_tanh").
func geluTanh(x []float32) {
	const c = 0.7978845608028654 // sqrt(2/pi)
	for i, v := range x {
		x[i] = float32(0.5 * float64(v) * (1 + math.Tanh(c*(float64(v)+0.044715*float64(v)*float64(v)*float64(v)))))
	}
}

// relu is max(x, 0).
func relu(x []float32) {
	for i, v := range x {
		x[i] = max(v, 0)
	}
}

// layerNorm normalises each row of x (rows of len(g)) to zero mean and
// unit variance, then scales by g and shifts by b; sums in float64.
func layerNorm(x, g, b []float32, eps float64) {
	h := len(g)
	for r := 0; r+h <= len(x); r += h {
		row := x[r : r+h]
		var s float64
		for _, v := range row {
			s += float64(v)
		}
		mean := s / float64(h)
		var ss float64
		for _, v := range row {
			d := float64(v) - mean
			ss += d * d
		}
		inv := 1 / math.Sqrt(ss/float64(h)+eps)
		for i, v := range row {
			row[i] = float32((float64(v)-mean)*inv)*g[i] + b[i]
		}
	}
}

// exp32 is e^x in float32 for x <= 0 (softmax's arguments, less their
// maximum): x = k·ln2 + r with |r| <= ln2/2, e^r by its Taylor polynomial
// of degree 6 (truncation below 1.2e-7 relative), times 2^k built in the
// exponent bits. Below -87 the result underflows to 0. It is a third of
// math.Exp's cost, which was 7 % of a MiniLM-sized forward pass (1.2
// million exponentials per 128-token sentence); TestExp32 bounds its
// relative error by 3e-7.
func exp32(x float32) float32 {
	const (
		log2e = 1.4426950408889634
		ln2hi = 0.693145751953125
		ln2lo = 1.428606765330187e-06
	)
	if x < -87 {
		return 0
	}
	x = min(x, 0)
	k := float32(int32(x*log2e - 0.5)) // round to nearest (x <= 0)
	r := x - k*ln2hi - k*ln2lo
	p := 1 + r*(1+r*(0.5+r*(1.0/6+r*(1.0/24+r*(1.0/120+r*(1.0/720))))))
	return math.Float32frombits(uint32(int32(k)+127)<<23) * p
}

// softmax turns x into probabilities in place.
func softmax(x []float32) {
	m := float32(math.Inf(-1))
	for _, v := range x {
		m = max(m, v)
	}
	var s float64
	for i, v := range x {
		e := exp32(v - m)
		x[i] = e
		s += float64(e)
	}
	inv := float32(1 / s)
	for i := range x {
		x[i] *= inv
	}
}

// addBias adds b to every row of x (rows of len(b)).
func addBias(x, b []float32) {
	h := len(b)
	for r := 0; r+h <= len(x); r += h {
		row := x[r : r+h]
		for i := range row {
			row[i] += b[i]
		}
	}
}
