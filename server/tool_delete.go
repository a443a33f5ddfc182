package server

import (
	"context"

	"github.com/contextd/contextd"
)

// deleteContextTool declares delete_context.
func deleteContextTool() *toolDef {
	return &toolDef{
		name:    "delete_context",
		title:   "Delete Context",
		kind:    deleting,
		writes:  true,
		failure: "Failed to delete context",
		desc: `Delete context entries by ID or by thread. IRREVERSIBLE.

Provide exactly one of context_ids or thread_id; both or neither is an error. Only the caller's own entries are deleted. With context_ids, an ID the caller may not read is skipped and not counted, and naming a readable entry the caller does not own refuses the whole call and deletes nothing. With thread_id, the caller's entries in the thread are deleted and everyone else's stay. Tags, images, embeddings and grants go with each entry.

To combine criteria (IDs within threads, by source, by age) use delete_context_batch.

Returns {success, deleted_count, message}.`,
		params: []param{
			contextIDsParam(false, "IDs of the entries to delete, 1 to 100: 32-character hex, 36-character hyphenated UUID, or an 8 to 31 character hex prefix. Not with thread_id."),
			{name: "thread_id", typ: tString, minLength: 1, noNUL: true,
				desc: "Delete the caller's own entries in this thread. Not with context_ids."},
		},
		call: func(ctx context.Context, eng *contextd.Engine, a args) (any, error) {
			return eng.Delete(ctx, contextd.DeleteRequest{
				ContextIDs: a.strings("context_ids"),
				ThreadID:   a.strPtr("thread_id"),
			})
		},
	}
}
