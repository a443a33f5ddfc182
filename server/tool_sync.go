package server

import (
	"context"

	"github.com/contextd/contextd"
)

// manifestItem declares one element of plan_context_sync's manifest. The
// engine (internal/syncplan) checks the items, so the refusals of R-140
// read the same for a library caller.
var manifestItem = &param{
	typ:  tObject,
	desc: "An ordinary item {source_id, text_digest, meta_digest} or a keep item {source_id, keep: true}; no other key.",
	props: []param{
		{name: "source_id", typ: tString, required: true, minLength: 1, maxLength: 256,
			desc: "The source document's id in the corpus, 1 to 256 characters."},
		{name: "text_digest", typ: tString, minLength: 64, maxLength: 64,
			desc: "SHA-256 hex digest of the text the client would store, after surrounding whitespace is removed."},
		{name: "meta_digest", typ: tString, minLength: 64, maxLength: 64,
			desc: "The 64-character hex digest the client writes into the entry's metadata.ingest block."},
		{name: "keep", typ: tBoolean,
			desc: "true marks a source the client could not read in this run: nothing is planned for it."},
	},
}

// planContextSyncTool declares plan_context_sync.
func planContextSyncTool() *toolDef {
	return &toolDef{
		name:    "plan_context_sync",
		title:   "Plan Context Sync",
		kind:    readOnly,
		failure: "Failed to plan context sync",
		desc: `Compare a manifest of a corpus's source documents with the caller's managed entries of a thread and answer what to create, update and delete. Writes nothing; apply the plan with store_context_batch (each entry with "deduplicate": false), update_context_batch and delete_context_batch.

A managed entry carries the reserved metadata.ingest block {scope, source_id, meta_digest, synced_at} with scope equal to the thread. Only the caller's own managed entries are planned; another principal's readable ones only add to foreign_count.

Returns {thread_id, creates, updates, deletes, deletes_total, unchanged_count, kept_count, foreign_count}: creates are manifest indices; updates are {index, context_id, change} with change text, metadata or both; deletes are {context_id, source_id, reason} (reason duplicate, or absent when the manifest does not name the source), at most 100 ordered by source_id then context_id, and deletes_total counts them all: delete and plan again until it is 0.

Invalid arguments are refused before any read. A corpus of more than 1,000 documents is planned in consecutive source_id ranges of its sorted manifest.`,
		params: []param{
			{name: "thread_id", typ: tString, required: true, minLength: 1, maxLength: 256, noNUL: true,
				desc: "The corpus thread, such as kb:handbook. At most 256 characters."},
			{name: "manifest", typ: tArray, required: true, maxItems: 1000, items: manifestItem,
				tooMany: "manifest has %d items; at most 1000 are allowed: sort the corpus by source_id and plan consecutive ranges",
				desc:    "At most 1,000 items, each source_id at most once, every one inside (source_id_after, source_id_through]."},
			{name: "source_id_after", typ: tString,
				desc: "Exclusive lower bound of the planned source ids (code-point order); omitted means no lower bound."},
			{name: "source_id_through", typ: tString,
				desc: "Inclusive upper bound of the planned source ids (code-point order); omitted means no upper bound."},
			{name: "allow_empty_manifest", typ: tBoolean, def: false,
				desc: "Confirm an empty manifest, which plans the deletion of every managed entry in the range."},
		},
		call: func(ctx context.Context, eng *contextd.Engine, a args) (any, error) {
			return eng.PlanSync(ctx, contextd.PlanSyncRequest{
				ThreadID:           a.str("thread_id"),
				Manifest:           a.objects("manifest"),
				SourceIDAfter:      a.strPtr("source_id_after"),
				SourceIDThrough:    a.strPtr("source_id_through"),
				AllowEmptyManifest: a.bool("allow_empty_manifest"),
			})
		},
	}
}

// listIngestStateTool declares list_ingest_state.
func listIngestStateTool() *toolDef {
	return &toolDef{
		name:    "list_ingest_state",
		title:   "List Ingest State",
		kind:    readOnly,
		failure: "Failed to list ingest state",
		desc: `List one page of the caller's own managed entries of a thread, ordered by source_id and then context_id in code-point order.

Returns {thread_id, entries, count, next_cursor}. Each entry is {context_id, source_id, text_digest, meta_digest, synced_at}, where text_digest is the stored content hash. next_cursor is null on the last page, including a page that ends exactly at the last entry.`,
		params: []param{
			{name: "thread_id", typ: tString, required: true, minLength: 1, maxLength: 256, noNUL: true,
				desc: "The corpus thread. At most 256 characters."},
			{name: "limit", typ: tInteger, min: i64(1), max: i64(200), def: 100,
				desc: "Entries per page, 1 to 200 (default 100)."},
			{name: "cursor", typ: tString,
				desc: "The next_cursor of the previous page; omitted reads the first page. A malformed cursor is refused with invalid cursor."},
		},
		call: func(ctx context.Context, eng *contextd.Engine, a args) (any, error) {
			return eng.ListIngestState(ctx, contextd.IngestStateRequest{
				ThreadID: a.str("thread_id"),
				Limit:    a.int("limit"),
				Cursor:   a.str("cursor"),
			})
		},
	}
}
