package bm25

import (
	"math"
	"testing"
)

func TestIDFTimesTF(t *testing.T) {
	// Hand computed: N 10, df 2, tf 3, dl 8, avgdl 10.
	idf := math.Log(1 + (10-2+0.5)/(2+0.5))
	want := idf * 3 * 2.2 / (3 + 1.2*(0.25+0.75*0.8))
	if got := IDF(2, 10) * TF(3, 8, 10); math.Abs(got-want) > 1e-12 {
		t.Fatalf("IDF·TF = %v, want %v", got, want)
	}
	if TF(0, 5, 5) != 0 || TF(1e9, 5, 5) >= MaxTF {
		t.Fatal("TF is not saturated in [0, k1+1)")
	}
	if IDF(1, 100) <= IDF(50, 100) || IDF(100, 100) <= 0 {
		t.Fatal("IDF is not decreasing and positive")
	}
}
