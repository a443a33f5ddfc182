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

	// ready: the catalog holds every entry and follows the log; until
	// then (a rebuild running in the background) pages come from SQL.
	ready  atomic.Bool
	cancel context.CancelFunc // ends the background rebuild
	done   chan struct{}      // closed when the background rebuild ends
}

// openPageCatalog loads the catalog from its snapshot in dir ("" keeps
// it in memory) and starts following feed. Without a usable snapshot
// the catalog is rebuilt from SQL in the background, and pages come from
// SQL until it is ready (for good if the rebuild fails: it says why on
// the progress writer): the rebuild reads every entry's access fields
// and metadata (about 0.2 s at 10,000 entries on the 2-core machine,
// which start-up without snapshots would otherwise pay for a catalog
// that only makes some filters faster).
func openPageCatalog(ctx context.Context, st persist.Store, feed *follow.Feed, dir string, progress io.Writer) (*pageCatalog, error) {
	pc := &pageCatalog{st: st, cat: catalog.NewMeta(), progress: progressOrStderr(progress), lastSave: time.Now()}
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("search_context catalog: %w", err)
		}
		pc.path = filepath.Join(dir, pageCatalogFile)
	}
	pc.follow = feed.Follow("search_context catalog", pc)
	why, err := pc.load(ctx)
	if err != nil {
		return nil, err
	}
	if why == "" {
		if err := pc.follow.Start(ctx); err != nil {
			return nil, err
		}
		pc.ready.Store(true)
		return pc, nil
	}
	bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
	pc.cancel, pc.done = cancel, make(chan struct{})
	go func() {
		defer close(pc.done)
		err := pc.rebuild(bg, why)
		if err == nil {
			err = pc.follow.Start(bg)
		}
		if err == nil {
			pc.ready.Store(true)
			// Saved now, so a process killed before its close does not
			// rebuild again at the next start-up.
			err = pc.save(bg)
		}
		if err != nil && bg.Err() == nil { // not a shutdown
			fmt.Fprintf(pc.progress, "contextd: search_context catalog: %v\n", err)
		}
	}()
	return pc, nil
}

// load reads the snapshot when it is intact and its Mark is a row of
// this store's change log (the follower then replays the rows after it);
// otherwise it says why the catalog must be rebuilt.
func (pc *pageCatalog) load(ctx context.Context) (string, error) {
	if pc.path == "" {
		return "kept in memory", nil
	}
	cat, m, why := readPageCatalog(pc.path)
	if why == "" {
		var err error
		if why, err = m.Check(ctx, pc.st); err != nil {
			return "", fmt.Errorf("search_context catalog: %w", err)
		}
	}
	if why != "" {
		return why, nil
	}
	pc.mu.Lock()
	pc.cat.Replace(cat)
	pc.wm = m.Seq
	pc.mu.Unlock()
	pc.follow.Resume(m.Seq)
	return "", nil
}

// wait returns once a background rebuild has ended (tests).
func (pc *pageCatalog) wait() {
	if pc.done != nil {
		<-pc.done
	}
}

// rebuild fills the catalog from a scan of the access fields and
// metadata of every entry (no text); the watermark is the change-log
// head read before the scan (follow.Follower.Rebuild). why is said with
// the progress unless the catalog lives in memory over an empty store.
// Cancelling ctx ends it between pages.
func (pc *pageCatalog) rebuild(ctx context.Context, why string) error {
	return pc.follow.Rebuild(ctx, func(ctx context.Context, head int64) error {
		began := time.Now()
		say := pc.path != "" || head > 0
		if say {
			fmt.Fprintf(pc.progress, "contextd: search_context catalog: %s; rebuilding from SQL\n", why)
		}
		fresh := catalog.NewMeta()
		n := 0
		err := follow.Scan(ctx, "search_context catalog: rebuild", pc.st.ScanAccessDocs, indexDocID, func(docs []persist.IndexDoc) error {
			if err := ctx.Err(); err != nil {
				return err
			}
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
	docs, dels, err := changedDocs(ctx, pc.st, ids)
	if err != nil {
		return fmt.Errorf("search_context catalog: %w", err)
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	for _, id := range dels {
		pc.cat.Remove(id)
	}
	for i := range docs {
		pc.cat.Put(pageEntry(&docs[i]))
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

// close ends a background rebuild, stops the follower and saves the
// snapshot of a ready catalog: the next start-up then replays only what
// was written after it.
func (pc *pageCatalog) close() error {
	if pc.cancel != nil {
		pc.cancel()
		pc.wait()
	}
	pc.follow.Stop()
	if !pc.ready.Load() {
		return nil
	}
	return pc.save(context.Background())
}
