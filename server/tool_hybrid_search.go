package server

import (
	"context"

	"github.com/contextd/contextd"
)

// hybridSearchContextTool declares hybrid_search_context.
func hybridSearchContextTool() *toolDef {
	params := []param{
		{name: "query", typ: tString, required: true, minLength: 1, maxLength: 10000,
			desc: "Natural-language search query, 1 to 10,000 characters."},
		{name: "limit", typ: tInteger, min: i64(1), def: 5,
			desc: "Maximum number of results, 1 to 100 (default 5). A larger value is lowered to 100 and reported in clamped_limit."},
		{name: "offset", typ: tInteger, min: i64(0), max: i64(1000000), def: 0,
			desc: "Pagination offset into the one fused ranking of the best 100 entries (default 0). A page reaching past 100 is served short and a page starting at 100 or later is empty; both carry rank_depth_limit."},
		{name: "fusion_method", typ: tString, enum: []string{"convex", "rrf"},
			desc: "Fusion algorithm (default HYBRID_FUSION, convex): convex (a convex combination of each method's min-max normalised scores) or rrf (Reciprocal Rank Fusion)."},
		{name: "rrf_k", typ: tInteger, min: i64(1), max: i64(1000),
			desc: "RRF smoothing constant, 1 to 1000 (default HYBRID_RRF_K, 60). Smaller values favour the top ranks of each method."},
	}
	params = append(params, filterParams()...)
	params = append(params,
		param{name: "include_images", typ: tBoolean, def: false,
			desc: "Include the image data of multimodal entries (default false)."},
		param{name: "explain_query", typ: tBoolean, def: false,
			desc: "Add a stats object with per-method statistics, fusion statistics and the adaptive full-text mode (default false)."},
	)
	return &toolDef{
		name:    "hybrid_search_context",
		title:   "Hybrid Search Context",
		kind:    readOnly,
		failure: "Hybrid search failed",
		desc: `Hybrid search: full-text (BM25) and semantic (vector) search run in parallel and their scores are combined (by default a convex combination of normalised scores, or Reciprocal Rank Fusion), so entries found by both rank highest. The recommended search for discovery across threads. Available when at least one of full-text or semantic search is (ENABLE_HYBRID_SEARCH not false); if only one runs, its results are returned alone, and a method that fails adds a warning.

Each method retrieves 100 x HYBRID_RRF_OVERFETCH candidates; a query of HYBRID_FTS_OR_THRESHOLD or more significant words runs its full-text part as an OR of the words (long questions rarely contain every word). The fused best 100 are reordered by the reranker when ENABLE_RERANKING is on.

Filters (thread_id, source, tags, content_type, metadata, metadata_filters, start_date, end_date) combine with AND and apply inside both methods: only entries the caller may read and that pass every filter are ranked, counted and paged.

Each result carries id, thread_id, source, content_type, text_content truncated to SEARCH_TRUNCATION_LENGTH characters with is_text_content_truncated, summary, metadata, tags, created_at, updated_at, visibility, is_owner and scores {rrf (the fused score, higher is better), fts_rank, semantic_rank (1-based, null when the method did not find the entry), fts_score (BM25, higher is better), semantic_distance (lower is better), rerank_score (0-1, null when not reranked)}. A result whose text_content is truncated also carries passage {text, start, end, start_line, end_line}: the part of the entry's text, at most SEARCH_TRUNCATION_LENGTH characters, where the query matched (the window holding the most query words; for a semantic match without query words, the start of the best-matching chunk), with its character offsets and lines in the text; a result whose text_content is the whole text has no passage.

Returns {query, results, count, fusion_method, search_modes_used, fts_count, semantic_count}, plus stats when explain_query=true, warnings when a method failed, clamped_limit and rank_depth_limit as for the other ranked searches.`,
		params:    params,
		available: (*contextd.Engine).HybridAvailable,
		call: func(ctx context.Context, eng *contextd.Engine, a args) (any, error) {
			req := contextd.HybridSearchRequest{
				SearchFilter:  decodeFilter(a),
				Query:         a.str("query"),
				Limit:         a.int("limit"),
				Offset:        a.int("offset"),
				FusionMethod:  a.str("fusion_method"),
				IncludeImages: a.bool("include_images"),
				ExplainQuery:  a.bool("explain_query"),
			}
			if a.has("rrf_k") {
				k := a.int("rrf_k")
				req.RRFK = &k
			}
			return eng.HybridSearch(ctx, req)
		},
	}
}
