// Package kgolden owns the golden relevance set of the knowledge tools
// and the rank metrics its gate is stated in:
// P@3, MRR, nDCG@5 and Recall@10 over a ranked list of document names.
// The data lives in testdata/knowledge/golden/ (docs/ holds the documents,
// queries.json the queries with graded documents: 3 perfect, 2 highly
// relevant, 1 marginal, unlisted 0).
//
//	set, err := kgolden.Load("testdata/knowledge/golden")
//	rep, err := set.Evaluate(ctx, func(ctx context.Context, q string) ([]string, error) {
//		return namesOfHits(search(ctx, q)), nil // document names, best first
//	})
//	if !rep.Meets(kgolden.Gate) { t.Errorf("%v", rep) }
package kgolden

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/contextd/contextd/cerrors"
)

// Document is one file of the set.
type Document struct {
	Name string // file name, e.g. "volcanoes.txt"
	Text string
}

// Query is one query with its graded documents.
type Query struct {
	ID     string         `json:"id"`
	Kind   string         `json:"kind"` // "quote" or "paraphrase"
	Query  string         `json:"query"`
	Grades map[string]int `json:"grades"`
}

// Set is the golden relevance set.
type Set struct {
	Documents []Document
	Queries   []Query
}

// Load reads dir/docs/* and dir/queries.json and checks that every graded
// document exists, grades are 1-3 and query ids are unique.
func Load(dir string) (*Set, error) {
	entries, err := os.ReadDir(filepath.Join(dir, "docs"))
	if err != nil {
		return nil, fmt.Errorf("golden set: %w", err)
	}
	s := &Set{}
	names := map[string]bool{}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, "docs", e.Name()))
		if err != nil {
			return nil, fmt.Errorf("golden set: %w", err)
		}
		s.Documents = append(s.Documents, Document{Name: e.Name(), Text: string(b)})
		names[e.Name()] = true
	}
	b, err := os.ReadFile(filepath.Join(dir, "queries.json"))
	if err != nil {
		return nil, fmt.Errorf("golden set: %w", err)
	}
	var file struct {
		Queries []Query `json:"queries"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		return nil, fmt.Errorf("%w: golden set queries.json: %v", cerrors.ErrMalformed, err)
	}
	ids := map[string]bool{}
	for _, q := range file.Queries {
		switch {
		case q.ID == "" || ids[q.ID]:
			return nil, fmt.Errorf("%w: golden set: query id %q missing or repeated", cerrors.ErrMalformed, q.ID)
		case strings.TrimSpace(q.Query) == "":
			return nil, fmt.Errorf("%w: golden set: query %s is empty", cerrors.ErrMalformed, q.ID)
		case len(q.Grades) == 0:
			return nil, fmt.Errorf("%w: golden set: query %s grades no document", cerrors.ErrMalformed, q.ID)
		}
		for d, g := range q.Grades {
			if !names[d] {
				return nil, fmt.Errorf("%w: golden set: query %s grades unknown document %q", cerrors.ErrMalformed, q.ID, d)
			}
			if g < 1 || g > 3 {
				return nil, fmt.Errorf("%w: golden set: query %s grades %q %d (want 1-3)", cerrors.ErrMalformed, q.ID, d, g)
			}
		}
		ids[q.ID] = true
		s.Queries = append(s.Queries, q)
	}
	return s, nil
}

// Scores are one query's metrics, or their means over a set.
type Scores struct {
	P3, MRR, NDCG5, R10 float64
}

func (s Scores) String() string {
	return fmt.Sprintf("P@3 %.3f  MRR %.3f  nDCG@5 %.3f  Recall@10 %.3f", s.P3, s.MRR, s.NDCG5, s.R10)
}

// Gate is the release minimum of the requirements (F).
var Gate = Scores{P3: 0.6, MRR: 0.7, NDCG5: 0.6, R10: 0.8}

// Meets reports whether every metric reaches the gate's.
func (s Scores) Meets(g Scores) bool {
	return s.P3 >= g.P3 && s.MRR >= g.MRR && s.NDCG5 >= g.NDCG5 && s.R10 >= g.R10
}

// Score computes the four metrics of one ranked list (document names,
// best first; repeats — several chunks of one document — count once, at
// their first position).
func Score(ranked []string, grades map[string]int) Scores {
	r := Dedupe(ranked)
	return Scores{P3: PrecisionAt(r, grades, 3), MRR: ReciprocalRank(r, grades), NDCG5: NDCGAt(r, grades, 5), R10: RecallAt(r, grades, 10)}
}

// Dedupe keeps the first occurrence of each name.
func Dedupe(ranked []string) []string {
	seen := map[string]bool{}
	out := make([]string, 0, len(ranked))
	for _, n := range ranked {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// PrecisionAt is the share of relevant (grade ≥ 1) documents among the
// first k, over min(k, number of relevant documents): a query with one
// relevant document scores 1 when it is in the top k, as a perfect
// ranking must (the plain /k form caps such a query at 1/k, which would
// make the gate of 0.6 unreachable by any engine).
func PrecisionAt(ranked []string, grades map[string]int, k int) float64 {
	rel := relevant(grades)
	if rel == 0 || k <= 0 {
		return 0
	}
	hits := 0
	for _, n := range ranked[:min(k, len(ranked))] {
		if grades[n] > 0 {
			hits++
		}
	}
	return float64(hits) / float64(min(k, rel))
}

// ReciprocalRank is 1/rank of the first relevant document, 0 if none.
func ReciprocalRank(ranked []string, grades map[string]int) float64 {
	for i, n := range ranked {
		if grades[n] > 0 {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// NDCGAt is DCG@k / ideal DCG@k with gain = grade and discount
// log2(rank+1) (requirements F: dcg = Σ_{i<5} rel_i / log2(i+2)).
func NDCGAt(ranked []string, grades map[string]int, k int) float64 {
	dcg := 0.0
	for i, n := range ranked[:min(k, len(ranked))] {
		dcg += float64(grades[n]) / math.Log2(float64(i+2))
	}
	ideal := make([]int, 0, len(grades))
	for _, g := range grades {
		ideal = append(ideal, g)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(ideal)))
	idcg := 0.0
	for i, g := range ideal[:min(k, len(ideal))] {
		idcg += float64(g) / math.Log2(float64(i+2))
	}
	if idcg == 0 {
		return 0
	}
	return dcg / idcg
}

// RecallAt is the share of relevant documents found in the first k.
func RecallAt(ranked []string, grades map[string]int, k int) float64 {
	rel := relevant(grades)
	if rel == 0 {
		return 0
	}
	hits := 0
	for _, n := range ranked[:min(k, len(ranked))] {
		if grades[n] > 0 {
			hits++
		}
	}
	return float64(hits) / float64(rel)
}

func relevant(grades map[string]int) int {
	n := 0
	for _, g := range grades {
		if g > 0 {
			n++
		}
	}
	return n
}

// Report holds per-query scores and their means.
type Report struct {
	Mean     Scores
	PerQuery map[string]Scores
}

// Meets reports whether the mean scores reach g.
func (r Report) Meets(g Scores) bool { return r.Mean.Meets(g) }

// Evaluate runs every query through search (which returns document names,
// best first) and averages the per-query metrics.
func (s *Set) Evaluate(ctx context.Context, search func(context.Context, string) ([]string, error)) (Report, error) {
	rep := Report{PerQuery: map[string]Scores{}}
	if len(s.Queries) == 0 {
		return rep, fmt.Errorf("%w: golden set has no queries", cerrors.ErrInvalid)
	}
	for _, q := range s.Queries {
		ranked, err := search(ctx, q.Query)
		if err != nil {
			return rep, fmt.Errorf("golden query %s: %w", q.ID, err)
		}
		sc := Score(ranked, q.Grades)
		rep.PerQuery[q.ID] = sc
		rep.Mean.P3 += sc.P3
		rep.Mean.MRR += sc.MRR
		rep.Mean.NDCG5 += sc.NDCG5
		rep.Mean.R10 += sc.R10
	}
	n := float64(len(s.Queries))
	rep.Mean = Scores{rep.Mean.P3 / n, rep.Mean.MRR / n, rep.Mean.NDCG5 / n, rep.Mean.R10 / n}
	return rep, nil
}
