package index

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"
)

// TestCompactBound: the tail is the smallest segments, as many as it
// takes for each segment left to hold compactRatio times the smaller ones
// together; a tail of one segment is nothing to merge.
func TestCompactBound(t *testing.T) {
	rep := func(n int, size uint64) []uint64 { return slices.Repeat([]uint64{size}, n) }
	for _, c := range []struct {
		name  string
		sizes []uint64
		bound uint64
		kept  int
	}{
		{"none", nil, 0, 0},
		{"one", []uint64{5}, 0, 1},
		{"small beside large", []uint64{1000, 1}, 0, 2},
		{"two small", []uint64{1000, 1, 1}, 2, 1},
		{"each at least four times the smaller together", []uint64{1, 4, 20, 100}, 0, 4},
		{"not quite", []uint64{1, 4, 16, 64}, 65, 0},
		{"just under the ratio", []uint64{1, 3}, 4, 0},
		{"one large and a tail (a 1M load)", slices.Concat([]uint64{916_000}, rep(8, 10_000), rep(8, 1_300)), 10_001, 1},
		{"tiers of equal size merge whole", slices.Concat(rep(10, 100_000), rep(8, 10_000), rep(7, 1_300)), 100_001, 0},
		{"empty segments go with the tail", []uint64{1000, 0, 0}, 1, 1},
	} {
		bound, kept := compactBound(c.sizes)
		if bound != c.bound || kept != c.kept {
			t.Errorf("%s: bound %d kept %d, want %d and %d", c.name, bound, kept, c.bound, c.kept)
		}
	}
}

// segmentSizes returns the live sizes of ix's segments, largest first,
// and their ids.
func segmentSizes(t *testing.T, ix *Index) ([]uint64, []uint64) {
	t.Helper()
	segs, done := readSegments(t, ix)
	defer done()
	var sizes, ids []uint64
	for _, ss := range segs {
		sizes, ids = append(sizes, ss.Count()), append(ids, ss.Id())
	}
	return sizes, ids
}

// applyBatches applies n changes of per documents each, numbered from
// first.
func applyBatches(t *testing.T, ix *Index, first, n, per int) {
	t.Helper()
	for b := first; b < first+n; b++ {
		docs := make([]Doc, per)
		for i := range docs {
			docs[i] = Doc{ID: fmt.Sprintf("c%03d-%05d", b, i), Text: fmt.Sprintf("compact word%d batch%d", i%11, b), Owner: "alice",
				ThreadID: "t", Source: "user", ContentType: "text", CreatedAt: time.Unix(int64(i), 0)}
		}
		if err := ix.Apply(context.Background(), docs, nil, int64(b+1)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCompactAfterChanges: changes Bleve's merge policy leaves as
// segments of equal size are merged into one once things settle, the
// result warm and answering as before; a segment large enough stays as
// it was, and WaitSettled waits for all of it.
func TestCompactAfterChanges(t *testing.T) {
	ctx := context.Background()
	ix := openWarmAll(t)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	applyBatches(t, ix, 0, 3, 2100)
	if err := ix.WaitSettled(cctx); err == nil {
		t.Fatal("WaitSettled returned before the watcher settled, with its context ended")
	}
	if err := ix.WaitSettled(ctx); err != nil {
		t.Fatal(err)
	}
	sizes, ids := segmentSizes(t, ix)
	if len(sizes) != 1 || sizes[0] != 6300 {
		t.Fatalf("settled segments %v, want one of 6300", sizes)
	}
	if c := coldSegment(t, ix); c != "" {
		t.Fatalf("after the compaction %s", c)
	}
	res, err := ix.Search(ctx, Query{Text: "word3 batch1", Mode: "match", Access: Access{Principal: "alice"}, Size: 1000})
	if err != nil || len(res.Hits) != 191 {
		t.Fatalf("after the compaction: %d hits, %v", len(res.Hits), err)
	}
	big := ids[0]
	applyBatches(t, ix, 3, 3, 20)
	if err := ix.WaitSettled(ctx); err != nil {
		t.Fatal(err)
	}
	sizes, ids = segmentSizes(t, ix)
	if b, _ := compactBound(sizes); b != 0 || !slices.Contains(ids, big) {
		t.Fatalf("settled segments %v (ids %v): the tail is left, or the large segment %d was merged", sizes, ids, big)
	}
}

// TestSettleCompactsSnapshot: a snapshot closed before its watcher
// settled keeps the segments its changes made; opened again, Settle
// compacts them without a change.
func TestSettleCompactsSnapshot(t *testing.T) {
	dir := t.TempDir()
	ix, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	applyBatches(t, ix, 0, 3, 2100)
	ix = reopen(t, ix, dir) // closed within the watcher's first second
	if sizes, _ := segmentSizes(t, ix); len(sizes) != 3 {
		t.Fatalf("reopened with segments %v, want the three changes'", sizes)
	}
	ix.merges.tick = 5 * time.Millisecond
	ix.Settle()
	if err := ix.WaitSettled(context.Background()); err != nil {
		t.Fatal(err)
	}
	if sizes, _ := segmentSizes(t, ix); len(sizes) != 1 || sizes[0] != 6300 {
		t.Fatalf("settled segments %v, want one of 6300", sizes)
	}
}
