package contextd

import (
	"context"
	"encoding/base64"
	"fmt"
	"time"

	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/persist"
)

// defaultSearchLimit is search_context's page size.
const defaultSearchLimit = 30

// view renders a stored entry for the caller: every read and search tool
// returns entries through it, so a knowledge upload's pending bytes (the
// record's blob) are cut from the metadata here (persist.PublicMetadata).
func (e *Engine) view(p Principal, ent *persist.Entry, images bool) EntryView {
	v := EntryView{
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
		IsOwner:     ent.Owner == p.ID,
	}
	if v.Tags == nil {
		v.Tags = []string{}
	}
	if images && ent.ContentType == "multimodal" {
		v.Images = make([]ImageView, len(ent.Images))
		for i, im := range ent.Images {
			v.Images[i] = ImageView{Data: base64.StdEncoding.EncodeToString(im.Data), MimeType: im.MimeType, Metadata: im.Metadata}
		}
	}
	return v
}

// searchView is a view with the search-result text contract: truncated
// text, the flag, and summary always a string.
func (e *Engine) searchView(p Principal, ent *persist.Entry, images bool) EntryView {
	v := e.view(p, ent, images)
	text, cut := request.Truncate(ent.Text, e.cfg.SearchTruncationLength)
	v.TextContent = text
	v.IsTextContentTruncated = &cut
	summary := ent.Summary
	v.Summary = &summary
	return v
}

// Get returns the readable entries among the ids (get_context_by_ids),
// newest first; missing and unreadable ids are omitted alike.
func (e *Engine) Get(ctx context.Context, req GetRequest) ([]EntryView, error) {
	p, acc, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	if len(req.ContextIDs) == 0 || len(req.ContextIDs) > maxBatch {
		return nil, invalidf("context_ids must hold 1 to %d IDs, got %d", maxBatch, len(req.ContextIDs))
	}
	ids, err := request.ResolveIDs(ctx, e.st, acc, req.ContextIDs)
	if err != nil {
		return nil, err
	}
	images := req.IncludeImages == nil || *req.IncludeImages
	ents, err := e.st.Get(ctx, acc, ids, persist.GetOptions{Images: images})
	if err != nil {
		return nil, fmt.Errorf("get entries: %w", err)
	}
	out := make([]EntryView, len(ents))
	for i := range ents {
		out[i] = e.view(p, &ents[i], images)
		if e.cfg.IncludeSummaryInGet {
			s := ents[i].Summary
			out[i].Summary = &s
		}
	}
	return out, nil
}

// page validates a search tool's page request (def is its page size) and
// reports a clamped limit.
func page(limit, offset, def int) (request.Page, *ClampedLimit, error) {
	pg, err := request.CheckPage(limit, offset, def)
	if err != nil || pg.Clamped == 0 {
		return pg, nil, err
	}
	return pg, &ClampedLimit{Requested: pg.Clamped, Applied: pg.Limit}, nil
}

// Search lists entries by structural filters, newest first (search_context).
func (e *Engine) Search(ctx context.Context, req SearchRequest) (*SearchResponse, error) {
	start := time.Now()
	p, acc, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	pg, clamped, err := page(req.Limit, req.Offset, defaultSearchLimit)
	if err != nil {
		return nil, err
	}
	limit := pg.Limit
	f, problem, err := e.buildFilter(req.SearchFilter)
	if err != nil {
		return nil, err
	}
	if problem != nil {
		resp := &SearchResponse{Results: []EntryView{}, Error: problem.Message, ValidationErrors: problem.Errors, ClampedLimit: clamped}
		if req.ExplainQuery {
			resp.Stats = &SearchStats{Backend: e.st.Backend()}
		}
		return resp, nil
	}
	res, err := e.fts.Page(ctx, acc, persist.SearchQuery{
		Filter: f.Filter, Limit: limit, Offset: req.Offset, Images: req.IncludeImages, Explain: req.ExplainQuery,
	})
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	resp := &SearchResponse{Results: make([]EntryView, len(res.Entries)), Count: len(res.Entries), ClampedLimit: clamped}
	for i := range res.Entries {
		resp.Results[i] = e.searchView(p, &res.Entries[i], req.IncludeImages)
	}
	if req.ExplainQuery {
		plan := res.Plan
		resp.Stats = &SearchStats{
			ExecutionTimeMS: roundMS(time.Since(start)),
			FiltersApplied:  f.Applied,
			RowsReturned:    len(res.Entries),
			Backend:         e.st.Backend(),
			QueryPlan:       &plan,
		}
	}
	return resp, nil
}

func roundMS(d time.Duration) float64 {
	return float64(d.Microseconds()/10) / 100
}

// ListThreads lists the threads holding readable entries (list_threads).
func (e *Engine) ListThreads(ctx context.Context, req ListThreadsRequest) (*ListThreadsResponse, error) {
	_, acc, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	if req.Limit < 0 || req.Limit > request.MaxPageLimit {
		return nil, invalidf("limit must be between 1 and %d, got %d", request.MaxPageLimit, req.Limit)
	}
	if req.Offset < 0 {
		return nil, invalidf("offset must be at least 0, got %d", req.Offset)
	}
	offset := req.Offset
	if req.Limit == 0 {
		offset = 0
	}
	ts, err := e.st.ListThreads(ctx, acc, req.Limit, offset)
	if err != nil {
		return nil, fmt.Errorf("list threads: %w", err)
	}
	out := &ListThreadsResponse{Threads: make([]ThreadView, len(ts)), TotalThreads: len(ts)}
	for i, t := range ts {
		out.Threads[i] = ThreadView{
			ThreadID: t.ThreadID, EntryCount: t.EntryCount, SourceTypes: t.SourceTypes,
			MultimodalCount: t.MultimodalCount, FirstEntry: request.WireTime(t.FirstEntry),
			LastEntry: request.WireTime(t.LastEntry), LastID: t.LastID,
		}
	}
	return out, nil
}
