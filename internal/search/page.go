package search

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/contextd/contextd/index/catalog"
	"github.com/contextd/contextd/internal/follow"
	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlval"
)

// Page answers one page of search_context (structural filters and
// metadata conditions, newest first). A catalog chooses the page (the
// readable set first, then the filter bitmaps, the created-at order and
// the metadata columns: index/catalog/list.go): the full-text index's
// with the in-process backend, search_context's own (pagecat.go) with the
// native backend or full-text search off. The store then reads those
// entries by id, re-checking access and every filter in SQL, so an entry
// written between the catalog's catch-up and the read is never returned
// unless it still matches. Keyset pages (Filter.Before) are chosen by the
// catalog too, and a size bound (MaxTextBytes) applies to that read:
// grep_context scans this way, so its walk goes over the caller's
// candidates only, where SQL's walk of the created_at index stepped over
// every newer entry of every principal. Id lists and metadata the catalog
// cannot evaluate exactly are the store's to answer whole.
//
// At 100,000 entries the catalog path keeps every filter of the bench
// under 1 ms median where SQL took up to 763 ms for a rare non-indexed
// metadata match (BenchmarkPage, README "Performance").
func (ft *FullText) Page(ctx context.Context, acc persist.Access, q persist.SearchQuery) (persist.SearchResult, error) {
	cat, fol := ft.pageCatalog()
	if cat == nil || q.IDs != nil {
		return ft.st.Search(ctx, acc, q)
	}
	if err := fol.CatchUp(ctx); err != nil {
		return persist.SearchResult{}, err
	}
	conds, ok := catalogConds(q.Meta)
	if !ok {
		return ft.st.Search(ctx, acc, q)
	}
	f := q.Filter
	cq := catalog.Query{
		Principal: acc.Principal, Groups: acc.Groups, ThreadID: f.ThreadID, Source: f.Source,
		ContentType: f.ContentType, Tags: nilIfEmpty(f.Tags), Start: f.Start, End: f.End,
		OmitKnowledge: f.OmitKnowledge,
	}
	if p := f.Before; p != nil {
		cq.Before = &catalog.Position{CreatedAt: p.CreatedAt, ID: p.ID}
	}
	ids, err := cat.List(cq, conds, q.Offset, q.Limit)
	if errors.Is(err, catalog.ErrMetaUnserved) {
		return ft.st.Search(ctx, acc, q)
	}
	if err != nil {
		return persist.SearchResult{}, fmt.Errorf("catalog page: %w", err)
	}
	res := persist.SearchResult{Entries: []persist.Entry{}}
	if q.Explain {
		res.Plan = fmt.Sprintf("IN-PROCESS CATALOG: readable set, filter bitmaps, %d metadata column condition(s), newest-first page of %d\nSEARCH e USING PRIMARY KEY (id IN list of the page)", len(conds), len(ids))
	}
	if len(ids) == 0 {
		return res, nil
	}
	// The page's entries by id, under the read predicate and every filter
	// again: SQL's truth at this instant (a few primary-key lookups).
	rq := persist.SearchQuery{Filter: f, Limit: len(ids), Images: q.Images, MaxTextBytes: q.MaxTextBytes}
	rq.IDs = ids
	got, err := ft.st.Search(ctx, acc, rq)
	if err != nil {
		return persist.SearchResult{}, err
	}
	res.Entries = got.Entries
	// A full page of which SQL returned fewer entries (one changed since
	// the catch-up) may still be followed by more: a scan goes on.
	res.Cut = got.Cut || q.Limit > 0 && len(ids) == q.Limit && len(got.Entries) < len(ids)
	return res, nil
}

// pageCatalog is the catalog search_context's pages come from and the
// follower that catches it up; nil when there is none (closed, or
// search_context's own catalog is still being rebuilt).
func (ft *FullText) pageCatalog() (*catalog.Catalog, *follow.Follower) {
	switch {
	case ft.ix != nil:
		return ft.ix.Catalog(), ft.follow
	case ft.pages != nil && ft.pages.ready.Load():
		return ft.pages.cat, ft.pages.follow
	}
	return nil, nil
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// catalogConds converts validated conditions into the catalog's, with
// the values normalized as the SQL stores read them (sqlval.KindOf); ok
// is false when a value is not one the catalog compares (the store then
// answers, with its own error if any).
func catalogConds(ms []persist.MetaCond) ([]catalog.MetaCond, bool) {
	if len(ms) == 0 {
		return nil, true
	}
	out := make([]catalog.MetaCond, len(ms))
	for i, m := range ms {
		if len(m.Path) == 0 {
			return nil, false
		}
		for _, seg := range m.Path {
			if seg == "" || strings.ContainsAny(seg, "\"\x00") || !utf8.ValidString(seg) {
				return nil, false // SQL refuses the path (jsonPath)
			}
		}
		c := catalog.MetaCond{Path: m.Path, Op: m.Op, CaseSensitive: m.CaseSensitive}
		_, v, err := sqlval.KindOf(m.Value)
		if err != nil {
			return nil, false
		}
		c.Value = v
		for _, x := range m.Values {
			_, v, err := sqlval.KindOf(x)
			if err != nil || v == nil {
				return nil, false
			}
			c.Values = append(c.Values, v)
		}
		out[i] = c
	}
	return out, true
}
