package builtin

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/contextd/contextd/internal/lab/paraphrase"
	"github.com/contextd/contextd/model"
)

// staticDF is a DocFreqs answering fixed frequencies.
type staticDF struct{ docs int }

func (s staticDF) DocFreqs(_ context.Context, words []string) ([]int, int, error) {
	return make([]int, len(words)), s.docs, nil
}

// TestBlendParaphraseNotLast: on the paraphrase set, where no
// query shares a content word with its entry, the lexical reranker ranks
// each entry behind every distractor that shares an incidental word with
// the query, tied with all the others at 0 (so its place is whatever the
// retrieval order was: counted as the middle of the tie); blending in
// embedding similarity lifts the entries: their median rank among the 450
// distractors at least halves.
func TestBlendParaphraseNotLast(t *testing.T) {
	set, err := paraphrase.Load("../../testdata/paraphrase")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	blend := Blend{Embedder: &Embedder{}}
	rankOf := func(r interface {
		Rerank(context.Context, string, []string) ([]float64, error)
	}, p paraphrase.Pair) int {
		scores, err := r.Rerank(ctx, p.Query, append([]string{p.Entry}, set.Distractors...))
		if err != nil {
			t.Fatal(err)
		}
		above, tied := 0, 0
		for _, s := range scores[1:] {
			switch {
			case s > scores[0]:
				above++
			case s == scores[0]:
				tied++
			}
		}
		return 1 + above + tied/2
	}
	var lex, bl []int
	for _, p := range set.Pairs {
		lex = append(lex, rankOf(Lexical{}, p))
		bl = append(bl, rankOf(blend, p))
	}
	slices.Sort(lex)
	slices.Sort(bl)
	ml, mb := lex[len(lex)/2], bl[len(bl)/2]
	t.Logf("median rank among %d distractors: lexical %d, blend %d", len(set.Distractors), ml, mb)
	if 2*mb > ml {
		t.Fatalf("median rank: blend %d, lexical %d; want at most half", mb, ml)
	}
}

// TestBlendOracle: the blend is exactly (1−w)·lexical + w·max(0, cos) of
// the embedder's own vectors, for several weights (0 meaning the default).
func TestBlendOracle(t *testing.T) {
	ctx := context.Background()
	e := &Embedder{}
	query := "engine failure in cold weather"
	passages := []string{"the car would not start in winter", "engine failure: the pump broke", "", "weather report for Tuesday", "42"}
	lex, err := Lexical{}.Rerank(ctx, query, passages)
	if err != nil {
		t.Fatal(err)
	}
	vecs, err := e.Embed(ctx, append([]string{query}, passages...))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []float64{0, 0.1, 0.5, 1} {
		got, err := Blend{Embedder: e, Weight: w}.Rerank(ctx, query, passages)
		if err != nil {
			t.Fatal(err)
		}
		ww := w
		if ww == 0 {
			ww = DefaultBlendWeight
		}
		for i := range passages {
			var cos float64
			for k := range vecs[0] {
				cos += float64(vecs[0][k]) * float64(vecs[i+1][k])
			}
			want := (1-ww)*lex[i] + ww*max(0, cos)
			if math.Abs(got[i]-want) > 1e-5 {
				t.Errorf("w %v passage %d: %v, want %v", w, i, got[i], want)
			}
		}
	}
}

func TestBlendWithoutEmbedderIsLexical(t *testing.T) {
	ctx := context.Background()
	passages := []string{"alpha beta", "beta gamma", "delta"}
	a, _ := Lexical{}.Rerank(ctx, "beta", passages)
	b, err := Blend{}.Rerank(ctx, "beta", passages)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("nil embedder: %v, lexical %v", b, a)
		}
	}
}

func TestBlendWithStats(t *testing.T) {
	s := staticDF{docs: 7}
	b := Blend{}.WithStats(s).(Blend)
	if b.Lexical.Stats != s {
		t.Fatal("statistics not set")
	}
	own := staticDF{docs: 3}
	if b := (Blend{Lexical: Lexical{Stats: own}}).WithStats(s).(Blend); b.Lexical.Stats != own {
		t.Fatal("set statistics replaced")
	}
	if l := (Lexical{}).WithStats(s).(Lexical); l.Stats != s {
		t.Fatal("lexical statistics not set")
	}
}

func TestBlendCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (Blend{Embedder: &Embedder{}}).Rerank(ctx, "q", []string{"p"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
}

// BenchmarkBlend is BenchmarkLexical's workload through the blend: the
// difference is embedding the query and the passages, with the built-in
// table alone (model lexical-semantic) and with the distilled table as
// well (lexical-semantic-v2, the default). Sub-benchmarks alternate under
// -count, so the two are measured in interleaved rounds.
func BenchmarkBlend(b *testing.B) {
	e := &Embedder{}
	for _, m := range []struct {
		name string
		r    Blend
	}{{"model=lexical-semantic", Blend{Embedder: e}}, {"model=" + BlendModel, Blend{Embedder: e, Distilled: &Distilled{}}}} {
		b.Run(m.name, func(b *testing.B) { benchRerank(b, m.r) })
	}
}

// benchRerank sweeps r over 10 and 100 passages of 2,000 characters.
func benchRerank(b *testing.B, r model.Reranker) {
	for _, n := range []int{10, 100} {
		passages := benchPassages(n, 2000)
		b.Run(fmt.Sprintf("passages=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			ctx := context.Background()
			for b.Loop() {
				if _, err := r.Rerank(ctx, benchQuery, passages); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
