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

// HybridSearchRequest is the input of hybrid_search_context.
type HybridSearchRequest struct {
	SearchFilter
	Query         string `json:"query"`
	Limit         int    `json:"limit,omitempty"`
	Offset        int    `json:"offset,omitempty"`
	FusionMethod  string `json:"fusion_method,omitempty"`
	RRFK          *int   `json:"rrf_k,omitempty"`
	IncludeImages bool   `json:"include_images,omitempty"`
	ExplainQuery  bool   `json:"explain_query,omitempty"`
}

// HybridScores are the scores of one hybrid result.
type HybridScores struct {
	RRF              float64  `json:"rrf"`
	FTSRank          *int     `json:"fts_rank"`
	SemanticRank     *int     `json:"semantic_rank"`
	FTSScore         *float64 `json:"fts_score"`
	SemanticDistance *float64 `json:"semantic_distance"`
	RerankScore      *float64 `json:"rerank_score"`
}

// HybridResult is one hybrid_search_context result.
type HybridResult struct {
	EntryView
	Scores  HybridScores `json:"scores"`
	Passage *Passage     `json:"passage"`
}

// FusionStats describe the fusion of the two legs.
type FusionStats struct {
	RRFK                  int `json:"rrf_k"`
	TotalUniqueDocuments  int `json:"total_unique_documents"`
	DocumentsInBoth       int `json:"documents_in_both"`
	DocumentsFTSOnly      int `json:"documents_fts_only"`
	DocumentsSemanticOnly int `json:"documents_semantic_only"`
}

// LegStats are the statistics of one hybrid leg.
type LegStats struct {
	ExecutionTimeMS       float64  `json:"execution_time_ms"`
	Candidates            int      `json:"candidates"`
	EmbeddingGenerationMS *float64 `json:"embedding_generation_ms,omitempty"`
	QueryPlan             *string  `json:"query_plan,omitempty"`
}

// HybridStats are the explain_query statistics of a hybrid search.
type HybridStats struct {
	ExecutionTimeMS  float64     `json:"execution_time_ms"`
	FTSStats         *LegStats   `json:"fts_stats"`
	SemanticStats    *LegStats   `json:"semantic_stats"`
	FusionStats      FusionStats `json:"fusion_stats"`
	AdaptiveFTSMode  string      `json:"adaptive_fts_mode,omitempty"`
	FiltersApplied   int         `json:"filters_applied"`
	Reranked         bool        `json:"reranked"`
	RerankMS         float64     `json:"rerank_ms"`
	Backend          string      `json:"backend"`
	RowsReturned     int         `json:"rows_returned"`
	CandidatesFused  int         `json:"candidates_fused"`
	SearchBackend    string      `json:"search_backend"`
	CandidateDepth   int         `json:"candidate_depth"`
	OverfetchPerLeg  int         `json:"overfetch_per_leg"`
	ORThreshold      int         `json:"fts_or_threshold"`
	SignificantTerms int         `json:"significant_terms"`
}

// HybridSearchResponse is the result of hybrid_search_context.
type HybridSearchResponse struct {
	Query           string          `json:"query"`
	Results         []HybridResult  `json:"results"`
	Count           int             `json:"count"`
	FusionMethod    string          `json:"fusion_method"`
	SearchModesUsed []string        `json:"search_modes_used"`
	FTSCount        int             `json:"fts_count"`
	SemanticCount   int             `json:"semantic_count"`
	Stats           *HybridStats    `json:"stats,omitempty"`
	ClampedLimit    *ClampedLimit   `json:"clamped_limit,omitempty"`
	RankDepthLimit  *RankDepthLimit `json:"rank_depth_limit,omitempty"`
	Warnings        []string        `json:"warnings,omitempty"`
	// Causes are the failures behind the warnings, for the server's log:
	// a warning shows a failure that is not the caller's fault only as a
	// generic text.
	Causes           []error  `json:"-"`
	Error            string   `json:"error,omitempty"`
	ValidationErrors []string `json:"validation_errors,omitempty"`
}

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
		SearchModesUsed: a.ModesUsed, FTSCount: a.FTSCount, SemanticCount: a.SemanticCount, Stats: hybridStats(a.Stats),
		ClampedLimit: clamped, RankDepthLimit: depth, Warnings: a.Warnings, Causes: a.Causes,
		Error: a.Error, ValidationErrors: a.ValidationErrors,
	}
	for i, h := range a.Hits {
		resp.Results[i] = HybridResult{EntryView: e.searchView(p, h.Entry, req.IncludeImages), Scores: HybridScores(h.Scores), Passage: passageOf(h.Passage)}
	}
	return resp, nil
}

// hybridStats are the explain statistics of package retrieve as the
// response reports them.
func hybridStats(s *retrieve.HybridStats) *HybridStats {
	if s == nil {
		return nil
	}
	return &HybridStats{
		ExecutionTimeMS: s.ExecutionTimeMS, FTSStats: (*LegStats)(s.FTSStats), SemanticStats: (*LegStats)(s.SemanticStats),
		FusionStats: FusionStats(s.FusionStats), AdaptiveFTSMode: s.AdaptiveFTSMode, FiltersApplied: s.FiltersApplied,
		Reranked: s.Reranked, RerankMS: s.RerankMS, Backend: s.Backend, RowsReturned: s.RowsReturned,
		CandidatesFused: s.CandidatesFused, SearchBackend: s.SearchBackend, CandidateDepth: s.CandidateDepth,
		OverfetchPerLeg: s.OverfetchPerLeg, ORThreshold: s.ORThreshold, SignificantTerms: s.SignificantTerms,
	}
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
