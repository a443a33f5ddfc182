package main

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestRanks: exact ranking, ties go against the target (an embedder that
// maps everything to one vector must not score), and topK keeps the
// lower index on a tie.
func TestRanks(t *testing.T) {
	docs := [][]float32{{1, 0}, {0, 1}, {0.6, 0.8}, {0, 1}}
	q := []float32{0, 1}
	if r := rankOf(q, docs, 1); r != 2 {
		t.Fatalf("rank with a tie %d, want 2", r)
	}
	if r := rankOf(q, docs, 2); r != 3 {
		t.Fatalf("rank %d, want 3", r)
	}
	if top := topK(q, docs, 3); top[0] != 1 || top[1] != 3 || top[2] != 2 {
		t.Fatalf("topK %v, want [1 3 2]", top)
	}
	zero := [][]float32{{0, 0}, {0, 0}}
	if r := rankOf(q, zero, 0); r != 2 {
		t.Fatalf("all-equal vectors rank %d, want last", r)
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
