package server

import (
	"context"

	"github.com/contextd/contextd"
)

// grepContextTool declares grep_context.
func grepContextTool() *toolDef {
	byName := map[string]param{}
	for _, p := range filterParams() {
		byName[p.name] = p
	}
	return &toolDef{
		name:    "grep_context",
		title:   "Grep Context",
		kind:    readOnly,
		failure: "Failed to grep context",
		desc: `Server-side grep: literal or regular-expression, line-oriented, UNRANKED pattern matching over stored text_content. Unlike fts_search_context (stemmed, ranked) it matches raw characters and returns precise match locations. Matching runs in the server, so results are identical on every backend.

A literal pattern (the default) is matched as an exact substring; case-insensitive matching is Unicode-aware (Cyrillic, ſ matches s, the Kelvin sign matches k). A literal containing a line break never matches. With is_regex=true the pattern is a regular expression applied to each line separately, with ^ and $ anchoring at line boundaries. Regular expressions use Go's RE2 syntax, not Python's regex module: backreferences (\1), lookahead and lookbehind ((?=...), (?!...), (?<=...), (?<!...)), atomic groups and possessive quantifiers are NOT supported and are reported as "Invalid regular expression: ...". RE2 runs in linear time; very large scans are still bounded by per-entry and total time budgets.

Entries the caller may read are scanned newest first, scoped by thread_id, source, tags, metadata_filters and content_type (thread_id is recommended). The scan stops after max_entries_scanned entries (clamped to GREP_MAX_ENTRIES_SCANNED) or a total text budget (GREP_AGGREGATE_BYTES_BUDGET).

Returns {mode, total_matches, truncated, results}. In content mode each result carries context_id, line_number, line, match_start/match_end (Unicode code-point offsets into text_content, end exclusive, ready for read_context_range) and before/after context lines; files_with_matches (default) gives context_id + match_count; count gives context_id + count. Every result carries visibility and is_owner. A line longer than GREP_MAX_LINE_CHARS (default 1000) characters is cut to a window of that many: a match's line around the match, a before line to its end, an after line to its start, each cut end marked "[N characters cut]"; match_start/match_end stay offsets into the whole text, so read_context_range reads what was cut. truncated is true when matches or the scan were capped; timed_out_context_ids lists entries skipped by the per-entry time budget.`,
		params: []param{
			{name: "pattern", typ: tString, required: true, minLength: 1,
				desc: "Literal substring (default) or RE2 regular expression, at most GREP_MAX_PATTERN_CHARS characters (default 32768)."},
			{name: "thread_id", typ: tString, noNUL: true,
				desc: "Only entries of this thread (recommended). An empty string does not filter."},
			byName["source"],
			byName["tags"],
			byName["metadata_filters"],
			byName["content_type"],
			{name: "is_regex", typ: tBoolean, def: false,
				desc: "Treat pattern as a regular expression (RE2 syntax; default false: literal substring)."},
			{name: "case_sensitive", typ: tBoolean, def: false,
				desc: "Match case-sensitively (default false: Unicode-aware case-insensitive)."},
			{name: "output_mode", typ: tString, enum: []string{contextd.GrepFilesWithMatches, contextd.GrepContent, contextd.GrepCount}, def: contextd.GrepFilesWithMatches,
				desc: "files_with_matches (context_id + match_count), content (each match with line, offsets and context) or count (per-entry tally)."},
			{name: "context_lines", typ: tInteger, min: i64(0), max: i64(100), def: 0,
				desc: "Lines of context before and after each match in content mode, 0 to 100 (clamped to GREP_MAX_CONTEXT_LINES, default 20)."},
			{name: "max_matches", typ: tInteger, min: i64(1), max: i64(10000), def: 100,
				desc: "Maximum total matches returned (default 100; clamped to GREP_MAX_MATCHES_CAP, default 1000)."},
			{name: "max_entries_scanned", typ: tInteger, min: i64(1), max: i64(1000000), def: 1000,
				desc: "Maximum entries the scan visits (default 1000; clamped to GREP_MAX_ENTRIES_SCANNED, default 1000). Entries the caller may not read never count."},
		},
		call: func(ctx context.Context, eng *contextd.Engine, a args) (any, error) {
			return eng.Grep(ctx, contextd.GrepRequest{
				Pattern:           a.str("pattern"),
				ThreadID:          a.str("thread_id"),
				Source:            a.str("source"),
				Tags:              a.strings("tags"),
				MetadataFilters:   a.objects("metadata_filters"),
				ContentType:       a.str("content_type"),
				IsRegex:           a.bool("is_regex"),
				CaseSensitive:     a.bool("case_sensitive"),
				OutputMode:        a.str("output_mode"),
				ContextLines:      a.int("context_lines"),
				MaxMatches:        a.int("max_matches"),
				MaxEntriesScanned: a.int("max_entries_scanned"),
			})
		},
	}
}
