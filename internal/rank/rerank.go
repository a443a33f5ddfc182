package rank

import (
	"cmp"
	"context"
	"slices"

	"github.com/contextd/contextd/model"
)

// TextHit is one candidate of a full-text leg.
type TextHit struct {
	ID    string
	Score float64 // BM25, higher is better
	// Spans are the in-process highlight ranges; Highlighted is a native
	// engine's highlight.
	Spans       [][2]int
	Highlighted string
	// Terms are the in-process query's index terms: spans of a hit
	// searched without highlight are computed from its text when needed.
	Terms []string
	// Matched is how many of the distinct Terms the entry holds, for the
	// first EvidenceHits hits of an in-process leg.
	Matched int
}

// VectorHit is one candidate of a vector leg: its best chunk.
type VectorHit struct {
	ID         string
	Distance   float64 // Euclidean, lower is better
	Chunk      int
	Start, End int // the chunk's code points in the text
}

// Candidate is one entry of a ranking on its way to a page.
type Candidate struct {
	ID string
	// Text and Vector are the entry's hits in the legs (nil when a leg did
	// not find it); TextRank and VectorRank its 1-based ranks there (0 when
	// absent), set by Fuse.
	Text                 *TextHit
	Vector               *VectorHit
	TextRank, VectorRank int
	RRF                  float64
	// Rerank is the reranker's score in [0, 1], set when reranked.
	Rerank float64
}

// TextRanking is a full-text ranking as candidates pointing into hits.
func TextRanking(hits []TextHit) []Candidate {
	out := make([]Candidate, len(hits))
	for i := range hits {
		out[i] = Candidate{ID: hits[i].ID, Text: &hits[i]}
	}
	return out
}

// VectorRanking is a vector ranking as candidates pointing into hits.
func VectorRanking(hits []VectorHit) []Candidate {
	out := make([]Candidate, len(hits))
	for i := range hits {
		out[i] = Candidate{ID: hits[i].ID, Vector: &hits[i]}
	}
	return out
}

// IDs are the ids of cands, in order.
func IDs(cands []Candidate) []string {
	ids := make([]string, len(cands))
	for i, c := range cands {
		ids[i] = c.ID
	}
	return ids
}

// Reranker scores (query, passage) pairs: one score in [0, 1] per
// passage, higher is more relevant.
type Reranker interface {
	Rerank(ctx context.Context, query string, passages []string) ([]float64, error)
}

// Texts reads the texts of the readable entries among ids; an entry
// deleted since the ranking is missing from the map.
type Texts func(ctx context.Context, ids []string) (map[string]string, error)

// Reranking reorders a ranking by a reranker's scores (C.9). The zero value
// reranks nothing.
type Reranking struct {
	// Reranker scores the passages; nil disables reranking.
	Reranker Reranker
	// Passages choose what the reranker reads of each candidate.
	Passages Passages
}

// Rerank reranks cands when a reranker is configured: each candidate's
// passage is built from its text, candidates deleted since the ranking
// drop out, and the rest are ordered by rerank score (stable: ties keep
// the retrieval order). It returns the new ranking and whether it follows
// rerank scores; a failing reranker leaves the order alone and is
// not an error. cands itself is not reordered.
func (r Reranking) Rerank(ctx context.Context, query string, cands []Candidate, texts Texts) ([]Candidate, bool, error) {
	if r.Reranker == nil || len(cands) == 0 {
		return cands, false, nil
	}
	got, err := texts(ctx, IDs(cands))
	if err != nil {
		return nil, false, err
	}
	kept := make([]Candidate, 0, len(cands))
	passages := make([]string, 0, len(cands))
	for i := range cands {
		text, ok := got[cands[i].ID]
		if !ok {
			continue
		}
		passages = append(passages, r.Passages.For(&cands[i], text))
		kept = append(kept, cands[i])
	}
	if len(kept) == 0 {
		return kept, false, nil
	}
	scores, err := r.Reranker.Rerank(ctx, query, passages)
	if err != nil || len(scores) != len(kept) {
		return kept, false, nil
	}
	for i := range kept {
		kept[i].Rerank = model.ClampScore(scores[i]) // a NaN from a custom reranker is 0
	}
	slices.SortStableFunc(kept, func(a, b Candidate) int { return cmp.Compare(b.Rerank, a.Rerank) })
	return kept, true, nil
}
