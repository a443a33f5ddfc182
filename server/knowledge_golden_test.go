package server_test

import (
	"context"
	"github.com/contextd/contextd"
	"regexp"
	"testing"

	"github.com/contextd/contextd/internal/lab/kgolden"
	"github.com/contextd/contextd/model/builtin"
)

// TestKnowledgeGoldenRelevanceHybrid runs the golden relevance set
// (testdata/knowledge/golden: 14 documents, 22 graded queries) through
// search_knowledge in every mode with the built-in embedder, uploaded
// through upload_file, and holds Hybrid to the requirements' gate (F):
// P@3 ≥ 0.6, MRR ≥ 0.7, nDCG@5 ≥ 0.6, Recall@10 ≥ 0.8. Keyword and
// Semantic are logged for comparison.
func TestKnowledgeGoldenRelevanceHybrid(t *testing.T) { kStores(t, testKnowledgeGoldenRelevanceHybrid) }

func testKnowledgeGoldenRelevanceHybrid(t *testing.T, store string) {
	set, err := kgolden.Load("../testdata/knowledge/golden")
	if err != nil {
		t.Fatal(err)
	}
	e := newKEnvOn(t, &builtin.Embedder{}, store, contextd.Config{})
	e.call("local", "container_create", map[string]any{"name": "golden"})
	for _, d := range set.Documents {
		out := e.call("local", "upload_file", map[string]any{"containerId": "golden", "fileName": d.Name, "textContent": d.Text})
		if !regexp.MustCompile(`queued for ingestion`).MatchString(out) {
			t.Fatalf("upload %s: %s", d.Name, out)
		}
	}
	e.wait()
	fileRE := regexp.MustCompile(`(?m)^File: (.+)$`)
	for _, mode := range []string{"Hybrid", "Keyword", "Semantic"} {
		rep, err := set.Evaluate(context.Background(), func(_ context.Context, q string) ([]string, error) {
			out := e.call("local", "search_knowledge", map[string]any{"containerId": "golden", "query": q, "mode": mode, "topK": 10})
			var names []string
			for _, m := range fileRE.FindAllStringSubmatch(out, -1) {
				names = append(names, m[1])
			}
			return names, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%-8s %s", mode, rep.Mean)
		if mode == "Hybrid" && !rep.Meets(kgolden.Gate) {
			for id, s := range rep.PerQuery {
				t.Logf("  %s: %s", id, s)
			}
			t.Errorf("Hybrid misses the gate %s: %s", kgolden.Gate, rep.Mean)
		}
	}
}
