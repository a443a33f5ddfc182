package local

import (
	"math"
	"testing"
)

// TestErf32 compares the rational approximation with math.Erf on a fine
// grid past the clamp on both sides.
func TestErf32(t *testing.T) {
	var worst float64
	for i := -80000; i <= 80000; i++ {
		x := float64(i) / 10000
		d := math.Abs(float64(erf32(float32(x))) - math.Erf(x))
		worst = max(worst, d)
	}
	if worst > 1e-6 {
		t.Fatalf("largest error %g, want <= 1e-6", worst)
	}
}

func TestSoftmaxLayerNorm(t *testing.T) {
	x := []float32{1, 2, 3, 4}
	softmax(x)
	var s float32
	for _, v := range x {
		s += v
	}
	if math.Abs(float64(s)-1) > 1e-6 || !(x[3] > x[2] && x[2] > x[1]) {
		t.Fatalf("softmax = %v", x)
	}
	y := []float32{1, 2, 3, 4, 10, 10, 10, 10}
	layerNorm(y, []float32{1, 1, 1, 1}, []float32{0, 0, 0, 0}, 1e-12)
	if math.Abs(float64(y[0]+y[3])) > 1e-6 || y[4] != 0 || math.Abs(float64(y[0])+1.3416407) > 1e-5 {
		t.Fatalf("layerNorm = %v", y)
	}
}

// TestExp32 compares exp32 with math.Exp over softmax's range.
func TestExp32(t *testing.T) {
	var worst float64
	for i := 0; i <= 870000; i++ {
		x := -float64(i) / 10000
		want := math.Exp(float64(float32(x)))
		got := float64(exp32(float32(x)))
		if want < 1e-37 {
			continue // float32 subnormals
		}
		worst = max(worst, math.Abs(got-want)/want)
	}
	if worst > 3e-7 {
		t.Fatalf("largest relative error %g, want <= 3e-7", worst)
	}
	if exp32(-100) != 0 || exp32(0) != 1 {
		t.Fatalf("exp32(-100) = %g, exp32(0) = %g", exp32(-100), exp32(0))
	}
}
