package follow

import (
	"context"
	"sort"
	"sync"

	"github.com/contextd/contextd/persist"
)

// A search that consults several indexes of one feed (hybrid search: the
// full-text and the vector index) caught each up with a read of the
// change log of its own, one round trip each on PostgreSQL. SharedRead
// marks a call's context so that these catch-ups share one read: the
// first reads the rows after its watermark, and a later one whose
// watermark is not older takes the rows after its own from that read. A
// read made within the call began after the call did, so every write
// acknowledged before the call is in it, and what the search sees stays
// exact. A follower whose watermark is older, or a read that filled a
// whole Batch, reads for itself.

type sharedKey struct{}

// sharedRead is the change-log read of one call.
type sharedRead struct {
	mu    sync.Mutex // held while the read runs: the other legs wait for it
	feed  *Feed
	done  bool
	after int64
	rows  []persist.Change // every row after after (fewer than Batch)
}

// SharedRead returns ctx marked so that the catch-ups of the feed's
// followers made with it share one change-log read.
func (fd *Feed) SharedRead(ctx context.Context) context.Context {
	return context.WithValue(ctx, sharedKey{}, &sharedRead{feed: fd})
}

// changes reads the change-log rows after the watermark, at most Batch of
// them, from the call's shared read when it holds them all. The caller
// holds f.mu.
func (f *Follower) changes(ctx context.Context) ([]persist.Change, error) {
	sr, _ := ctx.Value(sharedKey{}).(*sharedRead)
	if sr == nil || sr.feed != f.feed {
		return f.feed.src.Changes(ctx, f.wm, Batch)
	}
	sr.mu.Lock()
	defer sr.mu.Unlock()
	if sr.done && sr.after <= f.wm {
		i := sort.Search(len(sr.rows), func(i int) bool { return sr.rows[i].Seq > f.wm })
		return sr.rows[i:], nil
	}
	chs, err := f.feed.src.Changes(ctx, f.wm, Batch)
	if err == nil && len(chs) < Batch && !sr.done {
		sr.done, sr.after, sr.rows = true, f.wm, chs
	}
	return chs, err
}
