package server

import (
	"context"

	"github.com/contextd/contextd"
)

// searchContextTool declares search_context.
func searchContextTool() *toolDef {
	params := append(filterParams(),
		param{name: "limit", typ: tInteger, min: i64(1), def: 30,
			desc: "Maximum number of results, 1 to 100 (default 30). A larger value is lowered to 100 and reported in clamped_limit."},
		param{name: "offset", typ: tInteger, min: i64(0), max: i64(1000000), def: 0,
			desc: "Number of matching entries to skip for pagination, 0 to 1,000,000 (default 0)."},
		param{name: "include_images", typ: tBoolean, def: false,
			desc: "Include the image data of multimodal entries (default false)."},
		param{name: "explain_query", typ: tBoolean, def: false,
			desc: "Add a stats object with execution time, number of filters applied, rows returned, backend and query plan (default false)."},
	)
	return &toolDef{
		name:    "search_context",
		title:   "Search Context",
		kind:    readOnly,
		failure: "Failed to search context",
		desc: `Browse and filter context entries, newest first. There is no query text: use it to load a thread's recent entries or to filter by source, tags, content type, metadata and dates. For relevance-ranked search by meaning or keywords use hybrid_search_context (or fts_search_context / semantic_search_context).

Filters combine with AND; tags match ANY of the given tags. metadata does key=value equality; metadata_filters adds operators (eq, ne, gt, gte, lt, lte, in, not_in, exists, not_exists, contains, starts_with, ends_with, is_null, is_not_null, array_contains). Dates are ISO 8601; a date-only end_date covers the whole day; times without an offset are UTC. Only entries the caller may read are matched and counted.

Each result carries id, thread_id, source, content_type, text_content truncated to SEARCH_TRUNCATION_LENGTH characters (default 300) with is_text_content_truncated, summary (a string, "" when none), metadata, tags, created_at, updated_at, visibility and is_owner. Call get_context_by_ids for the full text.

Returns {results, count}, plus stats when explain_query=true and clamped_limit when limit was above 100. Invalid metadata filters do not fail the call: the response carries error and validation_errors with every problem found.`,
		params: params,
		call: func(ctx context.Context, eng *contextd.Engine, a args) (any, error) {
			return eng.Search(ctx, contextd.SearchRequest{
				SearchFilter:  decodeFilter(a),
				Limit:         a.int("limit"),
				Offset:        a.int("offset"),
				IncludeImages: a.bool("include_images"),
				ExplainQuery:  a.bool("explain_query"),
			})
		},
	}
}
