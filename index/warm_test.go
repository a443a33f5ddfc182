package index

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/index/scorch"
)

// TestWarmSearch: after a restart, WarmSearch builds every segment's
// ordinal array and the large segments' block bounds ahead of the first
// search, whose answer is unchanged; a closed index says so.
func TestWarmSearch(t *testing.T) {
	old := warmMinDocs
	warmMinDocs = 1 // every segment counts as large here
	defer func() { warmMinDocs = old }()
	ix := restartedTestIndex(t)
	if err := ix.WarmSearch(); err != nil {
		t.Fatal(err)
	}
	if c := coldSegment(t, ix); c != "" {
		t.Fatalf("%s after the warm-up", c)
	}
	res, err := ix.Search(context.Background(), Query{Text: "refusing connections", Mode: "match", Access: Access{Principal: "alice"}, Size: 100})
	if err != nil || ids(res) != "02,01" {
		t.Fatalf("after the warm-up: %q, %v", ids(res), err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ix.WarmSearch(); err == nil {
		t.Fatal("a closed index warmed")
	}
}

// TestWarmAfterMerges: after a run of changes, once the merges they set
// off settle, every live segment has its ordinal array and blocks without
// a search or an idle upkeep asking for them.
func TestWarmAfterMerges(t *testing.T) {
	ctx := context.Background()
	ix := openWarmAll(t)
	ix.merges.warmed, ix.merges.stopped = make(chan struct{}, 1024), make(chan struct{}, 1024)
	for b := range 24 {
		var docs []Doc
		for i := range 40 {
			docs = append(docs, Doc{ID: fmt.Sprintf("d%02d%03d", b, i), Text: fmt.Sprintf("merge warm word%d batch%d", i%7, b), Owner: "alice",
				ThreadID: "t", Source: "user", ContentType: "text", CreatedAt: time.Unix(int64(i), 0)})
		}
		if err := ix.Apply(ctx, docs, nil, int64(b+1)); err != nil {
			t.Fatal(err)
		}
	}
	timeout := time.After(time.Minute)
	warmed := 0
	for stopped := false; !stopped; {
		select {
		case <-ix.merges.warmed:
			warmed++
		case <-ix.merges.stopped:
			stopped = true
		case <-timeout:
			t.Fatalf("the watcher still runs after %d warm-ups", warmed)
		}
	}
	if c := coldSegment(t, ix); c != "" || warmed == 0 {
		t.Fatalf("the merges settled after %d warm-ups and %s is cold", warmed, c)
	}
	res, err := ix.Search(ctx, Query{Text: "word3 batch5", Mode: "match", Access: Access{Principal: "alice"}, Size: 10})
	if err != nil || ids(res) != "d05038,d05031,d05024,d05017,d05010,d05003" {
		t.Fatalf("after the warm-ups: %q, %v", ids(res), err)
	}
}

// openWarmAll opens an index with a snapshot directory, closed when t
// ends, in which every segment counts as large enough for blocks and the
// merge watcher ticks every 5 ms (settled after 100 ms, not a second).
func openWarmAll(t *testing.T) *Index {
	t.Helper()
	old := warmMinDocs
	warmMinDocs = 1
	ix, err := Open(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ix.merges.tick = 5 * time.Millisecond
	t.Cleanup(func() {
		_ = ix.Close()
		warmMinDocs = old
	})
	return ix
}

// reopen closes ix and opens the snapshot in dir again, closed when t
// ends.
func reopen(t *testing.T, ix *Index, dir string) *Index {
	t.Helper()
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ix, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ix.Close() })
	return ix
}

// readSegments returns the segments of a reader of ix and the reader's
// close.
func readSegments(t *testing.T, ix *Index) ([]*scorch.SegmentSnapshot, func()) {
	t.Helper()
	adv, err := ix.bi.Advanced()
	if err != nil {
		t.Fatal(err)
	}
	r, err := adv.Reader()
	if err != nil {
		t.Fatal(err)
	}
	return r.(*scorch.IndexSnapshot).Segments(), func() { _ = r.Close() }
}

// coldSegment names a live segment of ix without its ordinal array or
// its blocks; "" when every one has both.
func coldSegment(t *testing.T, ix *Index) string {
	t.Helper()
	segs, done := readSegments(t, ix)
	defer done()
	for _, ss := range segs {
		ix.ords.mu.Lock()
		e := ix.ords.segs[ss.Id()]
		ix.ords.mu.Unlock()
		ix.blocks.mu.Lock()
		sb := ix.blocks.segs[ss.Segment()]
		ix.blocks.mu.Unlock()
		switch {
		case e == nil || e.ords == nil:
			return fmt.Sprintf("segment %d has no ordinal array", ss.Id())
		case sb == nil:
			return fmt.Sprintf("segment %d has no blocks", ss.Id())
		}
	}
	return ""
}
