package contextd

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/contextd/contextd/index"
	"github.com/contextd/contextd/persist"
)

// This file keeps the in-process full-text index following the SQL change
// log: rows are applied after every committed write (through the store's
// commit hook) and caught up before every search, so two processes on one
// database see each other's writes; a missing, stale or corrupt snapshot is
// rebuilt from SQL with progress on stderr. The index never writes SQL, so
// an index failure can never modify the database.

// followBatch is the number of change-log rows (and rebuild entries)
// applied per index batch.
const followBatch = 1000

// follower applies the change log to an index.
type follower struct {
	st       persist.Store
	ix       *index.Index
	progress io.Writer

	mu sync.Mutex // one catch-up at a time; guards wm
	wm int64      // the index's watermark

	// The commit hook only wakes the applier: a writer never waits for
	// the index, and writes that commit while a batch is being applied are
	// applied together in the next one. Searches still catch up first, so
	// what a search sees is exact.
	kick chan struct{}
	quit chan struct{}
	done chan struct{}
}

// docOf converts a stored entry to the index's document.
func docOf(d *persist.IndexDoc) index.Doc {
	out := index.Doc{
		ID: d.ID, Text: d.Text, Owner: d.Owner, Public: d.Visibility == VisibilityPublic,
		ThreadID: d.ThreadID, Source: d.Source, ContentType: d.ContentType,
		Tags: d.Tags, CreatedAt: d.CreatedAt,
	}
	// Read and write grants both confer READ; the index holds principals.
	for _, g := range d.Grants {
		switch g.PrincipalType {
		case "user":
			out.Readers = append(out.Readers, "u:"+g.PrincipalID)
		case "group":
			out.Readers = append(out.Readers, "g:"+g.PrincipalID)
		}
	}
	return out
}

// start brings the index up to date: a rebuild when it is fresh or stale
// (its watermark is ahead of the database: another database, or a restored
// one), then a catch-up.
func (f *follower) start(ctx context.Context) error {
	wm, err := f.ix.Watermark()
	if err != nil {
		return err
	}
	head, err := f.st.LastSeq(ctx)
	if err != nil {
		return fmt.Errorf("full-text index: %w", err)
	}
	switch {
	case f.ix.Fresh():
		if err := f.rebuild(ctx, f.ix.Note(), false); err != nil {
			return err
		}
	case wm > head:
		if err := f.rebuild(ctx, fmt.Sprintf("snapshot watermark %d is ahead of the database (%d): stale", wm, head), true); err != nil {
			return err
		}
	default:
		f.mu.Lock()
		f.wm = wm
		f.mu.Unlock()
		if err := f.loadCatalog(ctx); err != nil {
			return err
		}
	}
	return f.catchUp(ctx)
}

// rebuild indexes every entry from SQL. The watermark is the change-log
// head read before the scan: rows committed during the scan are replayed by
// the next catch-up (re-applying a row is idempotent).
func (f *follower) rebuild(ctx context.Context, why string, reset bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	began := time.Now()
	head, err := f.st.LastSeq(ctx)
	if err != nil {
		return fmt.Errorf("full-text index: %w", err)
	}
	if reset {
		if err := f.ix.Reset(); err != nil {
			return err
		}
	}
	say := f.ix.OnDisk() || head > 0
	if say {
		fmt.Fprintf(f.progress, "contextd: full-text index: %s; rebuilding from SQL\n", why)
	}
	after, n := "", 0
	for {
		docs, err := f.st.ScanIndexDocs(ctx, after, followBatch)
		if err != nil {
			return fmt.Errorf("full-text index: rebuild: %w", err)
		}
		if len(docs) == 0 {
			break
		}
		ups := make([]index.Doc, len(docs))
		for i := range docs {
			ups[i] = docOf(&docs[i])
		}
		if err := f.ix.Apply(ctx, ups, nil, 0); err != nil {
			return err
		}
		n += len(docs)
		after = docs[len(docs)-1].ID
		if n%(10*followBatch) == 0 {
			fmt.Fprintf(f.progress, "contextd: full-text index: %d entries indexed\n", n)
		}
	}
	if err := f.ix.Apply(ctx, nil, nil, head); err != nil {
		return err
	}
	f.wm = head
	if say {
		fmt.Fprintf(f.progress, "contextd: full-text index: rebuilt %d entries in %s\n", n, time.Since(began).Round(time.Millisecond))
	}
	return nil
}

// catchUp applies the change-log rows newer than the watermark. Each
// changed entry is re-read whole (text, access fields, grants), so insert,
// update and grant rows need no distinction; an entry that no longer
// exists is removed.
func (f *follower) catchUp(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	wm, err := followChanges(ctx, f.st, f.wm, "full-text index", func(ids []string, last int64) error {
		docs, err := f.st.IndexDocs(ctx, ids)
		if err != nil {
			return fmt.Errorf("full-text index: read entries: %w", err)
		}
		seen := make(map[string]bool, len(docs))
		ups := make([]index.Doc, len(docs))
		for i := range docs {
			ups[i] = docOf(&docs[i])
			seen[docs[i].ID] = true
		}
		var dels []string
		for _, id := range ids {
			if !seen[id] {
				dels = append(dels, id)
			}
		}
		return f.ix.Apply(ctx, ups, dels, last)
	})
	f.wm = wm
	return err
}

// afterCommit is the store's commit hook: wake the applier. A failure
// there is not the writer's: the next search catches up again.
func (f *follower) afterCommit(context.Context) {
	select {
	case f.kick <- struct{}{}:
	default: // already woken; it will see this commit too
	}
}

// runApplier applies committed changes in the background until stop.
func (f *follower) runApplier() {
	f.kick = make(chan struct{}, 1)
	f.quit = make(chan struct{})
	f.done = make(chan struct{})
	go func() {
		defer close(f.done)
		for {
			select {
			case <-f.quit:
				return
			case <-f.kick:
				_ = f.catchUp(context.Background())
			}
		}
	}()
}

// stop ends the applier after the batch it is applying, if any.
func (f *follower) stop() {
	if f.quit == nil {
		return
	}
	close(f.quit)
	<-f.done
	f.quit = nil
}

// defaultProgress is where rebuild progress goes when the configuration
// names no writer.
func defaultProgress(w io.Writer) io.Writer {
	if w == nil {
		return os.Stderr
	}
	return w
}
