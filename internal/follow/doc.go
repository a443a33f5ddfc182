// Package follow owns how contextd's in-process indexes follow the store's
// change log: the one after-commit hook of a store (Feed), the watermark
// and the one applier loop of each index (Follower), the catch-up a search
// runs first, and the paging of a rebuild from the store (Scan). The
// snapshots' files (their framing, atomic write and change-log Mark) are
// index/snapfmt's, below the indexes that write them.
//
// An index implements Target; the follower hands it the distinct entry
// ids of each batch of change-log rows and advances its watermark once the
// batch is applied. Applying re-reads each entry whole, so replays are
// idempotent and insert, update, grant and delete rows need no
// distinction. The indexes never write to the store.
//
//	feed := follow.NewFeed(st)
//	f := feed.Follow("full-text index", target)
//	err := f.Rebuild(ctx, func(ctx context.Context, head int64) error { ... })
//	err = f.Start(ctx)    // catch up, then apply after every commit
//	err = f.CatchUp(ctx)  // before a search: what it sees is exact
//	ctx = feed.SharedRead(ctx) // a search of several indexes: one read for all
//	f.Stop()
//	feed.Close()
//
// A replica woken by another process's notification calls Feed.Notify,
// as the store's after-commit hook does.
package follow
