package server

import (
	"context"

	"github.com/contextd/contextd"
)

// getStatisticsTool declares get_statistics.
func getStatisticsTool() *toolDef {
	return &toolDef{
		name:    "get_statistics",
		title:   "Get Statistics",
		kind:    readOnly,
		failure: "Failed to get statistics",
		desc: `Get database statistics, usage figures and feature status: total entries, entries by source and by content type, images, unique tags, threads, the most active threads and the top tags, summaries, the database size, connection metrics, and the status of semantic search, full-text search, chunking, reranking, summary generation and compression.

Entry, thread, image, tag and summary figures count only the entries the caller may read; the database size, connection metrics and configuration describe the whole deployment and are the same for every caller.`,
		call: func(ctx context.Context, eng *contextd.Engine, _ args) (any, error) {
			return eng.Statistics(ctx)
		},
	}
}
