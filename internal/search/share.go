package search

import (
	"context"
	"time"

	"github.com/contextd/contextd/index/catalog"
	"github.com/contextd/contextd/persist"
)

// narrowShare: a caller who may read at most 1/narrowShare of the entries
// gets the aggregate views' narrow plan (persist.Access.Narrow). Per row
// read, the narrow plan costs 2.4-5x the whole-table pass on SQLite (at
// 100,000 entries of one owner: 217-276 against 72-90 ms of CPU for the
// entry counts, 335-378 against 63-72 ms for the tag counts), so it wins
// below a fifth; an eighth leaves a margin. Either way the work stays
// proportional to what the caller may read: the whole-table pass is only
// chosen when the caller reads more than an eighth of the rows it visits.
const narrowShare = 8

// Narrow returns acc with the plan hint persist.Access.Narrow set when the
// catalog (the full-text index's, or search_context's own) says acc may
// read at most 1/narrowShare of the stored entries outside the knowledge
// threads. The hint picks a plan and never changes an answer, so the
// catalog is not caught up for it; without a catalog acc is returned as
// it is.
func (ft *FullText) Narrow(acc persist.Access) persist.Access {
	if ft == nil {
		return acc
	}
	cat, _ := ft.pageCatalog()
	if cat == nil {
		return acc
	}
	total := uint64(cat.Len())
	readable := cat.Allowed(catalog.Query{Principal: acc.Principal, Groups: acc.Groups, OmitKnowledge: true}).GetCardinality()
	acc.Narrow = readable*narrowShare <= total
	return acc
}

// Threads answers list_threads from the catalog: the threads holding
// entries acc may read outside the knowledge threads, the latest activity
// first, limit 0 meaning all and offset applied after ordering, with the
// figures SQL's GROUP BY gives (TestThreadsOracle). ok is false without a
// catalog: the store answers. A pass over the caller's readable entries
// in memory: the web page's threads list at 100,000 entries of one
// principal took 119 ms in SQL.
func (ft *FullText) Threads(ctx context.Context, acc persist.Access, limit, offset int) (ts []persist.ThreadInfo, ok bool, err error) {
	if ft == nil {
		return nil, false, nil
	}
	cat, fol := ft.pageCatalog()
	if cat == nil {
		return nil, false, nil
	}
	if err := fol.CatchUp(ctx); err != nil {
		return nil, false, err
	}
	all := cat.Threads(catalog.Query{Principal: acc.Principal, Groups: acc.Groups, OmitKnowledge: true})
	all = all[min(max(offset, 0), len(all)):]
	if limit > 0 && limit < len(all) {
		all = all[:limit]
	}
	ts = make([]persist.ThreadInfo, len(all))
	for i, t := range all {
		ts[i] = persist.ThreadInfo{
			ThreadID: t.Thread, EntryCount: t.Count, SourceTypes: t.Sources, MultimodalCount: t.Multimodal,
			FirstEntry: time.UnixMicro(t.First).UTC(), LastEntry: time.UnixMicro(t.Last).UTC(), LastID: t.LastID,
		}
	}
	return ts, true, nil
}

// Counts are get_statistics' counts as the store's Stats and
// CountNodeSummaries give them.
type Counts struct {
	persist.Stats
	NodeSummaries int
}

// Stats answers get_statistics' counts from the catalog: the entries acc
// may read outside the knowledge threads by source and content type,
// those with a summary, their images and node summaries, the threads and
// the five most active, the distinct tags and the ten most used, as the
// store gives them (TestCatalogStats); DBSizeBytes is -1, the store's to
// fill.
// ok is false without a catalog: the store answers. The work is a pass
// over the caller's readable entries in memory, whatever the others
// stored: with Alice's 500 entries beside 15,000 of Bob's, SQL visited
// all 15,500 rows, or gathered her 500 through the owner, public and
// grant indexes at 2.4-5x the cost per row, and that step was timing
// Alice could see.
func (ft *FullText) Stats(ctx context.Context, acc persist.Access) (st Counts, ok bool, err error) {
	if ft == nil {
		return st, false, nil
	}
	cat, fol := ft.pageCatalog()
	if cat == nil || !cat.Counts() {
		return st, false, nil
	}
	if err := fol.CatchUp(ctx); err != nil {
		return st, false, err
	}
	c := cat.Stats(catalog.Query{Principal: acc.Principal, Groups: acc.Groups, OmitKnowledge: true}, 5, 10)
	st.Stats = persist.Stats{
		TotalEntries: c.Total, BySource: c.BySource, ByContentType: c.ByContentType,
		TotalImages: c.Images, UniqueTags: c.Tags, TotalThreads: c.Threads, SummaryCount: c.Summarized,
		MostActive: counts(c.TopThreads), TopTags: counts(c.TopTags), DBSizeBytes: -1,
	}
	st.NodeSummaries = c.Nodes
	return st, true, nil
}

func counts(ns []catalog.NameCount) []persist.Count {
	out := make([]persist.Count, len(ns))
	for i, n := range ns {
		out[i] = persist.Count{Name: n.Name, Count: n.Count}
	}
	return out
}
