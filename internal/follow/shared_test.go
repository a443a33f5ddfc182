package follow

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/contextd/contextd/persist"
)

// countingFeed counts the change-log reads.
type countingFeed struct {
	*memFeed
	reads atomic.Int32
}

func (c *countingFeed) Changes(ctx context.Context, after int64, limit int) ([]persist.Change, error) {
	c.reads.Add(1)
	return c.memFeed.Changes(ctx, after, limit)
}

// TestSharedRead: two followers caught up with one call's shared read
// read the change log once and each applies every row after its own
// watermark; a follower behind the shared read, a new call and a read
// of a whole Batch read for themselves; a call without the mark reads
// per follower as before.
func TestSharedRead(t *testing.T) {
	src := &countingFeed{memFeed: &memFeed{}}
	feed := NewFeed(src)
	a, b := &recorder{}, &recorder{}
	fa, fb := feed.Follow("a", a), feed.Follow("b", b)
	src.commit("x", "y")
	reads := func(want int32) {
		t.Helper()
		if got := src.reads.Swap(0); got != want {
			t.Fatalf("%d change-log reads, want %d", got, want)
		}
	}
	both := func(ctx context.Context) {
		t.Helper()
		for _, f := range []*Follower{fa, fb} {
			if err := f.CatchUp(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	ctx := feed.SharedRead(context.Background())
	both(ctx)
	reads(1)
	if !slices.Equal(a.lasts, []int64{2}) || !slices.Equal(b.lasts, []int64{2}) || !slices.Equal(b.batches[0], []string{"x", "y"}) {
		t.Fatalf("applied a %v %v, b %v %v", a.batches, a.lasts, b.batches, b.lasts)
	}
	// A commit after the shared read: a new call sees it, once more
	// shared; the earlier call's read does not hold it.
	src.commit("z")
	ctx2 := feed.SharedRead(context.Background())
	both(ctx2)
	reads(1)
	if !slices.Equal(b.lasts, []int64{2, 3}) || !slices.Equal(b.batches[1], []string{"z"}) {
		t.Fatalf("b after z: %v %v", b.batches, b.lasts)
	}
	// A follower behind the shared read reads for itself.
	c := &recorder{}
	fc := feed.Follow("c", c)
	if err := fc.CatchUp(ctx2); err != nil {
		t.Fatal(err)
	}
	reads(1)
	if !slices.Equal(c.lasts, []int64{3}) {
		t.Fatalf("c: %v", c.lasts)
	}
	// Without the mark every catch-up reads.
	both(context.Background())
	reads(2)
	// A read of a whole Batch is not shared (the rest may lie beyond it):
	// a reads two pages, b its first page and then takes the rest from
	// a's second read.
	ids := make([]string, Batch+1)
	for i := range ids {
		ids[i] = "m"
	}
	src.commit(ids...)
	both(feed.SharedRead(context.Background()))
	reads(3)
	if last := b.lasts[len(b.lasts)-1]; last != int64(3+Batch+1) {
		t.Fatalf("b ends at %d", last)
	}
}
