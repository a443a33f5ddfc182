package main

import (
	"math"
	"testing"

	"github.com/contextd/contextd/internal/wordvec"
)

func TestProducible(t *testing.T) {
	for w, want := range map[string]bool{
		"the": true, "2010": true, "café": true,
		",": false, "n't": false, "'s": false, "u.s.": false, "e-mail": false, "The": false,
	} {
		if got := producible(w); got != want {
			t.Fatalf("producible(%q) = %v, want %v", w, got, want)
		}
	}
}

func TestPrincipal(t *testing.T) {
	// Every word shares a strong first axis, so the common component is
	// that axis, with a positive sign.
	tab := &wordvec.Table{Dim: 3, Vocab: 10, SIFA: 1e-3,
		Words: []string{"a", "b", "c"}, Ranks: []uint32{3, 4, 5}}
	data, err := wordvec.Encode(tab, [][]float32{{-5, 1, 0}, {-5, 0, 1}, {-5, -1, 0}})
	if err != nil {
		t.Fatal(err)
	}
	qt, err := wordvec.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	pc := principal(qt, []string{"a b", "b c", "a c", "a", "c"})
	var n float64
	for _, x := range pc {
		n += float64(x) * float64(x)
	}
	if math.Abs(n-1) > 1e-5 || pc[0] < 0.99 {
		t.Fatalf("principal = %v, want ≈ (1, 0, 0)", pc)
	}
}
