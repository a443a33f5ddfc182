package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/contextd/contextd/internal/testtier"
)

// TestQuestionsEval runs `contextd eval docs` and `contextd eval code`
// and holds the fusion's acceptance on their checking halves, on all
// questions and on the lexical and the paraphrase ones: hybrid_search_context's
// MRR@10 is at least OR-ed full text's and semantic search's, knowledge
// Hybrid's at least Keyword's and Semantic's (docs/retrieval-quality.md,
// "A lexical match by share"). The choosing halves are not held: the
// settings were chosen on them.
func TestQuestionsEval(t *testing.T) {
	t.Parallel()
	testtier.Long(t)
	for name, dir := range map[string]string{
		"docs": filepath.Join("..", "..", "internal", "lab", "keval", "testdata"),
		"code": filepath.Join("..", "..", "testdata", "gocode"),
	} {
		set, err := loadQuestionSet(name, dir)
		if err != nil {
			t.Fatal(err)
		}
		runs, err := evaluateQuestions(context.Background(), set, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		by := map[string]questionRun{}
		for _, r := range runs {
			by[r.method] = r
		}
		for fused, legs := range map[string][]string{
			"hybrid":           {"fts (OR)", "semantic"},
			"knowledge Hybrid": {"knowledge Keyword", "knowledge Semantic"},
		} {
			for _, sub := range []questionSubset{{"check", ""}, {"check", "lexical"}, {"check", "paraphrase"}} {
				h := by[fused].mrr(set.questions, sub)
				t.Logf("%s %s: %s %.3f", name, sub, fused, h)
				for _, l := range legs {
					if lr, ok := by[l]; !ok {
						t.Fatalf("%s: no run %q", name, l)
					} else if m := lr.mrr(set.questions, sub); h < m-1e-9 {
						t.Errorf("%s %s: %s MRR@10 %.3f below %s %.3f", name, sub, fused, h, l, m)
					}
				}
			}
		}
	}
}
