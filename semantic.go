package contextd

import (
	"context"
	"fmt"
	"time"

	"github.com/contextd/contextd/internal/retrieve"
)

// openSemantic sets up embeddings and the configured vector backend
// (package retrieve).
func (e *Engine) openSemantic(ctx context.Context) error {
	c := e.cfg.Embedding
	dir := c.IndexDir
	if dir == "" && e.indexPath != "" {
		dir = e.indexPath + ".vectors"
	}
	sm, err := retrieve.OpenSemantic(ctx, e.st, e.feed, retrieve.SemanticOptions{
		Embedder: c.Embedder, DisableSemantic: c.DisableSemantic, DisableChunking: c.DisableChunking,
		ChunkSize: c.ChunkSize, ChunkOverlap: c.ChunkOverlap, Backend: c.Backend, FullTextBackend: e.fts.Backend(),
		Dir: dir, Reembed: c.Reembed, Progress: e.cfg.FTS.Progress, Compression: c.Compression,
		CheckModel: func(ctx context.Context) error { return e.gen.CheckModel(ctx, e.st) },
	})
	e.vec = sm
	return err
}

// SemanticAvailable reports whether semantic search can run: an embedder
// is configured, ENABLE_SEMANTIC_SEARCH is not false, and a backend serves
// it.
func (e *Engine) SemanticAvailable() bool { return e.vec.Available() }

// Embedder is the configured embedder (nil without one); the knowledge
// tools embed their chunks with it.
func (e *Engine) Embedder() Embedder { return e.gen.Embedder() }

// EmbeddingModelName is the configured embedding model ("" without one).
func (e *Engine) EmbeddingModelName() string {
	if em := e.gen.Embedder(); em != nil {
		return em.Model()
	}
	return ""
}

// SemanticSearchRequest is the input of semantic_search_context.
type SemanticSearchRequest struct {
	SearchFilter
	Query         string `json:"query"`
	Limit         int    `json:"limit,omitempty"`
	Offset        int    `json:"offset,omitempty"`
	IncludeImages bool   `json:"include_images,omitempty"`
	ExplainQuery  bool   `json:"explain_query,omitempty"`
}

// SemanticScores are the scores of one semantic result: the Euclidean
// distance of the best chunk (lower is better); semantic_rank is always
// null for a standalone search; rerank_score is present when reranked.
type SemanticScores struct {
	SemanticDistance float64  `json:"semantic_distance"`
	SemanticRank     *int     `json:"semantic_rank"`
	RerankScore      *float64 `json:"rerank_score,omitempty"`
}

// SemanticResult is one semantic_search_context result.
type SemanticResult struct {
	EntryView
	Scores  SemanticScores `json:"scores"`
	Passage *Passage       `json:"passage"`
}

// SemanticStats are the explain_query statistics of a semantic search.
type SemanticStats struct {
	ExecutionTimeMS        float64 `json:"execution_time_ms"`
	EmbeddingGenerationMS  float64 `json:"embedding_generation_ms"`
	FiltersApplied         int     `json:"filters_applied"`
	RowsReturned           int     `json:"rows_returned"`
	Backend                string  `json:"backend"`
	SearchBackend          string  `json:"search_backend"`
	Reranked               bool    `json:"reranked"`
	RerankMS               float64 `json:"rerank_ms"`
	QueryPlan              *string `json:"query_plan"`
	CandidatesBeforeRerank int     `json:"candidates_before_rerank"`
}

// SemanticSearchResponse is the result of semantic_search_context.
type SemanticSearchResponse struct {
	Query            string           `json:"query"`
	Results          []SemanticResult `json:"results"`
	Count            int              `json:"count"`
	Model            string           `json:"model"`
	Stats            *SemanticStats   `json:"stats,omitempty"`
	ClampedLimit     *ClampedLimit    `json:"clamped_limit,omitempty"`
	RankDepthLimit   *RankDepthLimit  `json:"rank_depth_limit,omitempty"`
	Error            string           `json:"error,omitempty"`
	ValidationErrors []string         `json:"validation_errors,omitempty"`
}

// semanticUnavailable is the error of a semantic search that cannot
// run.
func (e *Engine) semanticUnavailable() error {
	provider := e.cfg.Embedding.Provider
	if provider == "" {
		provider = "builtin"
	}
	msg := fmt.Sprintf("Semantic search is not available. Ensure ENABLE_SEMANTIC_SEARCH=true and %s provider is properly configured. Install provider: the %s embedding provider is configured with EMBEDDING_PROVIDER (builtin needs nothing).", provider, provider)
	if e.vec != nil && e.vec.Unavailable != "" {
		msg += " " + e.vec.Unavailable
	}
	return newErr(ErrUnavailable, "%s", msg)
}

// SemanticSearch runs semantic_search_context: the readable entries that
// pass every filter, ranked by the distance of their best chunk to the
// query, one ordering of at most 100 (reranked), cut to the page. The
// caller and the request are checked here, the search runs in package
// retrieve.
func (e *Engine) SemanticSearch(ctx context.Context, req SemanticSearchRequest) (*SemanticSearchResponse, error) {
	start := time.Now()
	p, acc, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	if req.Query == "" {
		return nil, invalidf("query must be at least 1 character")
	}
	win, clamped, depth, err := rankedWindow(req.Limit, req.Offset, 5)
	if err != nil {
		return nil, err
	}
	f, problem, err := e.buildFilter(req.SearchFilter)
	if err != nil {
		return nil, err
	}
	q := retrieve.SemanticQuery{Text: req.Query, Filter: f, Problem: problem, Window: win,
		Images: req.IncludeImages, Explain: req.ExplainQuery, Start: start}
	if !e.SemanticAvailable() {
		q.Unavailable = e.semanticUnavailable()
	}
	a, err := e.searcher().Semantic(ctx, acc, q)
	if err != nil {
		return nil, err
	}
	resp := &SemanticSearchResponse{Query: req.Query, Results: make([]SemanticResult, len(a.Hits)), Count: len(a.Hits),
		Model: e.EmbeddingModelName(), Stats: (*SemanticStats)(a.Stats), ClampedLimit: clamped, RankDepthLimit: depth,
		Error: a.Error, ValidationErrors: a.ValidationErrors}
	for i, h := range a.Hits {
		resp.Results[i] = SemanticResult{EntryView: e.searchView(p, h.Entry, req.IncludeImages), Scores: SemanticScores(h.Scores), Passage: passageOf(h.Passage)}
	}
	return resp, nil
}
