package ingest

import (
	"context"
	"fmt"
	"time"

	"github.com/contextd/contextd/internal/syncplan"
)

// batchSize is the most entries one batch tool call takes.
const batchSize = 100

// batchResult is the part of a store or update batch response a sync reads.
type batchResult struct {
	Results []struct {
		Index   int     `json:"index"`
		Success bool    `json:"success"`
		Error   *string `json:"error"`
	} `json:"results"`
}

// apply carries out one plan: creates with store_context_batch
// (deduplicate false: a corpus entry is never merged into another),
// updates with update_context_batch, the listed deletes with
// delete_context_batch. Batches are not atomic, so one refused document
// (too long, say) does not hold back the others; a refused document
// becomes a keep item for the rest of the run, and what is stored for it
// stays.
func (s *Syncer) apply(ctx context.Context, p *syncplan.Plan, r Range, docs []*Doc, items []syncplan.Item, sum *Summary) error {
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	fail := func(i int, why string) {
		items[i] = syncplan.Item{SourceID: items[i].SourceID, Keep: true}
		sum.Failures = append(sum.Failures, Failure{items[i].SourceID, why})
	}
	if err := s.loadTexts(ctx, p, docs, items, fail); err != nil {
		return err
	}
	for start := 0; start < len(p.Creates); start += batchSize {
		var idx []int
		for _, i := range p.Creates[start:min(start+batchSize, len(p.Creates))] {
			if docs[i] != nil && !docs[i].lazy {
				idx = append(idx, i)
			}
		}
		if len(idx) == 0 {
			continue
		}
		entries := make([]any, len(idx))
		for k, i := range idx {
			d := docs[i]
			e := map[string]any{"thread_id": s.Thread, "source": "agent", "text": d.Text,
				"metadata": d.metadata(s.Thread, now()), "deduplicate": false}
			s.Settings.apply(e)
			entries[k] = e
		}
		var res batchResult
		if err := call(ctx, s.Caller, "store_context_batch", map[string]any{"entries": entries, "atomic": false}, &res); err != nil {
			return fmt.Errorf("store range %s: %w", rangeName(r), err)
		}
		sum.Created += s.tally(res, idx, fail)
	}
	for start := 0; start < len(p.Updates); start += batchSize {
		var ups []syncplan.Update
		for _, u := range p.Updates[start:min(start+batchSize, len(p.Updates))] {
			if d := docs[u.Index]; d != nil && (!d.lazy || u.Change == syncplan.ChangeMetadata) {
				ups = append(ups, u)
			}
		}
		if len(ups) == 0 {
			continue
		}
		updates := make([]any, len(ups))
		idx := make([]int, len(ups))
		for k, u := range ups {
			d := docs[u.Index]
			idx[k] = u.Index
			e := map[string]any{"context_id": u.ContextID, "metadata": d.metadata(s.Thread, now())}
			if u.Change != syncplan.ChangeMetadata {
				e["text"] = d.Text // a metadata-only change regenerates nothing
			}
			s.Settings.apply(e)
			updates[k] = e
		}
		var res batchResult
		if err := call(ctx, s.Caller, "update_context_batch", map[string]any{"updates": updates, "atomic": false}, &res); err != nil {
			return fmt.Errorf("update range %s: %w", rangeName(r), err)
		}
		sum.Updated += s.tally(res, idx, fail)
	}
	if len(p.Deletes) > 0 {
		ids := make([]any, len(p.Deletes))
		for k, d := range p.Deletes {
			ids[k] = d.ContextID
		}
		var res struct {
			DeletedCount int `json:"deleted_count"`
		}
		if err := call(ctx, s.Caller, "delete_context_batch", map[string]any{"context_ids": ids}, &res); err != nil {
			return fmt.Errorf("delete range %s: %w", rangeName(r), err)
		}
		sum.Deleted += res.DeletedCount
	}
	return nil
}

// tally counts the successes of a batch and fails the rest; idx maps the
// batch's positions to manifest indices.
func (s *Syncer) tally(res batchResult, idx []int, fail func(i int, why string)) int {
	ok := 0
	seen := make([]bool, len(idx))
	for _, r := range res.Results {
		if r.Index < 0 || r.Index >= len(idx) {
			continue
		}
		seen[r.Index] = true
		if r.Success {
			ok++
			continue
		}
		why := "refused by the server"
		if r.Error != nil {
			why = *r.Error
		}
		fail(idx[r.Index], why)
	}
	for k, was := range seen {
		if !was {
			fail(idx[k], "no result from the server")
		}
	}
	return ok
}

// apply adds the corpus-wide tags and visibility to a store or update item.
func (st Settings) apply(e map[string]any) {
	if st.Tags != nil {
		e["tags"] = st.Tags
	}
	if st.Visibility != "" {
		e["visibility"] = st.Visibility
	}
}

// loadTexts extracts the documents a plan writes whose digests came from
// the cache. A file that no longer reads is failed (kept); one whose
// digests changed since they were cached is written as it is now, with its
// manifest item brought up to date.
func (s *Syncer) loadTexts(ctx context.Context, p *syncplan.Plan, docs []*Doc, items []syncplan.Item, fail func(int, string)) error {
	need := append([]int(nil), p.Creates...)
	for _, u := range p.Updates {
		if u.Change != syncplan.ChangeMetadata {
			need = append(need, u.Index)
		}
	}
	for _, i := range need {
		d := docs[i]
		if d == nil || !d.lazy {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		fresh, err := load(ctx, d.File, s.Settings, s.Extract)
		if err != nil {
			docs[i] = nil
			fail(i, reason(err))
			continue
		}
		s.Cache.put(fresh)
		docs[i] = fresh
		// The manifest now describes the file as read, so the next plan
		// compares the server with what was written.
		items[i] = syncplan.Item{SourceID: fresh.SourceID, TextDigest: fresh.TextDigest, MetaDigest: fresh.MetaDigest}
	}
	return nil
}
