package main

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestOrders: exact ranking by cosine (the lower index on a tie); the
// two-stage order reorders only the first stage's head, by the second
// vectors, and keeps the tail in the first stage's order.
func TestOrders(t *testing.T) {
	first := [][]float32{{0, 1}, {1, 0}, {0, 1}, {0.6, 0.8}, {0.8, 0.6}}
	second := [][]float32{{1, 0}, {0, 1}, {0, 1}, {1, 0}, {0, 1}}
	if top := topK(first[0], first[1:], 4); !slices.Equal(top, []int{1, 2, 3, 0}) {
		t.Fatalf("topK %v, want [1 2 3 0]", top)
	}
	if top := topK([]float32{0, 0}, first, 2); !slices.Equal(top, []int{0, 1}) {
		t.Fatalf("all tied: topK %v, want [0 1]", top)
	}
	// first stage over documents 1..4: positions 1, 2, 3, 0; the second
	// vectors put position 2 ahead of 1 in the head of two.
	got := rerankOrder(first, second, 2)(0, 1, 4)
	if want := []int{2, 1, 3, 0}; !slices.Equal(got, want) {
		t.Fatalf("two-stage order %v, want %v", got, want)
	}
}

// TestConcat: the normalised concatenation's cosine is the mix
// α²·cos₁ + (1−α)²·cos₂ over α² + (1−α)² of two unit-vector parts.
func TestConcat(t *testing.T) {
	a := [][]float32{{1, 0}, {0.6, 0.8}}
	b := [][]float32{{0, 1, 0}, {0, 1, 0}}
	c := concat(a, b, 0.3)
	got := float64(dot(c[0], c[1]))
	want := (0.09*0.6 + 0.49*1) / (0.09 + 0.49)
	if math.Abs(got-want) > 1e-6 {
		t.Fatalf("blend cosine %v, want %v", got, want)
	}
}

func TestReadF32Size(t *testing.T) {
	p := filepath.Join(t.TempDir(), "v.f32")
	if err := os.WriteFile(p, make([]byte, 4*6), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readF32(p, 2, 3); err != nil {
		t.Fatal(err)
	}
	if _, err := readF32(p, 3, 3); err == nil {
		t.Fatal("a file of the wrong size was accepted")
	}
}
