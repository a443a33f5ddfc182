package index

import (
	"context"
	"testing"

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
	adv, _ := ix.bi.Advanced()
	r, _ := adv.Reader()
	segs := r.(*scorch.IndexSnapshot).Segments()
	for _, ss := range segs {
		ix.ords.mu.Lock()
		e := ix.ords.segs[ss.Id()]
		ix.ords.mu.Unlock()
		if e == nil || e.ords == nil {
			t.Fatalf("segment %d has no ordinal array after the warm-up", ss.Id())
		}
		ix.blocks.mu.Lock()
		sb := ix.blocks.segs[ss.Segment()]
		ix.blocks.mu.Unlock()
		if sb == nil {
			t.Fatalf("segment %d has no blocks after the warm-up", ss.Id())
		}
	}
	r.Close()
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
