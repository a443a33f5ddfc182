package builtin

import (
	"context"
	"math"
	"testing"
)

// TestDistilledTable: the vendored distilled table decodes, has the
// built-in table's words in the same order, and its vectors are unit
// length or zero (a text without a known word).
func TestDistilledTable(t *testing.T) {
	var d Distilled
	var e Embedder
	dt, err := d.load()
	if err != nil {
		t.Fatal(err)
	}
	et, err := e.load()
	if err != nil {
		t.Fatal(err)
	}
	if len(dt.Ranks) != len(et.Ranks) {
		t.Fatalf("%d words, the built-in table %d", len(dt.Ranks), len(et.Ranks))
	}
	for _, i := range []int{0, 1, 999, 50000, len(et.Ranks) - 1} {
		if dt.Word(i) != et.Word(i) {
			t.Fatalf("word %d: %q, built-in %q", i, dt.Word(i), et.Word(i))
		}
	}
	vecs, err := d.Embed(context.Background(), []string{"the schema upgrade errored out", "zxqv blorptang", ""})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{1, 0, 0} {
		var n float64
		for _, x := range vecs[i] {
			n += float64(x) * float64(x)
		}
		if math.Abs(n-want) > 1e-4 {
			t.Fatalf("text %d: squared norm %v, want %v", i, n, want)
		}
	}
}

// TestDistilledParaphrase: the distilled table puts a paraphrase closer
// to its query than an unrelated sentence.
func TestDistilledParaphrase(t *testing.T) {
	var d Distilled
	v, err := d.Embed(context.Background(), []string{"database migration failed",
		"the schema upgrade errored out on production", "we had pasta for lunch on the terrace"})
	if err != nil {
		t.Fatal(err)
	}
	near, far := dot32(v[0], v[1]), dot32(v[0], v[2])
	if near <= far {
		t.Fatalf("paraphrase %.3f ≤ unrelated %.3f", near, far)
	}
}

// TestBlendDistilledOracle: with a distilled table the blend is
// (1−w)·lexical + w·max(0, cos) where cos is that of the explicit 200-d
// concatenations [α·g ; (1−α)·d], for several α and w (0: defaults).
func TestBlendDistilledOracle(t *testing.T) {
	ctx := context.Background()
	e, d := &Embedder{}, &Distilled{}
	query := "database migration failed"
	passages := []string{"the schema upgrade errored out", "zxqv blorptang", "", "database migration failed", "lunch on the terrace"}
	lex, err := Lexical{}.Rerank(ctx, query, passages)
	if err != nil {
		t.Fatal(err)
	}
	texts := append([]string{query}, passages...)
	g, _ := e.Embed(ctx, texts)
	dv, _ := d.Embed(ctx, texts)
	for _, c := range []struct{ w, a float64 }{{0, 0}, {0.3, 0.5}, {0.5, 0.3}, {1, 0.7}} {
		got, err := Blend{Embedder: e, Distilled: d, Weight: c.w, Alpha: c.a}.Rerank(ctx, query, passages)
		if err != nil {
			t.Fatal(err)
		}
		w, a := c.w, c.a
		if w == 0 {
			w = DefaultBlendWeight
		}
		if a == 0 {
			a = BlendAlpha
		}
		cat := func(i int) []float64 {
			var v []float64
			for _, x := range g[i] {
				v = append(v, a*float64(x))
			}
			for _, x := range dv[i] {
				v = append(v, (1-a)*float64(x))
			}
			return v
		}
		q := cat(0)
		for i := range passages {
			p := cat(i + 1)
			var num, nq, np float64
			for k := range q {
				num += q[k] * p[k]
				nq += q[k] * q[k]
				np += p[k] * p[k]
			}
			cos := 0.0
			if nq > 0 && np > 0 {
				cos = num / math.Sqrt(nq*np)
			}
			want := (1-w)*lex[i] + w*max(0, cos)
			if math.Abs(got[i]-want) > 1e-5 {
				t.Errorf("w %v α %v passage %d: %v, want %v", c.w, c.a, i, got[i], want)
			}
		}
	}
}
