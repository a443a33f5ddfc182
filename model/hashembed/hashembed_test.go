package hashembed

import (
	"context"
	"math"
	"testing"
)

func cos(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestEmbed(t *testing.T) {
	ctx := context.Background()
	var zero Embedder
	if zero.Dim() != DefaultDim || zero.Model() != "hash-v1-256" {
		t.Fatalf("zero value: dim %d model %q", zero.Dim(), zero.Model())
	}
	e := New(64)
	texts := []string{"alpha beta gamma", "ALPHA, beta gamma!", "alpha beta delta", "unrelated words here", ""}
	v, err := e.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range v[:4] {
		if len(x) != 64 || math.Abs(cos(x, x)-1) > 1e-5 {
			t.Fatalf("text %d: len %d, norm² %.5f", i, len(x), cos(x, x))
		}
	}
	if cos(v[4], v[4]) != 0 {
		t.Fatalf("empty text is not the zero vector")
	}
	if c := cos(v[0], v[1]); c < 0.99999 {
		t.Fatalf("case/punctuation changed the vector: %.5f", c)
	}
	if near, far := cos(v[0], v[2]), cos(v[0], v[3]); near <= far {
		t.Fatalf("shared tokens %.3f ≤ unrelated %.3f", near, far)
	}
	again, _ := New(64).Embed(ctx, texts[:1])
	if cos(again[0], v[0]) < 0.99999 {
		t.Fatalf("not deterministic")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := e.Embed(cctx, texts); err == nil {
		t.Fatalf("cancelled context: no error")
	}
}
