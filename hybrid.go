package contextd

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	cerrors "github.com/contextd/contextd/errors"
	"github.com/contextd/contextd/internal/rank"
	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/internal/search"
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
	Scores HybridScores `json:"scores"`
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
	case e.vec.unavailable != "":
		issues = append(issues, "Semantic: "+e.vec.unavailable)
	}
	return modes, issues
}

// HybridAvailable reports whether hybrid search is switched on
// (ENABLE_HYBRID_SEARCH is not false) and has at least one mode.
func (e *Engine) HybridAvailable() bool {
	if e.cfg.Hybrid.Enable == "false" {
		return false
	}
	modes, _ := e.HybridModes()
	return len(modes) > 0
}

// HybridSearch runs hybrid_search_context.
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
	resp := &HybridSearchResponse{Query: req.Query, Results: []HybridResult{}, FusionMethod: method, SearchModesUsed: []string{}}
	win, clamped, depth, err := rankedWindow(req.Limit, req.Offset, 5)
	if err != nil {
		return nil, err
	}
	resp.ClampedLimit, resp.RankDepthLimit = clamped, depth
	modes, issues := e.HybridModes()
	if len(modes) == 0 {
		return nil, newErr(ErrUnavailable, "No search modes available. Issues: %s", strings.Join(issues, "; "))
	}
	f, problem, err := e.buildFilter(req.SearchFilter)
	if err != nil {
		return nil, err
	}
	if problem != nil {
		// Every available leg fails the same validation.
		parts := make([]string, len(modes))
		for i, m := range modes {
			parts[i] = legName(m) + ": " + problem.Message
		}
		resp.Error = "All available search modes failed. " + request.JoinSentences(parts)
		resp.ValidationErrors = slices.Compact(slices.Clone(problem.Errors))
		return resp, nil
	}
	// A query full-text search cannot parse fails the FTS leg's validation
	// alone: the semantic leg still runs.
	if qp := request.FullTextQueryProblem(req.Query); qp != nil && slices.Contains(modes, "fts") {
		modes = slices.DeleteFunc(modes, func(m string) bool { return m == "fts" })
		resp.ValidationErrors = qp.Errors
		if len(modes) == 0 {
			resp.Error = "All available search modes failed. FTS: " + qp.Message
			return resp, nil
		}
		resp.Warnings = append(resp.Warnings, "FTS sub-search failed; results may be based on semantic search only. FTS: "+qp.Message)
	}
	if win.Empty() || request.BlankQuery(req.Query) {
		return resp, nil // answered from the arguments alone
	}
	legDepth := hc.LegDepth()
	ftsQuery, ftsMode, significant := rank.AdaptiveQuery(req.Query, hc.ORThreshold)
	// Native full-text hits take reranker passages from the engine's own
	// highlight; in-process ones compute them from the text.
	highlight := e.cfg.Rerank.Reranker != nil && e.fts.NativeHighlights()

	legs := search.Legs{FullText: e.fts}
	if slices.Contains(modes, "fts") {
		legs.Text = &search.FullTextQuery{Filter: f.Filter, Text: ftsQuery, Mode: ftsMode, Depth: legDepth, Highlight: highlight, Explain: req.ExplainQuery}
	}
	if slices.Contains(modes, "semantic") {
		legs.Vectors, legs.Vector = e.vec.vs, &search.VectorQuery{Filter: f.Filter, Depth: legDepth, Explain: req.ExplainQuery}
		legs.Embed = func(ctx context.Context) ([]float32, error) { return e.gen.EmbedQuery(ctx, req.Query) }
	}
	lr := legs.Run(ctx, acc)
	ftsHits, semHits, ftsErr, semErr := lr.Text, lr.Vectors, lr.TextLeg.Err, lr.VectorLeg.Err
	ftsStats, semStats := legStats(lr.TextLeg, len(ftsHits)), legStats(lr.VectorLeg, len(semHits))
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var used []string
	if slices.Contains(modes, "fts") {
		if ftsErr != nil {
			resp.Warnings = append(resp.Warnings, "FTS sub-search failed; results may be based on semantic search only. FTS: "+publicMessage(ftsErr))
			resp.Causes = append(resp.Causes, ftsErr)
		} else {
			used = append(used, "fts")
		}
	}
	if slices.Contains(modes, "semantic") {
		if semErr != nil {
			resp.Warnings = append(resp.Warnings, "Semantic sub-search failed; results may be based on FTS only. Semantic: "+publicMessage(semErr))
			resp.Causes = append(resp.Causes, semErr)
		} else {
			used = append(used, "semantic")
		}
	}
	if len(used) == 0 {
		var parts []string
		if resp.ValidationErrors != nil {
			parts = append(parts, "FTS: FTS query validation failed")
		}
		if ftsErr != nil {
			parts = append(parts, "FTS: "+publicMessage(ftsErr))
		}
		if semErr != nil {
			parts = append(parts, "Semantic: "+publicMessage(semErr))
		}
		return nil, newErr(ErrUnavailable, "All available search modes failed. %s", request.JoinSentences(parts))
	}
	resp.SearchModesUsed = used
	resp.FTSCount, resp.SemanticCount = len(ftsHits), len(semHits)

	fused, fs := hc.Fuse(method, k, textHits(ftsHits), vectorHits(semHits))
	rb := time.Now()
	ranked, reranked, err := e.reranking(acc).Rerank(ctx, req.Query, fused, e.texts(acc))
	if err != nil {
		return nil, fmt.Errorf("hybrid search: %w", err)
	}
	rerankMS := roundMS(time.Since(rb))
	page := rank.Cut(ranked, win)
	ents, err := e.loadRanked(ctx, acc, rank.IDs(page), req.IncludeImages)
	if err != nil {
		return nil, fmt.Errorf("hybrid search: %w", err)
	}
	for _, r := range page {
		ent, ok := ents[r.ID]
		if !ok {
			continue // deleted since the ranking
		}
		res := HybridResult{EntryView: e.searchView(p, ent, req.IncludeImages), Scores: HybridScores{RRF: r.RRF}}
		if r.Text != nil {
			fr, sc := r.TextRank, r.Text.Score
			res.Scores.FTSRank, res.Scores.FTSScore = &fr, &sc
		}
		if r.Vector != nil {
			sr, d := r.VectorRank, r.Vector.Distance
			res.Scores.SemanticRank, res.Scores.SemanticDistance = &sr, &d
		}
		if reranked {
			s := r.Rerank
			res.Scores.RerankScore = &s
		}
		resp.Results = append(resp.Results, res)
	}
	resp.Count = len(resp.Results)
	if req.ExplainQuery {
		st := &HybridStats{
			ExecutionTimeMS: roundMS(time.Since(start)), FusionStats: FusionStats(fs), FiltersApplied: f.Applied,
			Reranked: reranked, RerankMS: rerankMS, Backend: e.st.Backend(), RowsReturned: resp.Count,
			CandidatesFused: len(fused), CandidateDepth: rank.Depth, OverfetchPerLeg: legDepth,
			ORThreshold: hc.ORThreshold, SignificantTerms: significant,
		}
		if slices.Contains(modes, "fts") {
			st.FTSStats, st.AdaptiveFTSMode = &ftsStats, ftsMode
		}
		if slices.Contains(modes, "semantic") {
			st.SemanticStats = &semStats
		}
		if e.vec != nil {
			st.SearchBackend = e.vec.backend
		} else {
			st.SearchBackend = e.fts.Backend()
		}
		resp.Stats = st
	}
	return resp, nil
}

// legStats reports one leg in the explain statistics.
func legStats(l search.Leg, candidates int) LegStats {
	if l.Err != nil && l.Elapsed == 0 {
		return LegStats{} // failed before it searched
	}
	st := LegStats{ExecutionTimeMS: roundMS(l.Elapsed), Candidates: candidates}
	if l.Embedded {
		em := roundMS(l.Embed)
		st.EmbeddingGenerationMS = &em
	}
	if l.Plan != "" {
		st.QueryPlan = &l.Plan
	}
	return st
}

func legName(mode string) string {
	if mode == "fts" {
		return "FTS"
	}
	return "Semantic"
}

// publicMessage is what a warning says of a failed leg: the message of an
// engine error; anything else (a driver's or a package's text) is not for
// the caller, who learns only that something unexpected failed.
func publicMessage(err error) string {
	var ee *Error
	switch {
	case errors.As(err, &ee):
		return ee.Msg
	case errors.Is(err, context.Canceled):
		return "the request was cancelled"
	case errors.Is(err, context.DeadlineExceeded):
		return "the request timed out"
	case errors.Is(err, ErrDatabaseUnavailable):
		return cerrors.UnavailableText
	}
	return cerrors.UnexpectedText
}
