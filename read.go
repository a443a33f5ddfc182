package contextd

import (
	"context"
	"time"

	"github.com/contextd/contextd/internal/read"
)

// entries reads the store for the plain read tools and renders entries
// for every read and search tool (internal/read).
func (e *Engine) entries() read.Reader {
	return read.Reader{Store: e.st, FTS: e.fts, TruncateAt: e.cfg.SearchTruncationLength, SummaryInGet: e.cfg.IncludeSummaryInGet}
}

// Get returns the readable entries among the ids (get_context_by_ids),
// newest first; missing and unreadable ids are omitted alike.
func (e *Engine) Get(ctx context.Context, req GetRequest) ([]EntryView, error) {
	_, acc, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	return e.entries().Get(ctx, acc, req)
}

// Search lists entries by structural filters, newest first (search_context).
func (e *Engine) Search(ctx context.Context, req SearchRequest) (*SearchResponse, error) {
	start := time.Now()
	_, acc, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	return e.entries().Search(ctx, acc, req, start)
}

// ListThreads lists the threads holding readable entries (list_threads).
func (e *Engine) ListThreads(ctx context.Context, req ListThreadsRequest) (*ListThreadsResponse, error) {
	_, acc, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	return e.entries().ListThreads(ctx, acc, req)
}
