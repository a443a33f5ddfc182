package server

import (
	"context"

	"github.com/contextd/contextd"
)

// getContextByIDsTool declares get_context_by_ids.
func getContextByIDsTool() *toolDef {
	return &toolDef{
		name:    "get_context_by_ids",
		title:   "Get Context by IDs",
		kind:    readOnly,
		failure: "Failed to fetch context entries",
		array:   true,
		desc: `Fetch complete context entries by ID, with the full, untruncated text_content. Use it after a search to read the entries that matter, or to follow metadata.references.context_ids.

IDs are 32-character hex, 36-character hyphenated UUIDs, or 8 to 31 character hex prefixes resolved over the entries the caller may read (a prefix matching nothing or several entries is an error). At most 100 IDs per call. IDs that do not exist or name an entry the caller may not read are silently omitted; duplicates collapse.

Returns a list of entries, newest first (not in input order), each with id, thread_id, source, content_type, text_content, metadata, tags, created_at, updated_at, visibility and is_owner, and images when include_images is true and the entry has any. summary appears only when the server sets GET_CONTEXT_BY_IDS_INCLUDE_SUMMARY.`,
		params: []param{
			contextIDsParam(true, "IDs of the entries to fetch, 1 to 100: 32-character hex, 36-character hyphenated UUID, or an 8 to 31 character hex prefix. Case and surrounding whitespace are ignored."),
			{name: "include_images", typ: tBoolean, def: true,
				desc: "Include the image data of multimodal entries (default true)."},
		},
		call: func(ctx context.Context, eng *contextd.Engine, a args) (any, error) {
			return eng.Get(ctx, contextd.GetRequest{
				ContextIDs:    a.strings("context_ids"),
				IncludeImages: a.boolPtr("include_images"),
			})
		},
	}
}
