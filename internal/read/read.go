// Package read serves the plain read tools (get_context_by_ids,
// search_context, list_threads) and renders a stored entry as every read
// and search tool returns it (View, Reader.SearchView), in package api's
// types.
//
//	r := read.Reader{Store: st, FTS: ft, TruncateAt: 300}
//	resp, err := r.Search(ctx, acc, req)
package read

import (
	"context"
	"encoding/base64"
	"fmt"
	"time"

	"github.com/contextd/contextd/api"
	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/internal/search"
	"github.com/contextd/contextd/persist"
)

// defaultSearchLimit is search_context's page size.
const defaultSearchLimit = 30

// Reader reads the entries of a store.
type Reader struct {
	Store persist.Store
	FTS   *search.FullText // search_context pages through it
	// TruncateAt cuts search result text (SEARCH_TRUNCATION_LENGTH).
	TruncateAt int
	// SummaryInGet is GET_CONTEXT_BY_IDS_INCLUDE_SUMMARY.
	SummaryInGet bool
}

// View renders a stored entry for the caller named caller: every read and
// search tool returns entries through it, so a knowledge upload's pending
// bytes (the record's blob) are cut from the metadata here
// (persist.PublicMetadata).
func View(caller string, ent *persist.Entry, images bool) api.EntryView {
	v := api.EntryView{
		ID:          ent.ID,
		ThreadID:    ent.ThreadID,
		Source:      ent.Source,
		ContentType: ent.ContentType,
		TextContent: ent.Text,
		Metadata:    persist.PublicMetadata(ent.ThreadID, ent.Metadata),
		Tags:        ent.Tags,
		CreatedAt:   request.WireTime(ent.CreatedAt),
		UpdatedAt:   request.WireTime(ent.UpdatedAt),
		Visibility:  ent.Visibility,
		IsOwner:     ent.Owner == caller,
	}
	if v.Tags == nil {
		v.Tags = []string{}
	}
	if images && ent.ContentType == "multimodal" {
		v.Images = make([]api.ImageView, len(ent.Images))
		for i, im := range ent.Images {
			v.Images[i] = api.ImageView{Data: base64.StdEncoding.EncodeToString(im.Data), MimeType: im.MimeType, Metadata: im.Metadata}
		}
	}
	return v
}

// SearchView is a View with the search-result text contract: truncated
// text, the flag, and summary always a string.
func (r Reader) SearchView(caller string, ent *persist.Entry, images bool) api.EntryView {
	v := View(caller, ent, images)
	text, cut := request.Truncate(ent.Text, r.TruncateAt)
	v.TextContent = text
	v.IsTextContentTruncated = &cut
	summary := ent.Summary
	v.Summary = &summary
	return v
}

// Get returns the readable entries among the ids (get_context_by_ids),
// newest first; missing and unreadable ids are omitted alike.
func (r Reader) Get(ctx context.Context, acc persist.Access, req api.GetRequest) ([]api.EntryView, error) {
	if len(req.ContextIDs) == 0 || len(req.ContextIDs) > request.MaxBatch {
		return nil, cerrors.Invalidf("context_ids must hold 1 to %d IDs, got %d", request.MaxBatch, len(req.ContextIDs))
	}
	ids, err := request.ResolveIDs(ctx, r.Store, acc, req.ContextIDs)
	if err != nil {
		return nil, err
	}
	images := req.IncludeImages == nil || *req.IncludeImages
	ents, err := r.Store.Get(ctx, acc, ids, persist.GetOptions{Images: images})
	if err != nil {
		return nil, fmt.Errorf("get entries: %w", err)
	}
	out := make([]api.EntryView, len(ents))
	for i := range ents {
		out[i] = View(acc.Principal, &ents[i], images)
		if r.SummaryInGet {
			s := ents[i].Summary
			out[i].Summary = &s
		}
	}
	return out, nil
}

// Page validates a search tool's page request (def is its page size) and
// reports a clamped limit.
func Page(limit, offset, def int) (request.Page, *api.ClampedLimit, error) {
	pg, err := request.CheckPage(limit, offset, def)
	if err != nil || pg.Clamped == 0 {
		return pg, nil, err
	}
	return pg, &api.ClampedLimit{Requested: pg.Clamped, Applied: pg.Limit}, nil
}

// Search lists entries by structural filters, newest first
// (search_context); start is when the call began.
func (r Reader) Search(ctx context.Context, acc persist.Access, req api.SearchRequest, start time.Time) (*api.SearchResponse, error) {
	pg, clamped, err := Page(req.Limit, req.Offset, defaultSearchLimit)
	if err != nil {
		return nil, err
	}
	f, problem, err := request.BuildFilter(req.SearchFilter)
	if err != nil {
		return nil, err
	}
	if problem != nil {
		resp := &api.SearchResponse{Results: []api.EntryView{}, Error: problem.Message, ValidationErrors: problem.Errors, ClampedLimit: clamped}
		if req.ExplainQuery {
			resp.Stats = &api.SearchStats{Backend: r.Store.Backend()}
		}
		return resp, nil
	}
	res, err := r.FTS.Page(ctx, acc, persist.SearchQuery{
		Filter: f.Filter, Limit: pg.Limit, Offset: req.Offset, Images: req.IncludeImages, Explain: req.ExplainQuery,
	})
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	resp := &api.SearchResponse{Results: make([]api.EntryView, len(res.Entries)), Count: len(res.Entries), ClampedLimit: clamped}
	for i := range res.Entries {
		resp.Results[i] = r.SearchView(acc.Principal, &res.Entries[i], req.IncludeImages)
	}
	if req.ExplainQuery {
		plan := res.Plan
		resp.Stats = &api.SearchStats{
			ExecutionTimeMS: RoundMS(time.Since(start)),
			FiltersApplied:  f.Applied,
			RowsReturned:    len(res.Entries),
			Backend:         r.Store.Backend(),
			QueryPlan:       &plan,
		}
	}
	return resp, nil
}

// RoundMS is d in milliseconds to two decimals, as the statistics report
// execution times.
func RoundMS(d time.Duration) float64 {
	return float64(d.Microseconds()/10) / 100
}

// ListThreads lists the threads holding readable entries (list_threads).
func (r Reader) ListThreads(ctx context.Context, acc persist.Access, req api.ListThreadsRequest) (*api.ListThreadsResponse, error) {
	if req.Limit < 0 || req.Limit > request.MaxPageLimit {
		return nil, cerrors.Invalidf("limit must be between 1 and %d, got %d", request.MaxPageLimit, req.Limit)
	}
	if req.Offset < 0 {
		return nil, cerrors.Invalidf("offset must be at least 0, got %d", req.Offset)
	}
	offset := req.Offset
	if req.Limit == 0 {
		offset = 0
	}
	// The catalog answers in a pass over what the caller may read;
	// without one the store does, with the plan hint that keeps its work
	// proportional to the same.
	ts, ok, err := r.FTS.Threads(ctx, acc, req.Limit, offset)
	if err == nil && !ok {
		ts, err = r.Store.ListThreads(ctx, r.FTS.Narrow(acc), req.Limit, offset)
	}
	if err != nil {
		return nil, fmt.Errorf("list threads: %w", err)
	}
	out := &api.ListThreadsResponse{Threads: make([]api.ThreadView, len(ts)), TotalThreads: len(ts)}
	for i, t := range ts {
		out.Threads[i] = api.ThreadView{
			ThreadID: t.ThreadID, EntryCount: t.EntryCount, SourceTypes: t.SourceTypes,
			MultimodalCount: t.MultimodalCount, FirstEntry: request.WireTime(t.FirstEntry),
			LastEntry: request.WireTime(t.LastEntry), LastID: t.LastID,
		}
	}
	return out, nil
}
