package search

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/contextd/contextd/index/catalog"
	"github.com/contextd/contextd/internal/follow"
	"github.com/contextd/contextd/persist"
)

// This file keeps search_context's catalog when no in-process full-text
// index keeps one (SEARCH_BACKEND=native, or ENABLE_FTS=false): the
// access and filter bitmaps with the metadata columns (catalog.NewMeta),
// following the change log like the in-process indexes (applied after
// each commit, caught up before each page) and snapshotted with the Mark
// of its watermark (pagecatsnap.go). Without it the store answered these
// pages in SQL: at 100,000 entries a rare non-indexed metadata match took
// 156 ms median, `status starts_with "bl"` 56 ms and `thread_id +
// metadata status` 26 ms (2026-12-03, 2-core AMD EPYC, native backend on
// SQLite), where the catalog answers every filter of the bench in about a
// millisecond (README "Performance"). The catalog never writes SQL.

// pageCatalog is the catalog and its follower.
type pageCatalog struct {
	st       persist.Store
	cat      *catalog.Catalog
	follow   *follow.Follower
	path     string // the snapshot file; "" keeps the catalog in memory only
	progress io.Writer

	// mu makes a snapshot see the catalog exactly at wm: Apply changes
	// both under it.
	mu       sync.Mutex
	wm       int64
	changed  atomic.Int64 // entries applied since the last snapshot
	lastSave time.Time    // of the last snapshot (under mu)
}

// openPageCatalog loads the catalog from its snapshot in dir ("" keeps
// it in memory) or rebuilds it from SQL, and starts following feed.
func openPageCatalog(ctx context.Context, st persist.Store, feed *follow.Feed, dir string, progress io.Writer) (*pageCatalog, error) {
	pc := &pageCatalog{st: st, cat: catalog.NewMeta(), progress: progressOrStderr(progress), lastSave: time.Now()}
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("search_context catalog: %w", err)
		}
		pc.path = filepath.Join(dir, pageCatalogFile)
	}
	pc.follow = feed.Follow("search_context catalog", pc)
	if err := pc.start(ctx); err != nil {
		return nil, err
	}
	if err := pc.follow.Start(ctx); err != nil {
		return nil, err
	}
	return pc, nil
}

// start loads the snapshot when it is intact and its Mark is a row of
// this store's change log (the follower then replays the rows after it),
// otherwise rebuilds from SQL saying why.
func (pc *pageCatalog) start(ctx context.Context) error {
	if pc.path == "" {
		return pc.rebuild(ctx, "")
	}
	cat, m, why := readPageCatalog(pc.path)
	if why == "" {
		var err error
		if why, err = m.Check(ctx, pc.st); err != nil {
			return fmt.Errorf("search_context catalog: %w", err)
		}
	}
	if why != "" {
		return pc.rebuild(ctx, why)
	}
	pc.mu.Lock()
	pc.cat.Replace(cat)
	pc.wm = m.Seq
	pc.mu.Unlock()
	pc.follow.Resume(m.Seq)
	return nil
}

// rebuild fills the catalog from a scan of the access fields and
// metadata of every entry (no text); the watermark is the change-log
// head read before the scan (follow.Follower.Rebuild). why is said with
// the progress unless the catalog lives in memory over an empty store.
func (pc *pageCatalog) rebuild(ctx context.Context, why string) error {
	return pc.follow.Rebuild(ctx, func(ctx context.Context, head int64) error {
		began := time.Now()
		say := pc.path != "" || head > 0
		if say {
			if why == "" {
				why = "kept in memory"
			}
			fmt.Fprintf(pc.progress, "contextd: search_context catalog: %s; rebuilding from SQL\n", why)
		}
		fresh := catalog.NewMeta()
		n := 0
		err := follow.Scan(ctx, "search_context catalog: rebuild", pc.st.ScanAccessDocs, indexDocID, func(docs []persist.IndexDoc) error {
			for i := range docs {
				fresh.Put(pageEntry(&docs[i]))
			}
			n += len(docs)
			if n%(10*follow.Batch) == 0 {
				fmt.Fprintf(pc.progress, "contextd: search_context catalog: %d entries loaded\n", n)
			}
			return nil
		})
		if err != nil {
			return err
		}
		pc.mu.Lock()
		pc.cat.Replace(fresh)
		pc.wm = head
		pc.mu.Unlock()
		if say {
			fmt.Fprintf(pc.progress, "contextd: search_context catalog: rebuilt %d entries in %s\n", n, time.Since(began).Round(time.Millisecond))
		}
		pc.changed.Add(int64(n)) // a large rebuild is saved soon
		return nil
	})
}

// pageEntry converts a stored entry to the catalog's form, metadata
// included (the columns answer search_context's metadata conditions).
func pageEntry(d *persist.IndexDoc) catalog.Entry {
	e := catalogEntry(d)
	e.Metadata = d.Metadata
	return e
}

// Apply applies one batch of the change log: each changed entry is
// re-read whole (access fields, filters, metadata) and put again; one
// that no longer exists is removed.
func (pc *pageCatalog) Apply(ctx context.Context, ids []string, last int64) error {
	docs, err := pc.st.IndexDocs(ctx, ids)
	if err != nil {
		return fmt.Errorf("search_context catalog: read entries: %w", err)
	}
	seen := make(map[string]bool, len(docs))
	pc.mu.Lock()
	defer pc.mu.Unlock()
	for i := range docs {
		seen[docs[i].ID] = true
		pc.cat.Put(pageEntry(&docs[i]))
	}
	for _, id := range ids {
		if !seen[id] {
			pc.cat.Remove(id)
		}
	}
	pc.wm = last
	pc.changed.Add(int64(len(ids)))
	return nil
}

// MaybeSnapshot saves the catalog once enough has changed since the last
// save (the other indexes' policy: snapEvery entries and snapGap), so a
// killed process replays a bounded tail of the change log.
func (pc *pageCatalog) MaybeSnapshot() {
	pc.mu.Lock()
	due := pc.changed.Load() >= snapEvery && time.Since(pc.lastSave) >= snapGap
	pc.mu.Unlock()
	if due {
		_ = pc.save(context.Background()) // a failed background save is retried later
	}
}

// close stops the follower and saves the snapshot: the next start-up
// then replays only what was written after it.
func (pc *pageCatalog) close() error {
	pc.follow.Stop()
	return pc.save(context.Background())
}
