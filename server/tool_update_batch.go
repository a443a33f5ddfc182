package server

import (
	"context"

	"github.com/contextd/contextd"
)

// updateContextBatchTool declares update_context_batch.
func updateContextBatchTool() *toolDef {
	return &toolDef{
		name:    "update_context_batch",
		title:   "Update Context (Batch)",
		kind:    modifying,
		writes:  true,
		failure: "Batch update failed",
		desc: `Apply up to 100 updates in one call.

Each update is an object with context_id (required: full ID or 8 to 31 character hex prefix) and any of text, metadata, metadata_patch, tags, images and visibility, with the meaning and limits of update_context. The same entry may appear more than once; updates apply in order.

atomic=true (default): any failing update (invalid input, an entry the caller cannot read or modify) fails the whole call and nothing changes. atomic=false: each update succeeds or fails on its own.

Returns {success, total, succeeded, failed, results: [{index, context_id, success, updated_fields, error}], message}.`,
		params: []param{
			{name: "updates", typ: tArray, required: true, minItems: 1, maxItems: 100,
				items: &param{typ: tObject, desc: "One update: {context_id, text?, metadata?, metadata_patch?, tags?, images?, visibility?}."},
				desc:  "The updates to apply, 1 to 100. Each: context_id (required), text, metadata (full replacement), metadata_patch (RFC 7396 merge patch; not with metadata), tags (full replacement), images (full replacement), visibility ('private' or 'public', owner only)."},
			{name: "atomic", typ: tBoolean, def: true,
				desc: "true (default): all updates apply or none. false: apply each valid update and report failures per update."},
		},
		call: func(ctx context.Context, eng *contextd.Engine, a args) (any, error) {
			objs := a.objects("updates")
			req := contextd.UpdateBatchRequest{Updates: make([]contextd.UpdateBatchItem, len(objs)), Atomic: a.boolPtr("atomic")}
			for i, m := range objs {
				req.Updates[i] = decodeUpdateEntry(m)
			}
			return eng.UpdateBatch(ctx, req)
		},
	}
}
