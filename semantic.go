package contextd

import (
	"context"
	"fmt"
	"github.com/contextd/contextd/internal/search"
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
		ChunkSize: c.ChunkSize, ChunkOverlap: c.ChunkOverlap, Backend: c.Backend, FullTextBackend: search.FullTextBackend(e.cfg.FTS.Backend),
		Dir: dir, Reembed: c.Reembed, Progress: e.progress(), Compression: c.Compression,
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
		Model: e.EmbeddingModelName(), Stats: a.Stats, ClampedLimit: clamped, RankDepthLimit: depth,
		Error: a.Error, ValidationErrors: a.ValidationErrors}
	for i, h := range a.Hits {
		resp.Results[i] = SemanticResult{EntryView: e.entries().SearchView(p.ID, h.Entry, req.IncludeImages), Scores: h.Scores, Passage: h.Passage}
	}
	return resp, nil
}
