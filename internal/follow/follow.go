package follow

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/contextd/contextd/persist"
)

// Batch is the number of change-log rows (and rebuild entries) applied
// per index batch.
const Batch = 1000

// Target is an index that follows the change log.
type Target interface {
	// Apply brings the entries ids up to date with the store: each is
	// re-read whole, and one that no longer exists is removed. last is the
	// seq of the batch's last change-log row; it becomes the watermark
	// once Apply returns nil (an index that persists its watermark stores
	// it with the batch).
	Apply(ctx context.Context, ids []string, last int64) error
}

// Snapshotter is a Target that snapshots itself from time to time: the
// applier calls MaybeSnapshot after each background catch-up that
// succeeded, never in a writer's or a searcher's path.
type Snapshotter interface {
	MaybeSnapshot()
}

// Feed is the change log of one store as its followers share it: it holds
// the store's one after-commit hook and wakes every started follower from
// it.
type Feed struct {
	src persist.ChangeFeed

	mu        sync.Mutex // guards hooked and changes to followers
	hooked    bool
	followers atomic.Pointer[[]*Follower] // read without a lock by Notify
}

// NewFeed returns the feed of src. Nothing is registered with src until a
// follower starts.
func NewFeed(src persist.ChangeFeed) *Feed {
	return &Feed{src: src}
}

// Notify wakes every started follower. It never blocks: a follower
// already woken applies this change with the ones before it.
func (fd *Feed) Notify() {
	if fs := fd.followers.Load(); fs != nil {
		for _, f := range *fs {
			f.wake()
		}
	}
}

// afterCommit is the store's commit hook. A failure of the applier is not
// the writer's: the next search catches up again.
func (fd *Feed) afterCommit(context.Context) { fd.Notify() }

// subscribe adds f to the woken followers, registering the hook with the
// store the first time.
func (fd *Feed) subscribe(f *Follower) {
	fd.mu.Lock()
	defer fd.mu.Unlock()
	var fs []*Follower
	if cur := fd.followers.Load(); cur != nil {
		fs = slices.Clone(*cur)
	}
	fs = append(fs, f)
	fd.followers.Store(&fs)
	if !fd.hooked {
		fd.hooked = true
		fd.src.AfterCommit(fd.afterCommit)
	}
}

// unsubscribe removes f from the woken followers.
func (fd *Feed) unsubscribe(f *Follower) {
	fd.mu.Lock()
	defer fd.mu.Unlock()
	if cur := fd.followers.Load(); cur != nil {
		fs := slices.DeleteFunc(slices.Clone(*cur), func(g *Follower) bool { return g == f })
		fd.followers.Store(&fs)
	}
}

// Close detaches the feed from the store: no commit wakes a follower
// after it. The followers keep their state; Stop ends their appliers.
func (fd *Feed) Close() {
	fd.mu.Lock()
	defer fd.mu.Unlock()
	fd.src.AfterCommit(nil)
	fd.hooked = false
	fd.followers.Store(nil)
}

// Follow returns a follower applying the feed's change log to t; name
// names the index in errors ("full-text index"). It applies nothing until
// Rebuild, Resume or Start.
func (fd *Feed) Follow(name string, t Target) *Follower {
	return &Follower{feed: fd, name: name, t: t}
}

// Follower applies the change log to one index: it owns the index's
// watermark and its applier.
type Follower struct {
	feed *Feed
	name string
	t    Target

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

// Resume sets the watermark of an index opened from a snapshot: the
// catch-up applies the rows after it.
func (f *Follower) Resume(wm int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.wm = wm
}

// Rebuild fills the index from the store: fn receives the change-log head
// read before it runs and must make the index hold every entry, and the
// head becomes the watermark. Rows committed while fn runs are replayed by
// the next catch-up (re-applying a row is idempotent).
func (f *Follower) Rebuild(ctx context.Context, fn func(ctx context.Context, head int64) error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	head, err := f.feed.src.LastSeq(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", f.name, err)
	}
	if err := fn(ctx, head); err != nil {
		return err
	}
	f.wm = head
	return nil
}

// CatchUp applies the change-log rows newer than the watermark, in
// batches of Batch rows: the target receives the distinct entry ids of a
// batch (in first-change order) and the batch's last seq, which becomes
// the watermark once it is applied.
func (f *Follower) CatchUp(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for {
		chs, err := f.changes(ctx)
		if err != nil {
			return fmt.Errorf("%s: read change log: %w", f.name, err)
		}
		if len(chs) == 0 {
			return nil
		}
		seen := make(map[string]bool, len(chs))
		ids := make([]string, 0, len(chs))
		for _, c := range chs {
			if !seen[c.EntryID] {
				seen[c.EntryID] = true
				ids = append(ids, c.EntryID)
			}
		}
		last := chs[len(chs)-1].Seq
		if err := f.t.Apply(ctx, ids, last); err != nil {
			return err
		}
		f.wm = last
		if len(chs) < Batch {
			return nil
		}
	}
}

// Start catches up, then applies committed changes in the background
// until Stop: the applier is woken by every commit of the store.
func (f *Follower) Start(ctx context.Context) error {
	if err := f.CatchUp(ctx); err != nil {
		return err
	}
	f.kick = make(chan struct{}, 1)
	f.quit = make(chan struct{})
	f.done = make(chan struct{})
	go f.run()
	f.feed.subscribe(f)
	return nil
}

// run is the applier loop.
func (f *Follower) run() {
	defer close(f.done)
	snap, _ := f.t.(Snapshotter)
	for {
		select {
		case <-f.quit:
			return
		case <-f.kick:
			if f.CatchUp(context.Background()) == nil && snap != nil {
				snap.MaybeSnapshot()
			}
		}
	}
}

// wake wakes the applier without waiting.
func (f *Follower) wake() {
	select {
	case f.kick <- struct{}{}:
	default: // already woken; it will see this commit too
	}
}

// Stop ends the applier after the batch it is applying, if any. The
// watermark and CatchUp stay usable.
func (f *Follower) Stop() {
	if f.quit == nil {
		return
	}
	f.feed.unsubscribe(f)
	close(f.quit)
	<-f.done
	f.quit = nil
}

// Scan pages through every entry of the store in id order, Batch at a
// time: page reads the entries after an id (a persist.IndexSource or
// VectorStore scan), id names an entry, and fn receives each non-empty
// page. what prefixes the errors of page ("full-text index: rebuild").
func Scan[T any](ctx context.Context, what string, page func(ctx context.Context, afterID string, limit int) ([]T, error), id func(*T) string, fn func([]T) error) error {
	after := ""
	for {
		docs, err := page(ctx, after, Batch)
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if len(docs) == 0 {
			return nil
		}
		if err := fn(docs); err != nil {
			return err
		}
		after = id(&docs[len(docs)-1])
	}
}
