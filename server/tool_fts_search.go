package server

import (
	"context"

	"github.com/contextd/contextd"
)

// ftsSearchContextTool declares fts_search_context.
func ftsSearchContextTool() *toolDef {
	params := []param{
		{name: "query", typ: tString, required: true, minLength: 1, maxLength: 10000,
			desc: "Search query, 1 to 10,000 characters. Its reading depends on mode."},
		{name: "mode", typ: tString, enum: []string{"match", "prefix", "phrase", "boolean"}, def: "match",
			desc: "match (default): every word must occur, with stemming; \"quoted phrases\" are kept. prefix: every word is a prefix (auth finds authentication). phrase: the whole query as one exact phrase, in order. boolean: AND, OR, NOT (uppercase), parentheses and \"quoted phrases\"; a malformed boolean query runs as a match query instead of failing."},
		{name: "limit", typ: tInteger, min: i64(1), def: 5,
			desc: "Maximum number of results, 1 to 100 (default 5). A larger value is lowered to 100 and reported in clamped_limit."},
		{name: "offset", typ: tInteger, min: i64(0), max: i64(1000000), def: 0,
			desc: "Pagination offset into the one ranking of the best 100 matches (default 0). A page reaching past 100 is served short and a page starting at 100 or later is empty; both carry rank_depth_limit."},
	}
	params = append(params, filterParams()...)
	params = append(params,
		param{name: "highlight", typ: tBoolean, def: false,
			desc: "Add highlighted: the full text with <mark>…</mark> around the matched terms (default false)."},
		param{name: "include_images", typ: tBoolean, def: false,
			desc: "Include the image data of multimodal entries (default false)."},
		param{name: "explain_query", typ: tBoolean, def: false,
			desc: "Add a stats object with execution time, number of filters applied, rows returned, backend and query plan (default false)."},
	)
	return &toolDef{
		name:    "fts_search_context",
		title:   "Full-Text Search Context",
		kind:    readOnly,
		failure: "FTS search failed",
		desc: `Full-text search with linguistic processing (stemming and stop words of FTS_LANGUAGE, default english), BM25 relevance ranking and optional highlighted text. Use it for exact words, names, identifiers and phrases; prefer hybrid_search_context for discovery by meaning.

Modes: match (default; all words, stemmed), prefix (autocomplete-style), phrase (exact word order), boolean (AND/OR/NOT, parentheses, quoted phrases). With SEARCH_BACKEND=in-process (default) the index is Bleve with snowball stemmers; with SEARCH_BACKEND=native it is SQLite FTS5 with the porter stemmer.

Filters (thread_id, source, tags, content_type, metadata, metadata_filters, start_date, end_date) combine with AND and apply inside the search: only entries the caller may read and that pass every filter are ranked, counted and paged.

Results are one ordering of at most 100 matches, best first; limit and offset cut pages from it. Each result carries id, thread_id, source, content_type, text_content truncated to SEARCH_TRUNCATION_LENGTH characters with is_text_content_truncated, summary, metadata, tags, created_at, updated_at, visibility, is_owner, scores {fts_score (BM25, higher is better), fts_rank (null)} and, with highlight=true, highlighted. A result whose text_content is truncated also carries passage {text, start, end, start_line, end_line}: the part of the entry's text, at most SEARCH_TRUNCATION_LENGTH characters, where the query matched (the window holding the most query words; for a semantic match without query words, the start of the best-matching chunk), with its character offsets and lines in the text; a result whose text_content is the whole text has no passage.

Returns {query, mode, results, count, language}, plus stats when explain_query=true, clamped_limit when limit was above 100 and rank_depth_limit when the page reaches past the 100th match.`,
		params: params,
		call: func(ctx context.Context, eng *contextd.Engine, a args) (any, error) {
			return eng.FTSSearch(ctx, contextd.FTSSearchRequest{
				SearchFilter:  decodeFilter(a),
				Query:         a.str("query"),
				Mode:          a.str("mode"),
				Limit:         a.int("limit"),
				Offset:        a.int("offset"),
				Highlight:     a.bool("highlight"),
				IncludeImages: a.bool("include_images"),
				ExplainQuery:  a.bool("explain_query"),
			})
		},
	}
}
