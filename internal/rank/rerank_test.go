package rank

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// scorer scores each passage by a fixed table (missing passages score 0)
// and records what it read.
type scorer struct {
	scores map[string]float64
	err    error
	short  bool
	read   []string
}

func (s *scorer) Rerank(_ context.Context, _ string, passages []string) ([]float64, error) {
	s.read = append(s.read, passages...)
	if s.err != nil {
		return nil, s.err
	}
	out := make([]float64, len(passages))
	for i, p := range passages {
		out[i] = s.scores[p]
	}
	if s.short {
		out = out[1:]
	}
	return out, nil
}

func textsOf(m map[string]string) Texts {
	return func(_ context.Context, ids []string) (map[string]string, error) {
		out := map[string]string{}
		for _, id := range ids {
			if t, ok := m[id]; ok {
				out[id] = t
			}
		}
		return out, nil
	}
}

func ids(cands []Candidate) string { return strings.Join(IDs(cands), " ") }

func TestRerank(t *testing.T) {
	ctx := context.Background()
	texts := textsOf(map[string]string{"a": "alpha", "b": "beta", "c": "gamma", "d": "delta"})
	ranking := func() []Candidate {
		return VectorRanking([]VectorHit{{ID: "a"}, {ID: "b"}, {ID: "gone"}, {ID: "c"}, {ID: "d"}})
	}

	// No reranker: the ranking is returned as is, deleted entries included.
	in := ranking()
	got, ok, err := Reranking{}.Rerank(ctx, "q", in, texts)
	if err != nil || ok || ids(got) != "a b gone c d" {
		t.Fatalf("no reranker: %s %v %v", ids(got), ok, err)
	}

	// Scores order the kept candidates, clamped to [0, 1] (NaN is 0); ties keep the
	// retrieval order; the input is not reordered.
	s := &scorer{scores: map[string]float64{"alpha": 0.2, "beta": 3, "gamma": 0.2, "delta": math.NaN()}}
	in = ranking()
	got, ok, err = Reranking{Reranker: s}.Rerank(ctx, "q", in, texts)
	if err != nil || !ok {
		t.Fatalf("rerank: %v %v", ok, err)
	}
	if ids(got) != "b a c d" {
		t.Fatalf("order %s, want b a c d", ids(got))
	}
	if scores := []float64{got[0].Rerank, got[1].Rerank, got[2].Rerank, got[3].Rerank}; !slices.Equal(scores, []float64{1, 0.2, 0.2, 0}) {
		t.Fatalf("scores %v", scores)
	}
	if ids(in) != "a b gone c d" {
		t.Fatalf("input reordered: %s", ids(in))
	}
	if !slices.Equal(s.read, []string{"alpha", "beta", "gamma", "delta"}) {
		t.Fatalf("passages %q", s.read)
	}

	// A failing reranker, or one with the wrong number of scores, keeps
	// the order without the deleted entries and is not an error.
	for _, bad := range []*scorer{{err: errors.New("down")}, {short: true}} {
		got, ok, err = Reranking{Reranker: bad}.Rerank(ctx, "q", ranking(), texts)
		if err != nil || ok || ids(got) != "a b c d" {
			t.Fatalf("failing reranker: %s %v %v", ids(got), ok, err)
		}
	}

	// Everything deleted: the reranker is not asked.
	s = &scorer{}
	got, ok, err = Reranking{Reranker: s}.Rerank(ctx, "q", VectorRanking([]VectorHit{{ID: "gone"}}), texts)
	if err != nil || ok || len(got) != 0 || s.read != nil {
		t.Fatalf("all deleted: %s %v %v %q", ids(got), ok, err, s.read)
	}

	// The texts failing is an error.
	boom := errors.New("boom")
	failing := func(context.Context, []string) (map[string]string, error) { return nil, boom }
	if _, _, err := (Reranking{Reranker: &scorer{}}).Rerank(ctx, "q", ranking(), failing); !errors.Is(err, boom) {
		t.Fatalf("texts error: %v", err)
	}
}

func TestRankings(t *testing.T) {
	th := []TextHit{{ID: "x", Score: 2}, {ID: "y", Score: 1}}
	tc := TextRanking(th)
	if ids(tc) != "x y" || tc[1].Text != &th[1] || tc[1].Vector != nil || tc[1].TextRank != 0 {
		t.Fatalf("text ranking %+v", tc)
	}
	vh := []VectorHit{{ID: "z", Distance: 0.5}}
	vc := VectorRanking(vh)
	if ids(vc) != "z" || vc[0].Vector != &vh[0] || vc[0].Text != nil {
		t.Fatalf("vector ranking %+v", vc)
	}
	if got := IDs(nil); len(got) != 0 {
		t.Fatalf("IDs(nil) = %v", got)
	}
}
