package contextd

import (
	"context"
	"strings"
	"time"

	"github.com/contextd/contextd/internal/rank"
	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/internal/retrieve"
)

// Hybrid search (C.8): the full-text and the semantic leg each rank
// 100·HYBRID_RRF_OVERFETCH candidates at offset 0, in parallel; reciprocal
// rank fusion keeps the best 100 (rrf DESC, id ASC), the reranker reorders
// them, and the page is cut from that one ordering (internal/rank). A
// failing leg leaves the other's results with a warning.

// HybridModes lists the search modes hybrid search can use, in order
// (fts, semantic), and why the others cannot run.
func (e *Engine) HybridModes() (modes, issues []string) {
	if e.fts == nil {
		issues = append(issues, "FTS: the engine is not open")
	} else if e.fts.Enabled() && e.fts.Unavailable() == "" {
		modes = append(modes, "fts")
	} else if e.fts.Unavailable() != "" {
		issues = append(issues, "FTS: "+e.fts.Unavailable())
	}
	switch {
	case e.SemanticAvailable():
		modes = append(modes, "semantic")
	case e.vec == nil:
		issues = append(issues, "Semantic: no embedding provider is configured (ENABLE_EMBEDDING_GENERATION=false)")
	case e.vec.Unavailable != "":
		issues = append(issues, "Semantic: "+e.vec.Unavailable)
	}
	return modes, issues
}

// HybridAvailable reports whether hybrid search is switched on
// (ENABLE_HYBRID_SEARCH is not false) and has at least one mode.
func (e *Engine) HybridAvailable() bool {
	if e.cfg.Hybrid.Disable {
		return false
	}
	modes, _ := e.HybridModes()
	return len(modes) > 0
}

// HybridSearch runs hybrid_search_context: the caller and the request
// are checked here, the search runs in package retrieve.
func (e *Engine) HybridSearch(ctx context.Context, req HybridSearchRequest) (*HybridSearchResponse, error) {
	start := time.Now()
	p, acc, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	// Both legs' indexes catch up from one change-log read (one round
	// trip fewer on PostgreSQL: TestPostgresStatementBudget).
	ctx = e.feed.SharedRead(ctx)
	hc := rank.Hybrid{RRFK: e.cfg.Hybrid.RRFK, Overfetch: e.cfg.Hybrid.Overfetch, ORThreshold: e.cfg.Hybrid.ORThreshold, SemanticWeight: e.cfg.Hybrid.SemanticWeight, Fusion: e.cfg.Hybrid.Fusion}.WithDefaults()
	if err := request.CheckQuery(req.Query); err != nil {
		return nil, err
	}
	method, k, err := request.Fusion(req.FusionMethod, req.RRFK, hc.Fusion, hc.RRFK)
	if err != nil {
		return nil, err
	}
	win, clamped, depth, err := rankedWindow(req.Limit, req.Offset, 5)
	if err != nil {
		return nil, err
	}
	modes, issues := e.HybridModes()
	if len(modes) == 0 {
		return nil, newErr(ErrUnavailable, "No search modes available. Issues: %s", strings.Join(issues, "; "))
	}
	f, problem, err := e.buildFilter(req.SearchFilter)
	if err != nil {
		return nil, err
	}
	a, err := e.searcher().Hybrid(ctx, acc, retrieve.HybridQuery{
		Text: req.Query, Filter: f, Problem: problem, Window: win, Config: hc, Method: method, K: k,
		Modes: modes, Images: req.IncludeImages, Explain: req.ExplainQuery, Start: start,
	})
	if err != nil {
		return nil, err
	}
	resp := &HybridSearchResponse{
		Query: req.Query, Results: make([]HybridResult, len(a.Hits)), Count: len(a.Hits), FusionMethod: method,
		SearchModesUsed: a.ModesUsed, FTSCount: a.FTSCount, SemanticCount: a.SemanticCount, Stats: a.Stats,
		ClampedLimit: clamped, RankDepthLimit: depth, Warnings: a.Warnings, Causes: a.Causes,
		Error: a.Error, ValidationErrors: a.ValidationErrors,
	}
	for i, h := range a.Hits {
		resp.Results[i] = HybridResult{EntryView: e.entries().SearchView(p.ID, h.Entry, req.IncludeImages), Scores: h.Scores, Passage: h.Passage}
	}
	return resp, nil
}

// searcher runs the ranked searches over the engine's store and legs.
func (e *Engine) searcher() *retrieve.Searcher {
	rc := e.cfg.Rerank
	s := &retrieve.Searcher{Store: e.st, FTS: e.fts, Embed: e.gen.EmbedQuery, Rerank: retrieve.Rerank{
		Reranker: rc.Reranker, MaxPassageChars: rc.MaxPassageChars, FTSWindow: rc.FTSWindow, FTSGapMerge: rc.FTSGapMerge,
	}, PassageChars: e.cfg.SearchTruncationLength}
	if e.vec != nil {
		s.Vectors, s.VectorBackend = e.vec.Vectors, e.vec.Backend
	}
	return s
}
