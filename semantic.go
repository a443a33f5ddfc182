package contextd

import (
	"context"
	"fmt"
	"time"

	"github.com/contextd/contextd/index/chunk"
	"github.com/contextd/contextd/internal/rank"
	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/internal/search"
	"github.com/contextd/contextd/model/builtin"
	"github.com/contextd/contextd/persist"
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
	win, clamped, depth, err := rankedWindow(req.Limit, req.Offset, 5)
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
		stats.FiltersApplied = f.Applied
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
		resp.Error, resp.ValidationErrors = problem.Message, problem.Errors
		finish()
		return resp, nil
	}
	if win.Empty() || request.BlankQuery(req.Query) {
		return resp, nil // no embedding, no search
	}
	if !e.SemanticAvailable() {
		return nil, e.semanticUnavailable()
	}
	began := time.Now()
	qv, err := e.gen.EmbedQuery(ctx, req.Query)
	if err != nil {
		return nil, newErr(ErrUnavailable, "Failed to generate embedding for query: %s", err)
	}
	stats.EmbeddingGenerationMS = roundMS(time.Since(began))
	hits, plan, err := e.semanticRank(ctx, acc, f, qv, rank.Depth, req.ExplainQuery)
	if err != nil {
		return nil, err
	}
	stats.CandidatesBeforeRerank = len(hits)
	if plan != "" {
		stats.QueryPlan = &plan
	}
	rb := time.Now()
	ranked, reranked, err := e.reranking(acc).Rerank(ctx, req.Query, rank.VectorRanking(vectorHits(hits)), e.texts(acc))
	if err != nil {
		return nil, fmt.Errorf("semantic search: %w", err)
	}
	stats.Reranked, stats.RerankMS = reranked, roundMS(time.Since(rb))
	page := rank.Cut(ranked, win)
	ents, err := e.loadRanked(ctx, acc, rank.IDs(page), req.IncludeImages)
	if err != nil {
		return nil, fmt.Errorf("semantic search: %w", err)
	}
	for _, r := range page {
		ent, ok := ents[r.ID]
		if !ok {
			continue // deleted since the ranking
		}
		res := SemanticResult{EntryView: e.searchView(p, ent, req.IncludeImages), Scores: SemanticScores{SemanticDistance: r.Vector.Distance}}
		if reranked {
			s := r.Rerank
			res.Scores.RerankScore = &s
		}
		resp.Results = append(resp.Results, res)
	}
	resp.Count = len(resp.Results)
	finish()
	return resp, nil
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

// reranking is the configured reranking of acc's ranked searches; the
// in-process index places the passages of hits that came without
// highlight. The built-in lexical reranker weighs query terms by the
// full-text backend's collection statistics, those of acc's readable set
// in-process (not of entries acc cannot read).
func (e *Engine) reranking(acc persist.Access) rank.Reranking {
	rc := e.cfg.Rerank
	r := rank.Reranking{Reranker: rc.Reranker, Passages: rank.Passages{MaxChars: rc.MaxPassageChars, Window: rc.FTSWindow, GapMerge: rc.FTSGapMerge}}
	if l, ok := rc.Reranker.(builtin.StatsReranker); ok && e.fts != nil {
		if s := e.fts.CollectionStats(acc); s != nil {
			r.Reranker = l.WithStats(s)
		}
	}
	if e.fts != nil && e.fts.Index() != nil {
		r.Passages.Matcher = e.fts.Index()
	}
	return r
}

// texts reads the texts of the entries acc may read.
func (e *Engine) texts(acc persist.Access) rank.Texts {
	return func(ctx context.Context, ids []string) (map[string]string, error) {
		return e.st.Texts(ctx, acc, ids)
	}
}

// textHits and vectorHits hand the legs' hits to internal/rank.
func textHits(hits []ftsHit) []rank.TextHit {
	out := make([]rank.TextHit, len(hits))
	for i, h := range hits {
		out[i] = rank.TextHit(h)
	}
	return out
}

func vectorHits(hits []vecHit) []rank.VectorHit {
	out := make([]rank.VectorHit, len(hits))
	for i, h := range hits {
		out[i] = rank.VectorHit(h)
	}
	return out
}
