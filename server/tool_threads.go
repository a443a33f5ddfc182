package server

import (
	"context"

	"github.com/contextd/contextd"
)

// listThreadsTool declares list_threads.
func listThreadsTool() *toolDef {
	return &toolDef{
		name:    "list_threads",
		title:   "List Threads",
		kind:    readOnly,
		failure: "Failed to list threads",
		desc: `List the threads holding entries the caller may read, most recent activity first (ties broken by the latest entry ID).

Each thread reports thread_id, entry_count, source_types (number of distinct sources), multimodal_count, first_entry and last_entry timestamps, and last_id (the ID of its newest entry). Every figure counts only entries the caller may read.

Without limit every thread is returned. With limit (1 to 100) and offset (default 0) the list is paged; offset is ignored without limit.

Returns {threads, total_threads}; total_threads is the number of threads in this response, not in the database.`,
		params: []param{
			{name: "limit", typ: tInteger, min: i64(1), max: i64(100),
				desc: "Maximum number of threads to return, 1 to 100. Omit to return all threads."},
			{name: "offset", typ: tInteger, min: i64(0), def: 0,
				desc: "Number of leading threads to skip (default 0). Ignored when limit is omitted."},
		},
		call: func(ctx context.Context, eng *contextd.Engine, a args) (any, error) {
			return eng.ListThreads(ctx, contextd.ListThreadsRequest{
				Limit:  a.int("limit"),
				Offset: a.int("offset"),
			})
		},
	}
}
