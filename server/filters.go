package server

import "github.com/contextd/contextd"

// The structural filters shared by search_context and the ranked searches
// (semantic_search_context, fts_search_context, hybrid_search_context).

const metadataFiltersDesc = "Advanced metadata filters, at most 100, combined with AND. " +
	"Each is an object {key, operator, value, case_sensitive}: key is a metadata key, " +
	"nested keys joined with dots (user.preferences.theme); operator is one of eq (default), ne, gt, gte, lt, lte, " +
	"in, not_in (value lists of at most 100 members), exists, not_exists, contains, starts_with, ends_with, " +
	"is_null, is_not_null, array_contains; case_sensitive (default false) applies to string comparisons. " +
	"Invalid filters do not fail the call: the response carries error and validation_errors listing every problem. " +
	`Example: [{"key": "priority", "operator": "gt", "value": 3}, {"key": "status", "operator": "in", "value": ["active", "pending"]}]`

// filterParams returns the filter parameters in the reference order of
// search_context.
func filterParams() []param {
	return []param{
		{name: "thread_id", typ: tString, minLength: 1, noNUL: true,
			desc: "Only entries of this thread. Omit to search across all threads."},
		{name: "source", typ: tString, enum: sourceEnum,
			desc: "Only entries from this source: 'user' or 'agent'."},
		{name: "tags", typ: tArray, maxItems: 100, items: &param{typ: tString, noNUL: true},
			desc: "Only entries carrying ANY of these tags (OR logic; matched case-insensitively after normalization). At most 100 tags."},
		{name: "content_type", typ: tString, enum: contentTypeEnum,
			desc: "Only 'text' entries or only 'multimodal' entries (those with images)."},
		{name: "metadata", typ: tObject,
			desc: `Simple metadata filter: key=value equality on top-level keys, combined with AND, at most 100 keys. Example: {"status": "active", "priority": 5}.`},
		{name: "metadata_filters", typ: tArray, maxItems: 100, items: &param{typ: tObject},
			desc: metadataFiltersDesc},
		{name: "start_date", typ: tString, minLength: 1, empty: emptyDate("start_date"),
			desc: "Only entries created on or after this ISO 8601 date or time (2025-11-29, 2025-11-29T10:00:00, 2025-11-29T10:00:00Z, 2025-11-29T10:00:00+02:00). A time without offset is UTC."},
		{name: "end_date", typ: tString, minLength: 1, empty: emptyDate("end_date"),
			desc: "Only entries created on or before this ISO 8601 date or time; a date-only value covers the whole day (until 23:59:59.999999)."},
	}
}

// decodeFilter builds the engine filter from validated arguments.
func decodeFilter(a args) contextd.SearchFilter {
	return contextd.SearchFilter{
		ThreadID:        a.str("thread_id"),
		Source:          a.str("source"),
		Tags:            a.strings("tags"),
		ContentType:     a.str("content_type"),
		Metadata:        a.object("metadata"),
		MetadataFilters: a.objects("metadata_filters"),
		StartDate:       a.str("start_date"),
		EndDate:         a.str("end_date"),
	}
}

// emptyDate is the reference error for an empty date parameter, which the
// engine cannot see: its filter reads "" as absent.
func emptyDate(name string) string {
	return `Invalid ` + name + ` format: "". Use ISO 8601 format (e.g., "2025-11-29" or "2025-11-29T10:00:00")`
}
