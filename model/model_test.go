package model

import (
	"math"
	"testing"
)

func TestClampScore(t *testing.T) {
	for _, tc := range []struct{ in, want float64 }{
		{0, 0}, {0.25, 0.25}, {1, 1}, {1.0001, 1}, {-1e-9, 0}, {math.Inf(1), 1}, {math.Inf(-1), 0}, {math.NaN(), 0},
	} {
		if got := ClampScore(tc.in); got != tc.want {
			t.Errorf("ClampScore(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
