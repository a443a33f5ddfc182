package server

import (
	"context"

	"github.com/contextd/contextd"
)

// semanticSearchContextTool declares semantic_search_context.
func semanticSearchContextTool() *toolDef {
	params := []param{
		{name: "query", typ: tString, required: true, minLength: 1,
			desc: "Natural-language search query (at least 1 character); matched by meaning, not by words."},
		{name: "limit", typ: tInteger, min: i64(1), def: 5,
			desc: "Maximum number of results, 1 to 100 (default 5). A larger value is lowered to 100 and reported in clamped_limit."},
		{name: "offset", typ: tInteger, min: i64(0), max: i64(1000000), def: 0,
			desc: "Pagination offset into the one ranking of the 100 nearest entries (default 0). A page reaching past 100 is served short and a page starting at 100 or later is empty; both carry rank_depth_limit."},
	}
	params = append(params, filterParams()...)
	params = append(params,
		param{name: "include_images", typ: tBoolean, def: false,
			desc: "Include the image data of multimodal entries (default false)."},
		param{name: "explain_query", typ: tBoolean, def: false,
			desc: "Add a stats object with execution time, embedding time, filters applied, rows returned, backend and query plan (default false)."},
	)
	return &toolDef{
		name:    "semantic_search_context",
		title:   "Semantic Search Context",
		kind:    readOnly,
		failure: "Semantic search failed",
		desc: `Semantic similarity search over vector embeddings: finds entries with similar meaning even when they share no words. Available when an embedding provider is configured (EMBEDDING_PROVIDER, default builtin: offline GloVe sentence vectors) and ENABLE_SEMANTIC_SEARCH is not false. Prefer hybrid_search_context, which combines this with full-text search.

Long texts are split into chunks (CHUNK_SIZE, CHUNK_OVERLAP); an entry's distance is that of its best chunk. With SEARCH_BACKEND=in-process (default) the vectors are searched by an HNSW graph; with SEARCH_BACKEND=native by sqlite-vec.

Filters (thread_id, source, tags, content_type, metadata, metadata_filters, start_date, end_date) combine with AND and apply inside the search: only entries the caller may read and that pass every filter are ranked, counted and paged.

Results are one ordering of at most 100 entries, nearest first, reordered by the reranker when ENABLE_RERANKING is on; limit and offset cut pages from it. Each result carries id, thread_id, source, content_type, text_content truncated to SEARCH_TRUNCATION_LENGTH characters with is_text_content_truncated, summary, metadata, tags, created_at, updated_at, visibility, is_owner and scores {semantic_distance (Euclidean, lower is better), semantic_rank (null), rerank_score (0-1, higher is better, when reranked)}. A result whose text_content is truncated also carries passage {text, start, end, start_line, end_line}: the part of the entry's text, at most SEARCH_TRUNCATION_LENGTH characters, where the query matched (the window holding the most query words; for a semantic match without query words, the start of the best-matching chunk), with its character offsets and lines in the text; a result whose text_content is the whole text has no passage.

Returns {query, results, count, model}, plus stats when explain_query=true, clamped_limit when limit was above 100 and rank_depth_limit when the page reaches past the 100th entry.`,
		params:    params,
		available: (*contextd.Engine).SemanticAvailable,
		call: func(ctx context.Context, eng *contextd.Engine, a args) (any, error) {
			return eng.SemanticSearch(ctx, contextd.SemanticSearchRequest{
				SearchFilter:  decodeFilter(a),
				Query:         a.str("query"),
				Limit:         a.int("limit"),
				Offset:        a.int("offset"),
				IncludeImages: a.bool("include_images"),
				ExplainQuery:  a.bool("explain_query"),
			})
		},
	}
}
