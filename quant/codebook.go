package quant

import "math"

// lloydMax holds the Lloyd-Max centroids of the standard normal for 1-4
// bits, ascending (C.14 item 2). A rotated unit vector's coordinates are
// close to N(0, 1/d), so the codebook of dimension d is these scaled by
// 1/√d; the boundaries are the midpoints between adjacent centroids.
var lloydMax = [5][]float64{
	1: {-0.7978845608, 0.7978845608},
	2: {-1.5104176088, -0.4527800398, 0.4527800398, 1.5104176088},
	3: {-2.1519742685, -1.3439092613, -0.7560052489, -0.2451209529,
		0.2451209529, 0.7560052489, 1.3439092613, 2.1519742685},
	4: {-2.7326368225, -2.0690571770, -1.6180378132, -1.2561836443,
		-0.9423401764, -0.6567588956, -0.3880170670, -0.1284042432,
		0.1284042432, 0.3880170670, 0.6567588956, 0.9423401764,
		1.2561836443, 1.6180378132, 2.0690571770, 2.7326368225},
}

// GaussianMSE is the mean squared error per unit of variance of the
// Lloyd-Max quantizer of N(0,1) at 1-4 bits (Max 1960): the distortion
// ‖x − x̂‖² a unit vector gets after the rotation. The TurboQuant paper
// quotes them rounded as ≈0.36, 0.117, 0.03 and 0.009.
var GaussianMSE = [5]float64{1: 0.3634, 2: 0.1175, 3: 0.03454, 4: 0.009497}

// codebook is the scaled scalar quantizer of one bit width and dimension.
type codebook struct {
	bits      int
	centroids []float32 // 2^bits, ascending, scaled by 1/√d
	bounds    []float32 // 2^bits − 1 midpoints
}

func newCodebook(bits, d int) codebook {
	s := 1 / math.Sqrt(float64(d))
	cb := codebook{bits: bits}
	for _, c := range lloydMax[bits] {
		cb.centroids = append(cb.centroids, float32(c*s))
	}
	for i := 1; i < len(cb.centroids); i++ {
		cb.bounds = append(cb.bounds, (cb.centroids[i-1]+cb.centroids[i])/2)
	}
	return cb
}

// index is #{boundaries < v} (numpy searchsorted, side left): the
// centroid nearest to v, ties to the lower one.
func (cb *codebook) index(v float32) uint8 {
	lo, hi := 0, len(cb.bounds)
	for lo < hi {
		m := (lo + hi) / 2
		if cb.bounds[m] < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return uint8(lo)
}
