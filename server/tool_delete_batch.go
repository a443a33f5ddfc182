package server

import (
	"context"

	"github.com/contextd/contextd"
)

// deleteContextBatchTool declares delete_context_batch.
func deleteContextBatchTool() *toolDef {
	return &toolDef{
		name:    "delete_context_batch",
		title:   "Delete Context (Batch)",
		kind:    deleting,
		writes:  true,
		failure: "Batch delete failed",
		desc: `Delete the caller's entries matching ALL of the given criteria. IRREVERSIBLE.

Criteria: context_ids (at most 100), thread_ids (at most 100), source, older_than_days. At least one is required, and source and older_than_days must each be combined with another criterion, so one broad filter never reaches the whole database (a retention purge is older_than_days plus source). context_ids plus thread_ids means "these IDs, restricted to those threads".

Only the caller's own entries are deleted and entries the caller may not read are never matched or counted. With context_ids, naming a readable entry the caller does not own refuses the whole call and deletes nothing. Tags, images, embeddings and grants go with each entry.

Returns {success, deleted_count, criteria_used, message}.`,
		params: []param{
			{name: "context_ids", typ: tArray, maxItems: 100, items: &param{typ: tString},
				desc: "Delete these entries, at most 100: 32-character hex, 36-character hyphenated UUID, or 8 to 31 character hex prefix."},
			{name: "thread_ids", typ: tArray, maxItems: 100, items: &param{typ: tString, noNUL: true},
				desc: "Delete the caller's entries in these threads, at most 100."},
			{name: "source", typ: tString, enum: sourceEnum,
				desc: "Delete only entries from this source, 'user' or 'agent'. Must be combined with another criterion."},
			{name: "older_than_days", typ: tInteger, min: i64(1),
				desc: "Delete only entries created more than this many days ago (at least 1). Must be combined with another criterion."},
		},
		call: func(ctx context.Context, eng *contextd.Engine, a args) (any, error) {
			return eng.DeleteBatch(ctx, contextd.DeleteBatchRequest{
				ContextIDs:    a.strings("context_ids"),
				ThreadIDs:     a.strings("thread_ids"),
				Source:        a.str("source"),
				OlderThanDays: a.int("older_than_days"),
			})
		},
	}
}
