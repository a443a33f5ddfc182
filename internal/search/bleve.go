package search

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/contextd/contextd/index"
	"github.com/contextd/contextd/index/snapfmt"
	"github.com/contextd/contextd/internal/follow"
	"github.com/contextd/contextd/persist"
)

// This file keeps the in-process full-text index following the change
// log: rows are applied after every committed write (the follower's
// applier, woken by the store's commit hook) and caught up before every
// search, so two processes on one database see each other's writes; a
// missing, stale or corrupt snapshot is rebuilt from SQL with progress on
// stderr. The index never writes SQL, so an index failure can never
// modify the database.

// bleveTarget applies the change log to the full-text index.
type bleveTarget struct {
	st       persist.Store
	ix       *index.Index
	progress io.Writer
	follow   *follow.Follower
	changed  atomic.Int64 // entries applied since the last catalog snapshot
	lastSave time.Time    // of the catalog snapshot (the applier's goroutine)
}

// docOf converts a stored entry to the index's document.
func docOf(d *persist.IndexDoc) index.Doc {
	return index.Doc{
		ID: d.ID, Text: d.Text, Owner: d.Owner, Public: d.Visibility == visibilityPublic,
		Readers:  readers(d.Grants),
		ThreadID: d.ThreadID, Source: d.Source, ContentType: d.ContentType,
		Tags: d.Tags, CreatedAt: d.CreatedAt, Metadata: d.Metadata,
		Summarized: d.Summarized, Images: d.ImageCount, Nodes: d.NodeCount,
	}
}

// docsOf converts a page of stored entries.
func docsOf(docs []persist.IndexDoc) []index.Doc {
	out := make([]index.Doc, len(docs))
	for i := range docs {
		out[i] = docOf(&docs[i])
	}
	return out
}

func indexDocID(d *persist.IndexDoc) string { return d.ID }

// start brings the index up to date with the store: a rebuild when it is
// fresh or stale (its watermark is ahead of the database: another
// database, or a restored one), otherwise the access catalog is loaded
// and the follower resumes from the snapshot's watermark. The follower's
// Start catches up from there.
func (b *bleveTarget) start(ctx context.Context) error {
	wm, err := b.ix.Watermark()
	if err != nil {
		return err
	}
	head, err := b.st.LastSeq(ctx)
	if err != nil {
		return fmt.Errorf("full-text index: %w", err)
	}
	switch {
	case b.ix.Fresh():
		return b.rebuild(ctx, b.ix.Note(), false)
	case wm > head:
		return b.rebuild(ctx, fmt.Sprintf("snapshot watermark %d is ahead of the database (%d): stale", wm, head), true)
	}
	foreign := false
	cwm, why, err := b.ix.OpenCatalog(func(m snapfmt.Mark) (string, error) {
		why, err := m.Check(ctx, b.st)
		foreign = why != ""
		return why, err
	})
	if err != nil {
		return fmt.Errorf("full-text index: %w", err)
	}
	if foreign {
		// The catalog was saved with the Bleve data of another database
		// (or of a later state of a restored one): neither is this one's.
		return b.rebuild(ctx, why, true)
	}
	if why == "" {
		// The catalog may be older than the Bleve data: replay from the
		// older watermark (re-applying a row is idempotent for both).
		b.follow.Resume(min(cwm, wm))
		go func() { _ = b.ix.WarmSearch() }() // the first searches' arrays and bounds, ahead (index/warm.go)
		b.ix.Settle()                         // and a layout a load left, compacted (index/compact.go)
		return nil
	}
	b.follow.Resume(wm)
	if err := b.loadCatalog(ctx, why); err != nil {
		return err
	}
	b.ix.Settle()
	return nil
}

// rebuild indexes every entry from SQL. The watermark is the change-log
// head read before the scan (follow.Follower.Rebuild).
func (b *bleveTarget) rebuild(ctx context.Context, why string, reset bool) error {
	return b.follow.Rebuild(ctx, func(ctx context.Context, head int64) error {
		began := time.Now()
		if reset {
			if err := b.ix.Reset(); err != nil {
				return err
			}
		}
		say := b.ix.OnDisk() || head > 0
		if say {
			fmt.Fprintf(b.progress, "contextd: full-text index: %s; rebuilding from SQL\n", why)
		}
		n, err := rebuildScan(ctx, b.progress, "full-text index", "indexed", b.st.ScanIndexDocs, func(docs []persist.IndexDoc) error {
			return b.ix.Apply(ctx, docsOf(docs), nil, 0)
		})
		if err != nil {
			return err
		}
		if err := b.ix.Apply(ctx, nil, nil, head); err != nil {
			return err
		}
		if say {
			fmt.Fprintf(b.progress, "contextd: full-text index: rebuilt %d entries in %s\n", n, time.Since(began).Round(time.Millisecond))
		}
		b.changed.Add(int64(n)) // a large rebuild's catalog is saved soon
		return nil
	})
}

// Apply applies one batch of the change log. Each changed entry is
// re-read whole (text, access fields, grants), so insert, update and
// grant rows need no distinction; an entry that no longer exists is
// removed. The watermark is written in the same Bleve batch.
//
// The entries are read in parts of at most partBytes of text (a longer
// text alone), each analysed before the next is read, when the store
// tells the texts' sizes: the sixteen 10 MiB texts of one
// store_context_batch were otherwise all held while each was analysed.
func (b *bleveTarget) Apply(ctx context.Context, ids []string, last int64) error {
	parts, err := sizedParts(ctx, b.st, ids, partBytes)
	if err != nil {
		return fmt.Errorf("full-text index: %w", err)
	}
	err = b.ix.ApplyRead(ctx, len(parts), func(ctx context.Context, p int) ([]index.Doc, []string, error) {
		docs, dels, err := changedDocs(ctx, b.st, parts[p])
		if err != nil {
			return nil, nil, fmt.Errorf("full-text index: %w", err)
		}
		releaseLarge(ctx, b.st, docs)
		return docsOf(docs), dels, nil
	}, last)
	if err != nil {
		return err
	}
	b.changed.Add(int64(len(ids)))
	return nil
}

// MaybeSnapshot saves the catalog once enough has changed since the
// last save (the vector index's policy: snapEvery entries, snapGap), so
// a killed process replays a bounded tail of the change log; the Bleve
// data saves itself with every batch.
func (b *bleveTarget) MaybeSnapshot() {
	if b.changed.Load() >= snapEvery && time.Since(b.lastSave) >= snapGap {
		_ = b.saveCatalog(context.Background()) // a failed background save is retried later
	}
}

// saveCatalog writes the catalog snapshot beside the Bleve data.
func (b *bleveTarget) saveCatalog(ctx context.Context) error {
	if !b.ix.OnDisk() {
		return nil
	}
	b.changed.Store(0)
	b.lastSave = time.Now()
	wm, data, err := b.ix.CatalogSnapshot()
	if err != nil {
		return fmt.Errorf("full-text index: %w", err)
	}
	m, err := snapfmt.MarkAt(ctx, b.st, wm)
	if err == nil {
		err = b.ix.SaveCatalog(m, data)
	}
	if err != nil {
		return fmt.Errorf("full-text index: catalog snapshot: %w", err)
	}
	return nil
}

// rebuildScan pages through every entry for a rebuild of what (a
// follow.Scan of page), hands each batch to fn, says every ten batches how
// many entries are done ("contextd: <what>: N entries <done>") and
// returns their number. A cancelled ctx ends it between batches.
func rebuildScan(ctx context.Context, progress io.Writer, what, done string,
	page func(ctx context.Context, afterID string, limit int) ([]persist.IndexDoc, error), fn func([]persist.IndexDoc) error) (int, error) {
	n := 0
	err := follow.Scan(ctx, what+": rebuild", page, indexDocID, func(docs []persist.IndexDoc) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(docs); err != nil {
			return err
		}
		n += len(docs)
		if n%(10*follow.Batch) == 0 {
			fmt.Fprintf(progress, "contextd: %s: %d entries %s\n", what, n, done)
		}
		return nil
	})
	return n, err
}

// loadCatalog fills the in-memory catalog (the readable-set bitmaps of
// the prefilter) of an index opened from its snapshot, from SQL, when
// there is no usable catalog snapshot (why). The scan may be newer than
// the snapshot's watermark; the catch-up that follows re-applies the
// newer rows to both, which is idempotent.
func (b *bleveTarget) loadCatalog(ctx context.Context, why string) error {
	began := time.Now()
	n := 0
	err := follow.Scan(ctx, "full-text index: load access catalog", b.st.ScanAccessDocs, indexDocID, func(docs []persist.IndexDoc) error {
		ups := docsOf(docs)
		for i := range ups {
			ups[i].Text = "" // the catalog keeps access and filter fields only
		}
		b.ix.LoadCatalog(ups)
		n += len(docs)
		return nil
	})
	if err != nil {
		return err
	}
	if b.ix.OnDisk() { // a catalog snapshot was expected: say why it was not used
		d := time.Since(began)
		fmt.Fprintf(b.progress, "contextd: full-text index: %s; loaded the access catalog of %d entries from SQL in %s\n", why, n, d.Round(time.Millisecond))
	}
	return nil
}
