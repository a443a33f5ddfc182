package api

// RankDepthLimit says that a ranked page reached past the fixed candidate
// depth of a ranked search (100 candidates).
type RankDepthLimit struct {
	RequestedOffset int `json:"requested_offset"`
	RequestedLimit  int `json:"requested_limit"`
	RankDepth       int `json:"rank_depth"`
}

// FTSSearchRequest is the input of fts_search_context.
type FTSSearchRequest struct {
	SearchFilter
	Query         string `json:"query"`
	Mode          string `json:"mode,omitempty"`  // match (default), prefix, phrase, boolean
	Limit         int    `json:"limit,omitempty"` // 0 means the default (5)
	Offset        int    `json:"offset,omitempty"`
	Highlight     bool   `json:"highlight,omitempty"`
	IncludeImages bool   `json:"include_images,omitempty"`
	ExplainQuery  bool   `json:"explain_query,omitempty"`
}

// FTSScores are the scores of one full-text result: fts_score is BM25
// (higher is better); fts_rank is always null for a standalone search.
type FTSScores struct {
	FTSScore    float64  `json:"fts_score"`
	FTSRank     *int     `json:"fts_rank"`
	RerankScore *float64 `json:"rerank_score,omitempty"`
}

// FTSResult is one fts_search_context result.
type FTSResult struct {
	EntryView
	Scores      FTSScores `json:"scores"`
	Highlighted *string   `json:"highlighted,omitempty"`
	Passage     *Passage  `json:"passage,omitempty"`
}

// FTSSearchResponse is the result of fts_search_context. A filter or query
// that fails validation is not an error: Error and ValidationErrors say
// what was wrong.
type FTSSearchResponse struct {
	Query            string          `json:"query"`
	Mode             string          `json:"mode"`
	Results          []FTSResult     `json:"results"`
	Count            int             `json:"count"`
	Language         string          `json:"language"`
	Stats            *SearchStats    `json:"stats,omitempty"`
	ClampedLimit     *ClampedLimit   `json:"clamped_limit,omitempty"`
	RankDepthLimit   *RankDepthLimit `json:"rank_depth_limit,omitempty"`
	Error            string          `json:"error,omitempty"`
	ValidationErrors []string        `json:"validation_errors,omitempty"`
}

// FTSStatus is the fts block of get_statistics.
type FTSStatus struct {
	Enabled            bool    `json:"enabled"`
	Available          bool    `json:"available"`
	Language           string  `json:"language"`
	Backend            string  `json:"backend"`
	Engine             string  `json:"engine"`
	IndexedEntries     int     `json:"indexed_entries"`
	CoveragePercentage float64 `json:"coverage_percentage"`
	Message            string  `json:"message,omitempty"`
}

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
	Passage *Passage     `json:"passage,omitempty"`
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
	Passage *Passage       `json:"passage,omitempty"`
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

// Passage is the part of a ranked entry's text where the query matched,
// carried by the results of the ranked searches whose text_content is
// truncated (the key "passage", added to upstream's result keys, which
// are unchanged): text_content is then the start of the text, which for
// a whole file is usually its licence header, so the passage says why the
// entry ranked. A result whose text_content is the whole text has none:
// the passage would repeat it (on the bench's pages of short entries, a
// fifth of the answer's bytes, which an agent reads as tokens).
//
// It is the window of at most SEARCH_TRUNCATION_LENGTH code points
// holding the most distinct query words (in-process full text: the
// index's own matches, stemmed and case-folded), taken inside the best
// chunk of a semantic hit when that chunk holds as many; without a match
// it is the start of the best chunk (semantic search), else of the text.
// Start and End are code-point offsets into the entry's text, [Start,
// End); StartLine and EndLine the 1-based lines of its first and last
// code point.
type Passage struct {
	Text      string `json:"text"`
	Start     int    `json:"start"`
	End       int    `json:"end"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
}
