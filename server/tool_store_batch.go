package server

import (
	"context"

	"github.com/contextd/contextd"
)

// storeContextBatchTool declares store_context_batch.
func storeContextBatchTool() *toolDef {
	return &toolDef{
		name:    "store_context_batch",
		title:   "Store Context (Batch)",
		kind:    additive,
		writes:  true,
		failure: "Batch store failed",
		desc: `Store up to 100 context entries in one call.

Each entry is an object with thread_id, source ('user' or 'agent') and text (required), and optionally metadata, tags, images, visibility and deduplicate (default true), with the meaning and limits of store_context. Entries are stored in order, so a deduplicating entry may merge into one stored earlier in the same batch. Corpus sync clients pass "deduplicate": false.

atomic=true (default): any invalid entry fails the whole call ("Validation failed for N entries. First error at index I: ...") and nothing is stored. atomic=false: valid entries are stored and each invalid one is reported in its result.

Returns {success, total, succeeded, failed, results: [{index, success, context_id, error}], message}.`,
		params: []param{
			{name: "entries", typ: tArray, required: true, minItems: 1, maxItems: 100,
				items: &param{typ: tObject, desc: "One entry: {thread_id, source, text, metadata?, tags?, images?, visibility?, deduplicate?}."},
				desc:  "The entries to store, 1 to 100. Each: thread_id (required, at most 256 characters), source (required, 'user' or 'agent'), text (required), metadata (object), tags (list of strings, at most 100 of at most 128 characters), images (list of {data, mime_type, metadata}), visibility ('private' or 'public'), deduplicate (boolean, default true)."},
			{name: "atomic", typ: tBoolean, def: true,
				desc: "true (default): all entries are stored or none. false: store the valid entries and report the invalid ones per entry."},
		},
		call: func(ctx context.Context, eng *contextd.Engine, a args) (any, error) {
			objs := a.objects("entries")
			req := contextd.StoreBatchRequest{Entries: make([]contextd.StoreBatchItem, len(objs)), Atomic: a.boolPtr("atomic")}
			for i, m := range objs {
				req.Entries[i] = decodeStoreEntry(m)
			}
			return eng.StoreBatch(ctx, req)
		},
	}
}
