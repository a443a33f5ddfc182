package follow

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contextd/contextd/persist"
)

// memFeed is an in-memory change log.
type memFeed struct {
	mu    sync.Mutex
	log   []persist.Change
	hook  func(context.Context)
	hooks int // AfterCommit calls with a function
	fail  error
}

func (m *memFeed) LastSeq(context.Context) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return 0, m.fail
	}
	return int64(len(m.log)), nil
}

func (m *memFeed) Changes(_ context.Context, after int64, limit int) ([]persist.Change, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return nil, m.fail
	}
	rest := m.log[min(int(after), len(m.log)):]
	return slices.Clone(rest[:min(limit, len(rest))]), nil
}

func (m *memFeed) AfterCommit(fn func(context.Context)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.hook = fn
	if fn != nil {
		m.hooks++
	}
}

// commit appends one row per id and runs the hook, as a store does after
// its transaction.
func (m *memFeed) commit(ids ...string) {
	m.mu.Lock()
	for _, id := range ids {
		m.log = append(m.log, persist.Change{Seq: int64(len(m.log) + 1), EntryID: id})
	}
	hook := m.hook
	m.mu.Unlock()
	if hook != nil {
		hook(context.Background())
	}
}

// recorder is a Target remembering every batch.
type recorder struct {
	mu      sync.Mutex
	batches [][]string
	lasts   []int64
	fail    error
	applied chan struct{}
	snaps   int
}

func (r *recorder) Apply(_ context.Context, ids []string, last int64) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail != nil {
		return r.fail
	}
	r.batches = append(r.batches, ids)
	r.lasts = append(r.lasts, last)
	return nil
}

func (r *recorder) MaybeSnapshot() {
	r.mu.Lock()
	r.snaps++
	r.mu.Unlock()
	if r.applied != nil {
		r.applied <- struct{}{}
	}
}

func TestCatchUpBatches(t *testing.T) {
	ctx := context.Background()
	src := &memFeed{}
	src.commit("a", "b", "a", "c")
	r := &recorder{}
	f := NewFeed(src).Follow("test index", r)
	if err := f.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	if want := [][]string{{"a", "b", "c"}}; !slices.EqualFunc(r.batches, want, slices.Equal) || r.lasts[0] != 4 {
		t.Fatalf("batches %v lasts %v: want %v ending at 4", r.batches, r.lasts, want)
	}
	// A long backlog is applied Batch rows at a time.
	ids := make([]string, 2*Batch+5)
	for i := range ids {
		ids[i] = fmt.Sprintf("e%d", i)
	}
	src.commit(ids...)
	if err := f.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	if got := r.lasts[1:]; !slices.Equal(got, []int64{4 + Batch, 4 + 2*Batch, 4 + 2*Batch + 5}) {
		t.Fatalf("backlog batches end at %v", got)
	}
	// Caught up: nothing more to apply.
	if err := f.CatchUp(ctx); err != nil || len(r.batches) != 4 {
		t.Fatalf("idle catch-up: %v, %d batches", err, len(r.batches))
	}
}

func TestApplyFailureKeepsWatermark(t *testing.T) {
	ctx := context.Background()
	src := &memFeed{}
	src.commit("a")
	boom := errors.New("boom")
	r := &recorder{fail: boom}
	f := NewFeed(src).Follow("test index", r)
	if err := f.CatchUp(ctx); !errors.Is(err, boom) {
		t.Fatalf("catch-up: %v", err)
	}
	r.fail = nil
	if err := f.CatchUp(ctx); err != nil || len(r.batches) != 1 || r.batches[0][0] != "a" {
		t.Fatalf("retry: %v, %v", err, r.batches)
	}
	src.fail = boom
	if err := f.CatchUp(ctx); err == nil || err.Error() != "test index: read change log: boom" {
		t.Fatalf("failing log: %v", err)
	}
}

func TestRebuildAndResume(t *testing.T) {
	ctx := context.Background()
	src := &memFeed{}
	src.commit("a", "b")
	r := &recorder{}
	f := NewFeed(src).Follow("test index", r)
	var saw int64
	if err := f.Rebuild(ctx, func(_ context.Context, head int64) error { saw = head; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := f.CatchUp(ctx); err != nil || saw != 2 || len(r.batches) != 0 {
		t.Fatalf("after rebuild at %d: %v, batches %v", saw, err, r.batches)
	}
	// A failed rebuild leaves the watermark where it was.
	src.commit("c")
	if err := f.Rebuild(ctx, func(context.Context, int64) error { return errors.New("scan failed") }); err == nil {
		t.Fatal("failed rebuild reported no error")
	}
	f.Resume(1)
	if err := f.CatchUp(ctx); err != nil || len(r.batches) != 1 || !slices.Equal(r.batches[0], []string{"b", "c"}) {
		t.Fatalf("resumed at 1: %v, %v", err, r.batches)
	}
	src.fail = errors.New("down")
	if err := f.Rebuild(ctx, func(context.Context, int64) error { return nil }); err == nil || err.Error() != "test index: down" {
		t.Fatalf("rebuild without a head: %v", err)
	}
}

// TestFeedWakesFollowers: one hook on the store wakes every started
// follower's applier; after Close no commit wakes them.
func TestFeedWakesFollowers(t *testing.T) {
	ctx := context.Background()
	src := &memFeed{}
	feed := NewFeed(src)
	a := &recorder{applied: make(chan struct{}, 16)}
	b := &recorder{applied: make(chan struct{}, 16)}
	fa, fb := feed.Follow("a", a), feed.Follow("b", b)
	for _, f := range []*Follower{fa, fb} {
		if err := f.Start(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if src.hooks != 1 {
		t.Fatalf("the feed registered %d hooks with the store, want 1", src.hooks)
	}
	src.commit("x")
	for _, r := range []*recorder{a, b} {
		select {
		case <-r.applied:
		case <-time.After(5 * time.Second):
			t.Fatal("a follower was not woken by the commit")
		}
		r.mu.Lock()
		got := slices.Concat(r.batches...)
		r.mu.Unlock()
		if !slices.Equal(got, []string{"x"}) {
			t.Fatalf("applied %v", got)
		}
	}
	// A stopped follower is not woken; the other still is.
	fb.Stop()
	src.commit("y")
	<-a.applied
	if len(b.applied) != 0 {
		t.Fatal("a stopped follower was woken")
	}
	feed.Close()
	if src.hook != nil {
		t.Fatal("Close left the hook registered")
	}
	fa.Stop()
	fa.Stop() // idempotent
	// A search still catches up the stopped follower.
	if err := fb.CatchUp(ctx); err != nil || !slices.Equal(slices.Concat(b.batches...), []string{"x", "y"}) {
		t.Fatalf("catch-up after stop: %v, %v", err, b.batches)
	}
}

func TestScanPages(t *testing.T) {
	ctx := context.Background()
	all := make([]string, 2*Batch+1)
	for i := range all {
		all[i] = fmt.Sprintf("%05d", i)
	}
	page := func(_ context.Context, after string, limit int) ([]string, error) {
		i, _ := slices.BinarySearch(all, after)
		if after != "" {
			i++
		}
		return all[min(i, len(all)):min(i+limit, len(all))], nil
	}
	var got []string
	pages := 0
	err := Scan(ctx, "scan", page, func(s *string) string { return *s }, func(p []string) error {
		pages++
		got = append(got, p...)
		return nil
	})
	if err != nil || pages != 3 || !slices.Equal(got, all) {
		t.Fatalf("scan: %v, %d pages, %d ids", err, pages, len(got))
	}
	fail := func(context.Context, string, int) ([]string, error) { return nil, errors.New("gone") }
	err = Scan(ctx, "test index: rebuild", fail, func(s *string) string { return *s }, func([]string) error { return nil })
	if err == nil || !strings.HasPrefix(err.Error(), "test index: rebuild: gone") {
		t.Fatalf("failing page: %v", err)
	}
}
