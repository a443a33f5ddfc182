package contextd

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/contextd/contextd/index/chunk"
	"github.com/contextd/contextd/internal/search"
	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/rerank"
)

// semantic is the engine's embedding and vector-search state.
type semantic struct {
	embedder Embedder
	sem      chan struct{} // EMBEDDING_MAX_CONCURRENT
	store    persist.VectorStore
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
	n := c.MaxConcurrent
	if n <= 0 {
		n = 3
	}
	sm := &semantic{embedder: c.Embedder, sem: make(chan struct{}, n), backend: c.Backend}
	e.vec = sm
	if sm.backend == "" {
		sm.backend = e.fts.Backend()
	}
	if sm.backend == "" {
		sm.backend = BackendInProcess
	}
	sm.store = e.st
	if c.Reembed {
		sm.unavailable = "Semantic search is off while the vectors are regenerated (contextd reembed)"
		return nil
	}
	if err := e.checkEmbeddingModel(ctx); err != nil {
		return err
	}
	sm.enabled = c.EnableSemantic != "false"
	if !sm.enabled {
		sm.unavailable = "Semantic search is disabled (ENABLE_SEMANTIC_SEARCH=false)"
		return nil
	}
	dir := c.IndexDir
	if dir == "" && e.indexPath != "" {
		dir = e.indexPath + ".vectors"
	}
	vs, err := search.OpenVectors(ctx, e.st, e.feed, search.VectorOptions{
		Backend: sm.backend, Dim: c.Embedder.Dim(), Dir: dir, Progress: e.cfg.FTS.Progress,
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

// EmbeddingModelName is the configured embedding model ("" without one).
func (e *Engine) EmbeddingModelName() string {
	if em := e.embedder(); em != nil {
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
	Scores SemanticScores `json:"scores"`
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
// query, one ordering of at most 100 (reranked), cut to the page.
func (e *Engine) SemanticSearch(ctx context.Context, req SemanticSearchRequest) (*SemanticSearchResponse, error) {
	start := time.Now()
	p, acc, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	resp := &SemanticSearchResponse{Query: req.Query, Results: []SemanticResult{}, Model: e.EmbeddingModelName()}
	if req.Query == "" {
		return nil, invalidf("query must be at least 1 character")
	}
	limit, clamped, depth, err := rankedWindow(req.Limit, req.Offset, 5)
	if err != nil {
		return nil, err
	}
	resp.ClampedLimit, resp.RankDepthLimit = clamped, depth
	f, problem, err := e.buildFilter(req.SearchFilter)
	if err != nil {
		return nil, err
	}
	stats := &SemanticStats{Backend: e.st.Backend()}
	if e.vec != nil {
		stats.SearchBackend = e.vec.backend
	}
	if f != nil {
		stats.FiltersApplied = f.applied
	}
	finish := func() {
		if req.ExplainQuery {
			stats.ExecutionTimeMS = roundMS(time.Since(start))
			stats.RowsReturned = resp.Count
			resp.Stats = stats
		}
	}
	if problem != nil {
		// Rejected before the query is embedded.
		resp.Error, resp.ValidationErrors = problem.error, problem.errors
		finish()
		return resp, nil
	}
	if req.Offset >= rankDepth {
		return resp, nil // no embedding, no search
	}
	if !e.SemanticAvailable() {
		return nil, e.semanticUnavailable()
	}
	began := time.Now()
	qv, err := e.embedQuery(ctx, req.Query)
	if err != nil {
		return nil, newErr(ErrUnavailable, "Failed to generate embedding for query: %s", err)
	}
	stats.EmbeddingGenerationMS = roundMS(time.Since(began))
	hits, plan, err := e.semanticRank(ctx, acc, f, qv, rankDepth, req.ExplainQuery)
	if err != nil {
		return nil, err
	}
	stats.CandidatesBeforeRerank = len(hits)
	if plan != "" {
		stats.QueryPlan = &plan
	}
	ranked := make([]rankedEntry, len(hits))
	for i, h := range hits {
		ranked[i] = rankedEntry{id: h.ID, vec: h}
	}
	rb := time.Now()
	ranked, reranked, err := e.rerankCandidates(ctx, acc, req.Query, ranked, func(r *rankedEntry, text string) string {
		return chunkPassage(text, r.vec.Start, r.vec.End, e.maxPassage())
	})
	if err != nil {
		return nil, fmt.Errorf("semantic search: %w", err)
	}
	stats.Reranked, stats.RerankMS = reranked, roundMS(time.Since(rb))
	page := window(ranked, req.Offset, limit)
	ents, err := e.loadRanked(ctx, acc, rankedIDs(page), req.IncludeImages)
	if err != nil {
		return nil, fmt.Errorf("semantic search: %w", err)
	}
	for _, r := range page {
		ent, ok := ents[r.id]
		if !ok {
			continue // deleted since the ranking
		}
		res := SemanticResult{EntryView: e.searchView(p, ent, req.IncludeImages), Scores: SemanticScores{SemanticDistance: r.vec.Distance}}
		if reranked {
			s := r.rerank
			res.Scores.RerankScore = &s
		}
		resp.Results = append(resp.Results, res)
	}
	resp.Count = len(resp.Results)
	finish()
	return resp, nil
}

// window cuts the page [offset, offset+limit) out of a ranking.
func window[T any](s []T, offset, limit int) []T {
	if offset >= len(s) {
		return nil
	}
	return s[offset:min(offset+limit, len(s))]
}

func rankedIDs(rs []rankedEntry) []string {
	ids := make([]string, len(rs))
	for i, r := range rs {
		ids[i] = r.id
	}
	return ids
}

// rerankCandidates reranks a ranking when a reranker is configured: each
// candidate's passage is built from its text by passage, and candidates
// deleted since the ranking drop out. It returns the new ranking and
// whether it follows rerank scores.
func (e *Engine) rerankCandidates(ctx context.Context, acc persist.Access, query string, ranked []rankedEntry, passage func(r *rankedEntry, text string) string) ([]rankedEntry, bool, error) {
	if e.cfg.Rerank.Reranker == nil || len(ranked) == 0 {
		return ranked, false, nil
	}
	texts, err := e.st.Texts(ctx, acc, rankedIDs(ranked))
	if err != nil {
		return nil, false, err
	}
	kept := make([]rankedEntry, 0, len(ranked))
	for i := range ranked {
		text, ok := texts[ranked[i].id]
		if !ok {
			continue
		}
		ranked[i].passage = passage(&ranked[i], text)
		kept = append(kept, ranked[i])
	}
	return kept, e.rerank(ctx, query, kept), nil
}

// loadRanked reads the readable entries among ids.
func (e *Engine) loadRanked(ctx context.Context, acc persist.Access, ids []string, images bool) (map[string]*persist.Entry, error) {
	ents, err := e.st.Get(ctx, acc, ids, persist.GetOptions{Images: images})
	if err != nil {
		return nil, err
	}
	out := make(map[string]*persist.Entry, len(ents))
	for i := range ents {
		out[ents[i].ID] = &ents[i]
	}
	return out, nil
}

// vecHit is one entry of a vector ranking: its best chunk.
type vecHit = search.VectorHit

// semanticRank computes the one ordering of at most depth entries nearest
// to qv among the readable entries that pass f.
func (e *Engine) semanticRank(ctx context.Context, acc persist.Access, f *builtFilter, qv []float32, depth int, explain bool) ([]vecHit, string, error) {
	return e.vec.vs.Rank(ctx, acc, search.VectorQuery{Filter: f.Filter, Vector: qv, Depth: depth, Explain: explain})
}

// rankedEntry is one candidate of a ranked search on its way to a page.
type rankedEntry struct {
	id      string
	passage string
	vec     vecHit
	rerank  float64
	// hybrid fields
	fts  *ftsHit
	rrf  float64
	fr   int // fts rank (1-based), 0 when absent
	sr   int // semantic rank (1-based), 0 when absent
	inFT bool
	inSM bool
}

// rerank reorders ranked by the reranker's score (stable: ties keep the
// retrieval order). It reports whether reranking happened; a failing
// reranker leaves the order alone.
func (e *Engine) rerank(ctx context.Context, query string, ranked []rankedEntry) bool {
	rr := e.cfg.Rerank.Reranker
	if rr == nil || len(ranked) == 0 {
		return false
	}
	passages := make([]string, len(ranked))
	for i, r := range ranked {
		passages[i] = r.passage
	}
	scores, err := rr.Rerank(ctx, query, passages)
	if err != nil || len(scores) != len(ranked) {
		return false
	}
	for i := range ranked {
		ranked[i].rerank = min(1, max(0, scores[i]))
	}
	slices.SortStableFunc(ranked, func(a, b rankedEntry) int {
		switch {
		case a.rerank > b.rerank:
			return -1
		case a.rerank < b.rerank:
			return 1
		}
		return 0
	})
	return true
}

// maxPassage is the longest reranker passage in code points.
func (e *Engine) maxPassage() int {
	if n := e.cfg.Rerank.MaxPassageChars; n > 0 {
		return n
	}
	return 512 * 4 * 95 / 100
}

// chunkPassage is the matched chunk's text capped at max code points; the
// start of the text when the span is unusable.
func chunkPassage(text string, start, end, max int) string {
	return rerank.ChunkPassage(text, start, end, max)
}

// rerankFTS reranks a full-text ranking; the scores are keyed by id. A
// reranker failure keeps the BM25 order.
func (e *Engine) rerankFTS(ctx context.Context, acc persist.Access, query string, hits []ftsHit) ([]ftsHit, map[string]float64, error) {
	ranked := make([]rankedEntry, len(hits))
	for i := range hits {
		ranked[i] = rankedEntry{id: hits[i].ID, fts: &hits[i]}
	}
	ranked, ok, err := e.rerankCandidates(ctx, acc, query, ranked, func(r *rankedEntry, text string) string {
		return e.ftsPassage(text, r.fts)
	})
	if err != nil || !ok {
		return hits, nil, err
	}
	out := make([]ftsHit, 0, len(ranked))
	scores := make(map[string]float64, len(ranked))
	for _, r := range ranked {
		out = append(out, *r.fts)
		scores[r.id] = r.rerank
	}
	return out, scores, nil
}
