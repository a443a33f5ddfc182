package retrieve

import (
	"context"
	"fmt"
	"github.com/contextd/contextd/api"
	"time"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/internal/rank"
	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/internal/search"
	"github.com/contextd/contextd/persist"
)

// SemanticQuery is a validated semantic_search_context request.
type SemanticQuery struct {
	Text   string
	Filter *request.Filter
	// Problem is the filter's validation failure, reported in the answer
	// before the query is embedded.
	Problem *request.Problem
	Window  rank.Window
	// Unavailable is the error of a search that cannot run, nil when it
	// can; it is returned once the request needs a search.
	Unavailable     error
	Images, Explain bool
	Start           time.Time // when the request arrived, for execution_time_ms
}

// SemanticScores are the scores of one semantic result: the Euclidean
// distance of the best chunk (lower is better), semantic_rank (always nil
// in a standalone search) and the rerank score when reranked.
type SemanticScores = api.SemanticScores

// SemanticStats are the explain_query statistics of a semantic search.
type SemanticStats = api.SemanticStats

// SemanticAnswer is a semantic search's page. A filter that fails
// validation is not an error: Error and ValidationErrors say what was
// wrong.
type SemanticAnswer struct {
	Hits             []Hit[SemanticScores]
	Stats            *SemanticStats // with Explain only
	Error            string
	ValidationErrors []string
}

// Semantic runs semantic_search_context as acc: the readable entries that
// pass the filter, ranked by the distance of their best chunk to the
// query, one ordering of at most rank.Depth (reranked), cut to the page.
func (s *Searcher) Semantic(ctx context.Context, acc persist.Access, q SemanticQuery) (*SemanticAnswer, error) {
	a := &SemanticAnswer{}
	stats := &SemanticStats{Backend: s.Store.Backend(), SearchBackend: s.VectorBackend}
	if q.Filter != nil {
		stats.FiltersApplied = q.Filter.Applied
	}
	if q.Problem != nil {
		a.Error, a.ValidationErrors = q.Problem.Message, q.Problem.Errors
		a.finish(q, stats)
		return a, nil
	}
	if q.Window.Empty() || request.BlankQuery(q.Text) {
		return a, nil // no embedding, no search
	}
	if q.Unavailable != nil {
		return nil, q.Unavailable
	}
	began := time.Now()
	qv, err := s.Embed(ctx, q.Text)
	if err != nil {
		return nil, cerrors.New(cerrors.ErrUnavailable, "Failed to generate embedding for query: %s", err)
	}
	stats.EmbeddingGenerationMS = MS(time.Since(began))
	hits, plan, err := s.Vectors.Rank(ctx, acc, search.VectorQuery{Filter: q.Filter.Filter, Vector: qv, Depth: rank.Depth, Explain: q.Explain})
	if err != nil {
		return nil, err
	}
	stats.CandidatesBeforeRerank = len(hits)
	if plan != "" {
		stats.QueryPlan = &plan
	}
	rb := time.Now()
	ranked, reranked, err := s.reranking(acc).Rerank(ctx, q.Text, rank.VectorRanking(vectorHits(hits)), s.texts(acc))
	if err != nil {
		return nil, fmt.Errorf("semantic search: %w", err)
	}
	stats.Reranked, stats.RerankMS = reranked, MS(time.Since(rb))
	a.Hits, err = hydrate(ctx, s, acc, rank.Cut(ranked, q.Window), q.Images, nil, func(_ *persist.Entry, c rank.Candidate) SemanticScores {
		sc := SemanticScores{SemanticDistance: c.Vector.Distance}
		if reranked {
			r := c.Rerank
			sc.RerankScore = &r
		}
		return sc
	})
	if err != nil {
		return nil, fmt.Errorf("semantic search: %w", err)
	}
	a.finish(q, stats)
	return a, nil
}

// finish sets the statistics of an explained search.
func (a *SemanticAnswer) finish(q SemanticQuery, stats *SemanticStats) {
	if q.Explain {
		stats.ExecutionTimeMS = MS(time.Since(q.Start))
		stats.RowsReturned = len(a.Hits)
		a.Stats = stats
	}
}
