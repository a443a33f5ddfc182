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
	// then (loaded or rebuilt in the background) pages come from SQL.
	ready  atomic.Bool
	cancel context.CancelFunc // ends the background start
	done   chan struct{}      // closed when the background start ends
}

// openPageCatalog starts search_context's catalog in dir ("" keeps it
// in memory) following feed. It is loaded from its snapshot, or rebuilt
// from SQL without a usable one, in the background, and pages come from
// SQL until it is ready. A start that fails (the store unreachable for a
// while, a read error) says why on the progress writer and is tried
// again, 1 s later and then twice as long each time up to a minute, until
// it succeeds or the engine closes. The rebuild reads every entry's access fields and
// metadata (2.0-2.6 s at 100,000 entries on the loaded 2-core machine,
// BenchmarkPageCatalogOpen) and even the snapshot takes 0.10-0.15 s to
// decode there: start-up (≤ 1 s with snapshots) pays neither
// for a catalog that only makes some filters faster.
func openPageCatalog(ctx context.Context, st persist.Store, feed *follow.Feed, dir string, progress io.Writer) *pageCatalog {
	pc := &pageCatalog{st: st, cat: catalog.NewMeta(), progress: progressOrStderr(progress), lastSave: time.Now()}
	if dir != "" {
		// The native backend needed no folder before: one that cannot be
		// made costs the snapshot (a rebuild at each start), not the
		// start-up.
		if err := os.MkdirAll(dir, 0o755); err != nil {
			fmt.Fprintf(pc.progress, "contextd: search_context catalog: %v; kept in memory\n", err)
		} else {
			pc.path = filepath.Join(dir, pageCatalogFile)
		}
	}
	pc.follow = feed.Follow("search_context catalog", pc)
	bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
	pc.cancel, pc.done = cancel, make(chan struct{})
	go func() {
		defer close(pc.done)
		for wait := pageRetryFirst; ; wait = min(2*wait, pageRetryMax) {
			err := pc.start(bg)
			if err == nil || bg.Err() != nil { // ready, or a shutdown
				return
			}
			fmt.Fprintf(pc.progress, "contextd: %v; pages are answered in SQL, trying again in %s\n", err, wait)
			select {
			case <-bg.Done():
				return
			case <-time.After(wait):
			}
		}
	}()
	return pc
}

// The background start's retry delays: short enough that a store back
// after a blip serves fast pages again within seconds, capped so a store
// gone for hours is asked once a minute, not in a loop.
const (
	pageRetryFirst = time.Second
	pageRetryMax   = time.Minute
)

// start loads or rebuilds the catalog, catches up and marks it ready; a
// rebuilt catalog is saved at once, so a process killed before its close
// does not rebuild again at the next start-up.
func (pc *pageCatalog) start(ctx context.Context) error {
	why, err := pc.load(ctx)
	if err == nil && why != "" {
		err = pc.rebuild(ctx, why)
	}
	if err == nil {
		err = pc.follow.Start(ctx)
	}
	if err != nil {
		return err
	}
	pc.ready.Store(true)
	if why != "" {
		if err := pc.save(ctx); err != nil && ctx.Err() == nil {
			fmt.Fprintf(pc.progress, "contextd: %v (saved again on close)\n", err)
		}
	}
	return nil
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

// wait returns once the background start has ended (tests).
func (pc *pageCatalog) wait() { <-pc.done }

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
		n, err := rebuildScan(ctx, pc.progress, "search_context catalog", "loaded", pc.st.ScanAccessDocs, func(docs []persist.IndexDoc) error {
			for i := range docs {
				fresh.Put(pageEntry(&docs[i]))
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
// re-read without its text (access fields, filters, metadata) and put
// again; one that no longer exists is removed.
func (pc *pageCatalog) Apply(ctx context.Context, ids []string, last int64) error {
	docs, dels, err := changedAccessDocs(ctx, pc.st, ids)
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

// close ends a background start, stops the follower and saves the
// snapshot of a ready catalog: the next start-up then replays only what
// was written after it.
func (pc *pageCatalog) close() error {
	pc.cancel()
	pc.wait()
	pc.follow.Stop()
	if !pc.ready.Load() {
		return nil
	}
	return pc.save(context.Background())
}
