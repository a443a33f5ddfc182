package kgolden

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/index/kchunk"
)

const dir = "../../../testdata/knowledge/golden"

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestMetricsOracle checks each metric against values computed by hand.
func TestMetricsOracle(t *testing.T) {
	grades := map[string]int{"a": 3, "b": 2, "c": 1}
	for _, tc := range []struct {
		name   string
		ranked []string
		want   Scores
	}{
		{"perfect", []string{"a", "b", "c", "x"}, Scores{P3: 1, MRR: 1, NDCG5: 1, R10: 1}},
		// x a y b: P@3 = 1/3 relevant... a at 2 → hits 1 of min(3,3).
		{"mixed", []string{"x", "a", "y", "b"}, Scores{
			P3: 1.0 / 3, MRR: 0.5,
			NDCG5: (3/math.Log2(3) + 2/math.Log2(5)) / (3 + 2/math.Log2(3) + 1.0/2),
			R10:   2.0 / 3,
		}},
		{"none", []string{"x", "y"}, Scores{}},
		{"empty", nil, Scores{}},
		// Repeats (several chunks of one document) count once.
		{"repeats", []string{"a", "a", "a", "b"}, Scores{P3: 2.0 / 3, MRR: 1, NDCG5: (3 + 2/math.Log2(3)) / (3 + 2/math.Log2(3) + 1.0/2), R10: 2.0 / 3}},
	} {
		got := Score(tc.ranked, grades)
		if !near(got.P3, tc.want.P3) || !near(got.MRR, tc.want.MRR) || !near(got.NDCG5, tc.want.NDCG5) || !near(got.R10, tc.want.R10) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
	// One relevant document: P@3 is 1 when it is in the top 3.
	one := map[string]int{"d": 3}
	if p := PrecisionAt([]string{"x", "y", "d"}, one, 3); p != 1 {
		t.Errorf("P@3 with the only relevant doc at rank 3 = %v, want 1", p)
	}
	if p := PrecisionAt([]string{"x", "y", "z", "d"}, one, 3); p != 0 {
		t.Errorf("P@3 with the only relevant doc at rank 4 = %v, want 0", p)
	}
	if r := RecallAt(append(make([]string, 10), "d"), one, 10); r != 0 {
		t.Errorf("Recall@10 with the doc at rank 11 = %v", r)
	}
	if n := NDCGAt([]string{"x", "d"}, one, 5); !near(n, 1/math.Log2(3)) {
		t.Errorf("nDCG@5 = %v, want 1/log2(3)", n)
	}
	if !(Scores{0.6, 0.7, 0.6, 0.8}).Meets(Gate) || (Scores{0.6, 0.69, 0.6, 0.8}).Meets(Gate) {
		t.Error("Meets compares every metric with the gate")
	}
}

// TestGoldenSetShapeF checks the set has what the requirements ask for:
// at least 12 documents of Markdown and text, at least 16 queries that
// quote and paraphrase, and documents long enough for several chunks.
func TestGoldenSetShapeF(t *testing.T) {
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Documents) < 12 || len(s.Queries) < 16 {
		t.Fatalf("%d documents, %d queries; want ≥ 12 and ≥ 16", len(s.Documents), len(s.Queries))
	}
	kinds, exts := map[string]int{}, map[string]int{}
	for _, q := range s.Queries {
		kinds[q.Kind]++
	}
	multi := 0
	for _, d := range s.Documents {
		exts[filepath.Ext(d.Name)]++
		cs, err := kchunk.Split(context.Background(), d.Name, d.Text, kchunk.Options{Strategy: kchunk.Recursive})
		if err != nil {
			t.Fatal(err)
		}
		if len(cs) > 1 {
			multi++
		}
	}
	if kinds["quote"] < 4 || kinds["paraphrase"] < 8 || len(kinds) != 2 {
		t.Errorf("query kinds %v", kinds)
	}
	if exts[".md"] < 4 || exts[".txt"] < 4 {
		t.Errorf("document types %v", exts)
	}
	if multi < 4 {
		t.Errorf("only %d documents give several chunks", multi)
	}
}

func TestLoadRejectsBadSets(t *testing.T) {
	for name, queries := range map[string]string{
		"json":     `{"queries": [`,
		"unknown":  `{"queries": [{"id": "q1", "query": "x", "grades": {"nope.txt": 3}}]}`,
		"grade":    `{"queries": [{"id": "q1", "query": "x", "grades": {"a.txt": 4}}]}`,
		"repeat":   `{"queries": [{"id": "q1", "query": "x", "grades": {"a.txt": 3}}, {"id": "q1", "query": "y", "grades": {"a.txt": 3}}]}`,
		"empty":    `{"queries": [{"id": "q1", "query": " ", "grades": {"a.txt": 3}}]}`,
		"ungraded": `{"queries": [{"id": "q1", "query": "x", "grades": {}}]}`,
	} {
		d := t.TempDir()
		if err := os.MkdirAll(filepath.Join(d, "docs"), 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(d, "docs", "a.txt"), []byte("text"), 0o644)
		os.WriteFile(filepath.Join(d, "queries.json"), []byte(queries), 0o644)
		if _, err := Load(d); !errors.Is(err, cerrors.ErrMalformed) {
			t.Errorf("%s: err = %v, want ErrMalformed", name, err)
		}
	}
	if _, err := Load(t.TempDir()); err == nil {
		t.Error("a directory without docs/ must fail")
	}
}

func TestEvaluate(t *testing.T) {
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	// An oracle engine that ranks by the grades scores 1 everywhere.
	byQuery := map[string]map[string]int{}
	for _, q := range s.Queries {
		byQuery[q.Query] = q.Grades
	}
	rep, err := s.Evaluate(context.Background(), func(_ context.Context, q string) ([]string, error) {
		var out []string
		for g := 3; g >= 1; g-- {
			for d, x := range byQuery[q] {
				if x == g {
					out = append(out, d)
				}
			}
		}
		return out, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Mean != (Scores{1, 1, 1, 1}) || len(rep.PerQuery) != len(s.Queries) {
		t.Errorf("oracle ranking: %v", rep.Mean)
	}
	// An engine returning the documents in name order fails the gate.
	rep, err = s.Evaluate(context.Background(), func(context.Context, string) ([]string, error) {
		var out []string
		for _, d := range s.Documents {
			out = append(out, d.Name)
		}
		return out, nil
	})
	if err != nil || rep.Meets(Gate) {
		t.Errorf("a constant ranking must fail the gate: %v %v", rep.Mean, err)
	}
	boom := errors.New("down")
	if _, err := s.Evaluate(context.Background(), func(context.Context, string) ([]string, error) { return nil, boom }); !errors.Is(err, boom) || !strings.Contains(err.Error(), "q01") {
		t.Errorf("search error: %v", err)
	}
}
