package retrieve

import (
	"context"
	"fmt"
	"github.com/contextd/contextd/api"

	"github.com/contextd/contextd/index"
	"github.com/contextd/contextd/internal/rank"
	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/internal/search"
	"github.com/contextd/contextd/persist"
)

// FullTextQuery is a validated fts_search_context request that runs.
type FullTextQuery struct {
	Text, Mode      string
	Filter          *request.Filter
	Window          rank.Window
	Highlight       bool // the caller asked for highlighted text
	Images, Explain bool
}

// FTSScores are the scores of one full-text result: BM25 (higher is
// better), fts_rank (always nil in a standalone search) and the rerank
// score when reranked.
type FTSScores = api.FTSScores

// FullTextMarks are a full-text result's scores and, when asked for, its
// highlighted text.
type FullTextMarks struct {
	Scores      FTSScores
	Highlighted *string
}

// FullTextAnswer is a full-text search's page and its query plan.
type FullTextAnswer struct {
	Hits []Hit[FullTextMarks]
	Plan string
}

// FullText runs fts_search_context as acc: one BM25 ordering of at most
// rank.Depth readable entries that pass the filter, reranked as a whole
// when a reranker is configured, cut to the page.
func (s *Searcher) FullText(ctx context.Context, acc persist.Access, q FullTextQuery) (*FullTextAnswer, error) {
	reranking := s.Rerank.Reranker != nil
	// The in-process index computes reranker passages from the hits' text;
	// a native engine's own highlight places them when it has one.
	highlight := q.Highlight || reranking && s.FTS.NativeHighlights()
	hits, plan, err := s.FTS.Rank(ctx, acc, search.FullTextQuery{
		Filter: q.Filter.Filter, Text: q.Text, Mode: q.Mode, Depth: rank.Depth, Highlight: highlight, Explain: q.Explain,
	})
	if err != nil {
		return nil, err
	}
	ranked, reranked := rank.TextRanking(textHits(hits)), false
	if reranking {
		// The whole window of 100 is reranked before the page is cut
		// (C.4, C.9): passages are windows around the matches. A reranker
		// failure keeps the BM25 order.
		rr, ok, err := s.reranking(acc).Rerank(ctx, q.Text, ranked, s.texts(acc))
		if err != nil {
			return nil, err
		}
		if ok {
			ranked, reranked = rr, true
		}
	}
	out, err := hydrate(ctx, s, acc, rank.Cut(ranked, q.Window), q.Images, nil, func(ent *persist.Entry, c rank.Candidate) FullTextMarks {
		return fullTextMarks(ent, c, reranked, q.Highlight)
	})
	if err != nil {
		return nil, fmt.Errorf("fts search: %w", err)
	}
	return &FullTextAnswer{Hits: out, Plan: plan}, nil
}

// fullTextMarks are a ranked entry's scores and highlight.
func fullTextMarks(ent *persist.Entry, c rank.Candidate, reranked, highlight bool) FullTextMarks {
	h := c.Text
	m := FullTextMarks{Scores: FTSScores{FTSScore: h.Score}}
	if reranked {
		s := c.Rerank
		m.Scores.RerankScore = &s
	}
	if highlight {
		hl := h.Highlighted
		if h.Spans != nil || hl == "" {
			hl = index.Highlight(ent.Text, h.Spans)
		}
		m.Highlighted = &hl
	}
	return m
}
