package contextd

import (
	"context"
	"fmt"
	"time"

	"github.com/contextd/contextd/index/chunk"
	"github.com/contextd/contextd/internal/retrieve"
	"github.com/contextd/contextd/internal/search"
)

// semantic is the engine's embedding and vector-search state.
type semantic struct {
	embedder Embedder
	backend  string
	// enabled is ENABLE_SEMANTIC_SEARCH != false with an embedder;
	// unavailable says why search cannot run ("" when it can).
	enabled     bool
	unavailable string
	vs          *search.Vectors // the vector leg
}

// openSemantic sets up embeddings and the configured vector backend.
func (e *Engine) openSemantic(ctx context.Context) error {
	c := e.cfg.Embedding
	switch c.EnableSemantic {
	case "", "auto", "true", "false":
	default:
		return invalidf("ENABLE_SEMANTIC_SEARCH must be auto, true or false, got %q", c.EnableSemantic)
	}
	if c.Embedder == nil {
		return nil
	}
	if !c.DisableChunking && (c.ChunkSize != 0 || c.ChunkOverlap != 0) {
		size := c.ChunkSize
		if size == 0 {
			size = chunk.DefaultSize
		}
		if err := chunk.Validate(size, c.ChunkOverlap, ""); err != nil {
			return invalidf("%s", err)
		}
	}
	sm := &semantic{embedder: c.Embedder, backend: c.Backend}
	e.vec = sm
	if sm.backend == "" {
		sm.backend = e.fts.Backend()
	}
	if sm.backend == "" {
		sm.backend = BackendInProcess
	}
	if c.Reembed {
		sm.unavailable = "Semantic search is off while the vectors are regenerated (contextd migrate reembed)"
		return nil
	}
	if err := e.gen.CheckModel(ctx, e.st); err != nil {
		return err
	}
	sm.enabled = c.EnableSemantic != "false"
	if !sm.enabled {
		sm.unavailable = "Semantic search is disabled (ENABLE_SEMANTIC_SEARCH=false)"
		return nil
	}
	if w, ok := c.Embedder.(interface{ Warm() }); ok {
		go w.Warm() // a local model loads beside the indexes
	}
	dir := c.IndexDir
	if dir == "" && e.indexPath != "" {
		dir = e.indexPath + ".vectors"
	}
	vs, err := search.OpenVectors(ctx, e.st, e.feed, search.VectorOptions{
		Backend: sm.backend, Dim: c.Embedder.Dim(), Dir: dir, Progress: e.cfg.FTS.Progress, Compression: c.Compression,
	})
	if err != nil {
		return err
	}
	sm.vs, sm.unavailable = vs, vs.Unavailable()
	return nil
}

// closeSemantic stops the vector index and writes its snapshot.
func (e *Engine) closeSemantic() error {
	if e.vec == nil || e.vec.vs == nil {
		return nil
	}
	err := e.vec.vs.Close()
	e.vec.vs = nil
	return err
}

// SemanticAvailable reports whether semantic search can run: an embedder
// is configured, ENABLE_SEMANTIC_SEARCH is not false, and a backend serves
// it.
func (e *Engine) SemanticAvailable() bool {
	return e.vec != nil && e.vec.enabled && e.vec.unavailable == ""
}

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
	if e.vec != nil && e.vec.unavailable != "" {
		msg += " " + e.vec.unavailable
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
