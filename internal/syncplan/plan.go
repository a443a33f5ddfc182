package syncplan

import (
	"context"
	"fmt"
	"sort"

	"github.com/contextd/contextd/persist"
)

// Planner answers plan_context_sync and list_ingest_state over a store.
type Planner struct {
	st persist.IngestReader
}

// New returns a Planner reading st.
func New(st persist.IngestReader) *Planner { return &Planner{st: st} }

// scanPage is how many rows one read of a plan takes: a plan streams the
// range page by page, so its memory is bounded by the manifest and the
// 100 listed deletes, not by the number of entries in the range.
const scanPage = 1000

// Plan compares the manifest with the caller's managed entries of the
// thread in the range and answers what to create, update and delete. It
// writes nothing.
func (p *Planner) Plan(ctx context.Context, acc persist.Access, req PlanRequest) (*Plan, error) {
	items, err := validate(req)
	if err != nil {
		return nil, err // refused before any read
	}
	out := &Plan{ThreadID: req.ThreadID, Creates: []int{}, Updates: []Update{}, Deletes: []Delete{}}
	bySource := make(map[string]int, len(items))
	for i, it := range items {
		bySource[it.SourceID] = i
		if it.Keep {
			out.KeptCount++
		}
	}
	planned := make([]bool, len(items)) // an owned entry exists for the item
	q := persist.IngestQuery{ThreadID: req.ThreadID, Scope: req.ThreadID,
		SourceAfter: req.SourceIDAfter, SourceThrough: req.SourceIDThrough, Limit: scanPage}
	var group []managed // the caller's entries of one source, id order
	flush := func() {
		if len(group) == 0 {
			return
		}
		i, named := bySource[group[0].SourceID]
		if named {
			planned[i] = true
		}
		p.planSource(out, items, i, named, group)
		group = group[:0]
	}
	err = p.scan(ctx, acc, q, func(r persist.IngestRow, b Block) bool {
		if r.Owner != acc.Principal {
			out.ForeignCount++ // readable, never planned
			return true
		}
		if len(group) > 0 && group[0].SourceID != r.SourceID {
			flush()
		}
		group = append(group, managed{IngestRow: r, block: b})
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("plan sync: %w", err)
	}
	flush()
	for i, it := range items {
		if !it.Keep && !planned[i] {
			out.Creates = append(out.Creates, i) // ascending
		}
	}
	sort.Slice(out.Updates, func(a, b int) bool { return out.Updates[a].Index < out.Updates[b].Index })
	return out, nil
}

// scan pages through the rows of q in (source_id, id) order and calls fn
// with each managed entry of the corpus (rows whose block is invalid or
// of another scope are skipped: A.9) until fn returns false. A page is
// q.Limit rows; the next one starts after the last row read.
func (p *Planner) scan(ctx context.Context, acc persist.Access, q persist.IngestQuery, fn func(persist.IngestRow, Block) bool) error {
	for {
		rows, err := p.st.IngestEntries(ctx, acc, q)
		if err != nil {
			return err
		}
		for _, r := range rows {
			b, ok := ParseBlock(r.Ingest)
			if !ok || b.Scope != q.Scope {
				continue
			}
			if !fn(r, b) {
				return nil
			}
		}
		if q.Limit <= 0 || len(rows) < q.Limit {
			return nil
		}
		last := rows[len(rows)-1]
		q.From = &persist.IngestPos{SourceID: last.SourceID, ID: last.ID}
	}
}

// managed is one of the caller's managed entries.
type managed struct {
	persist.IngestRow
	block Block
}

// planSource plans the caller's entries of one source (R-142..R-144).
// Entries arrive in (source_id, id) order, so deletes are appended in the
// order R-145 lists them.
func (p *Planner) planSource(out *Plan, items []Item, i int, named bool, group []managed) {
	if !named {
		for _, m := range group {
			addDelete(out, Delete{ContextID: m.ID, SourceID: m.SourceID})
		}
		return
	}
	it := items[i]
	if it.Keep {
		return // nothing planned, duplicates untouched
	}
	s := survivor(it, group)
	for k, m := range group {
		if k != s {
			addDelete(out, Delete{ContextID: m.ID, SourceID: m.SourceID, Reason: ReasonDuplicate})
		}
	}
	m := group[s]
	textDiffers := m.ContentHash == "" || m.ContentHash != it.TextDigest
	metaDiffers := m.block.MetaDigest != it.MetaDigest
	switch {
	case textDiffers && metaDiffers:
		out.Updates = append(out.Updates, Update{Index: i, ContextID: m.ID, Change: ChangeBoth})
	case textDiffers:
		out.Updates = append(out.Updates, Update{Index: i, ContextID: m.ID, Change: ChangeText})
	case metaDiffers:
		out.Updates = append(out.Updates, Update{Index: i, ContextID: m.ID, Change: ChangeMetadata})
	default:
		out.UnchangedCount++
	}
}

// survivor picks the entry of a source that a plan keeps: the one whose
// content hash matches the item, then whose meta_digest matches, then the
// newest (ids are UUIDv7: the greatest id is the newest).
func survivor(it Item, group []managed) int {
	best, bestScore := -1, -1
	for k, m := range group {
		score := 0
		if m.ContentHash != "" && m.ContentHash == it.TextDigest {
			score += 2
		}
		if m.block.MetaDigest == it.MetaDigest {
			score++
		}
		if score > bestScore || (score == bestScore && m.ID > group[best].ID) {
			best, bestScore = k, score
		}
	}
	return best
}

// addDelete counts a planned delete and lists it while the list has room.
func addDelete(out *Plan, d Delete) {
	out.DeletesTotal++
	if len(out.Deletes) < MaxDeletes {
		out.Deletes = append(out.Deletes, d)
	}
}
