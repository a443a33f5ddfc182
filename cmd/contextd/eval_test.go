package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextd/contextd/internal/lab/paraphrase"
	"github.com/contextd/contextd/internal/testtier"
)

// cranfieldDir is the Cranfield collection in the repository's testdata.
const cranfieldDir = "../../testdata/cranfield"

// TestCranfieldEval runs `contextd eval cranfield` as CI does: both search
// backends over the 1,400 documents and 225 queries. It holds the measured
// quality as a floor (a ranking regression fails it) and checks parity:
// the two backends' top-10 sets overlap by at least 70% on average.
func TestCranfieldEval(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(filepath.Join(cranfieldDir, "cran.qry")); err != nil {
		t.Fatalf("Cranfield data not found at %s (it is part of the repository): %v", cranfieldDir, err)
	}
	// A minute and more on two cores (twelve runs over both backends), so
	// the evaluation is in the long tier, which CI runs.
	testtier.Long(t)
	col, err := loadCranfield(cranfieldDir)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := evaluateCranfield(context.Background(), col, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// Floors hold the measured quality (a ranking regression fails).
	// The retrieval-quality targets, on the even (reporting) half: hybrid
	// without a reranker >= BM25 holds since the convex fusion (0.3744 vs
	// 0.3703; checked below); semantic alone >= 0.28 (measured 0.238) and
	// hybrid with the default reranker >= BM25 + 0.02 (0.3867 vs 0.3903
	// with lexical-semantic-v2, 0.3766 with the first blend) are not
	// reached with the built-in GloVe embedder. Measured 2026-12-03
	// (lexical-semantic-v2): fts+rerank 0.3905 / 0.3913 (in-process /
	// native), semantic+rerank 0.3733 / 0.3735, hybrid+rerank 0.3899 /
	// 0.3878.
	floors := map[string]float64{
		"in-process fts": 0.37, "native fts": 0.35,
		"in-process fts+rerank": 0.39, "native fts+rerank": 0.39,
		"in-process semantic": 0.23, "native semantic": 0.23,
		"in-process semantic+rerank": 0.37, "native semantic+rerank": 0.37,
		"in-process hybrid": 0.37, "native hybrid": 0.37,
		"in-process hybrid+rerank": 0.385, "native hybrid+rerank": 0.385,
	}
	for _, r := range runs {
		t.Logf("%s: nDCG@10 %.4f (odd %.4f, even %.4f)  P@10 %.4f  MAP %.4f  MRR %.4f", r.name(), r.ndcg10, r.half(1), r.half(0), r.p10, r.mapScore, r.mrr)
		if r.judged != 225 {
			t.Fatalf("%s: %d judged queries, want 225", r.name(), r.judged)
		}
		floor, ok := floors[r.name()]
		if !ok {
			t.Fatalf("no floor for %s", r.name())
		}
		if r.ndcg10 < floor {
			t.Fatalf("%s: nDCG@10 %.4f fell below %.2f", r.name(), r.ndcg10, floor)
		}
	}
	// The default configuration's searches (reranked) beat BM25 alone by
	// 0.01 on the whole set and on the reporting half; hybrid search
	// without a reranker is not below BM25 on the whole set nor on the
	// reporting half, on either backend.
	bm25, _ := findRun(runs, "in-process", "fts")
	for _, m := range []string{"hybrid+rerank", "fts+rerank"} {
		h, _ := findRun(runs, "in-process", m)
		if h.ndcg10 < bm25.ndcg10+0.01 || h.half(0) < bm25.half(0) {
			t.Fatalf("in-process %s nDCG@10 %.4f (even %.4f) not above BM25 %.4f (even %.4f)", m, h.ndcg10, h.half(0), bm25.ndcg10, bm25.half(0))
		}
	}
	for _, backend := range []string{"in-process", "native"} {
		h, _ := findRun(runs, backend, "hybrid")
		b, _ := findRun(runs, backend, "fts")
		if h.ndcg10 < b.ndcg10 || h.half(0) < b.half(0) {
			t.Fatalf("%s hybrid without reranker nDCG@10 %.4f (even %.4f) below BM25 %.4f (even %.4f)", backend, h.ndcg10, h.half(0), b.ndcg10, b.half(0))
		}
	}
	for _, m := range []string{"fts", "fts+rerank"} {
		a, _ := findRun(runs, "in-process", m)
		b, _ := findRun(runs, "native", m)
		if ov := topOverlap(a.ranked, b.ranked, 10); ov < 0.70 {
			t.Fatalf("%s top-10 overlap in-process vs native %.3f, want >= 0.70", m, ov)
		} else {
			t.Logf("%s top-10 overlap %.3f", m, ov)
		}
	}
}

func TestMetrics(t *testing.T) {
	t.Parallel()
	j := map[int]int{1: 1, 2: 4, 3: -1}
	tests := []struct {
		name string
		got  float64
		want float64
	}{
		{"p@10", precisionAt([]int{1, 3, 2}, j, 10), 0.2},
		{"rr", reciprocalRank([]int{3, 2, 1}, j), 0.5},
		{"ap", averagePrecision([]int{1, 3, 2}, j), (1 + 2.0/3) / 2},
		{"ndcg ideal", ndcgAt([]int{1, 2}, j, 10), 1},
		{"ndcg none", ndcgAt([]int{3}, j, 10), 0},
		{"overlap", topOverlap([][]int{{1, 2}}, [][]int{{2, 5}}, 10), 0.5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if d := tc.got - tc.want; d > 1e-9 || d < -1e-9 {
				t.Fatalf("got %v, want %v", tc.got, tc.want)
			}
		})
	}
	if q := orQuery("what is the (flow) of a-b ?"); q != `"what" OR "is" OR "the" OR "flow" OR "of"` {
		t.Fatalf("orQuery: %s", q)
	}
}

// TestParaphraseEval runs `contextd eval paraphrase` and holds its
// measured quality as floors (top-5 over all 60 pairs, the default
// configuration) and the fusion's acceptance on the held-out pairs:
// hybrid_search_context's top-5 is at least OR-ed full text's and
// semantic search's, knowledge Hybrid's at least Keyword's and
// Semantic's. The target is semantic top-5 >= 0.8 and hybrid >= 0.85:
// the built-in GloVe embedder does not reach them (README, "Semantic and
// hybrid search"), so the floors are today's figures, and raising them
// is the work left.
func TestParaphraseEval(t *testing.T) {
	t.Parallel()
	testtier.Long(t)
	set, err := paraphrase.Load("../../testdata/paraphrase")
	if err != nil {
		t.Fatal(err)
	}
	runs, err := evaluateParaphrase(context.Background(), set, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// Measured 2026-12-04 (reranking off by default): semantic and
	// hybrid 0.317, knowledge Semantic and Hybrid 0.333.
	floors := map[string]float64{"semantic": 0.3, "hybrid": 0.3, "knowledge Semantic": 0.3, "knowledge Hybrid": 0.3}
	held := map[string]float64{}
	for _, r := range runs {
		top5 := r.at(set, 5, allPairs)
		held[r.method] = r.at(set, 5, heldPairs)
		t.Logf("%s: top-1 %.3f top-5 %.3f top-10 %.3f, held-out top-5 %.3f", r.method, r.at(set, 1, allPairs), top5, r.at(set, 10, allPairs), held[r.method])
		if floor, ok := floors[r.method]; ok && top5 < floor {
			t.Errorf("%s: top-5 %.3f fell below %.2f", r.method, top5, floor)
		}
	}
	for fused, legs := range map[string][]string{"hybrid": {"fts (OR)", "semantic"}, "knowledge Hybrid": {"knowledge Keyword", "knowledge Semantic"}} {
		for _, l := range legs {
			if held[fused] < held[l]-1e-9 {
				t.Errorf("held out: %s top-5 %.3f below %s %.3f", fused, held[fused], l, held[l])
			}
		}
	}
}

// TestEvalParaphraseMissingData: a -data folder without the set fails with
// a message naming what is missing, before any database is made.
func TestEvalParaphraseMissingData(t *testing.T) {
	t.Parallel()
	var out, errb strings.Builder
	code := runEval(context.Background(), []string{"paraphrase", "-data", t.TempDir()}, &out, &errb)
	if code != exitFail || out.Len() != 0 || !strings.Contains(errb.String(), "read pairs") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}
