package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd/internal/testtier"
)

// rootSegments is the number of segments a search of ix visits.
func rootSegments(t *testing.T, ix *Index) int {
	t.Helper()
	st, ok := ix.bi.StatsMap()["index"].(map[string]any)
	if !ok {
		t.Fatal("no scorch statistics")
	}
	mem, _ := st["num_root_memorysegments"].(uint64)
	file, _ := st["num_root_filesegments"].(uint64)
	return int(mem + file)
}

// A scratch index merges the segments its batches leave, as a snapshot
// does, where one in memory keeps one segment a batch; both answer the
// same hits with the same scores. Its directory is gone after Close,
// and Reset empties it in place.
func TestScratchMergesSegments(t *testing.T) {
	const batches = 120
	ctx := context.Background()
	fill := func(o Options) *Index {
		ix, err := Open(o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ix.Close() })
		for b := range batches {
			docs := testDocs()
			for i := range docs {
				docs[i].ID = fmt.Sprintf("%03d-%s", b, docs[i].ID)
			}
			if err := ix.Apply(ctx, docs, nil, int64(b+1)); err != nil {
				t.Fatal(err)
			}
		}
		return ix
	}
	mem, scratch := fill(Options{}), fill(Options{Scratch: true})
	if n := rootSegments(t, mem); n < batches-1 {
		t.Fatalf("in memory: %d segments after %d batches, want about one a batch (the contrast this test relies on)", n, batches)
	}
	testtier.WaitFor(t, 60*time.Second, "the scratch index's merges", func() bool { return rootSegments(t, scratch) <= batches/10 })
	for _, q := range []string{"connection refused", "authentication", "python", "cafe"} {
		for _, acc := range []Access{{Principal: "alice"}, {Principal: "bob", Groups: []string{"team"}}} {
			a, err := mem.Search(ctx, Query{Text: q, Access: acc, Size: 1000})
			if err != nil {
				t.Fatal(err)
			}
			b, err := scratch.Search(ctx, Query{Text: q, Access: acc, Size: 1000})
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Hits) == 0 || len(a.Hits) != len(b.Hits) {
				t.Fatalf("%q as %s: %d hits in memory, %d in scratch", q, acc.Principal, len(a.Hits), len(b.Hits))
			}
			for i := range a.Hits {
				if a.Hits[i].ID != b.Hits[i].ID || fmt.Sprintf("%.9f", a.Hits[i].Score) != fmt.Sprintf("%.9f", b.Hits[i].Score) {
					t.Fatalf("%q as %s, hit %d: %s %.9f in memory, %s %.9f in scratch", q, acc.Principal, i, a.Hits[i].ID, a.Hits[i].Score, b.Hits[i].ID, b.Hits[i].Score)
				}
			}
		}
	}
	dir := scratch.scratch
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("scratch directory: %v", err)
	}
	if scratch.OnDisk() {
		t.Error("a scratch index reports a snapshot")
	}
	if err := scratch.Reset(); err != nil {
		t.Fatal(err)
	}
	if n, err := scratch.DocCount(); err != nil || n != 0 {
		t.Fatalf("after Reset: %d documents (%v)", n, err)
	}
	if err := scratch.Apply(ctx, testDocs(), nil, 7); err != nil {
		t.Fatal(err)
	}
	if err := scratch.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("scratch directory after Close: %v", err)
	}
}

// Without a writable temporary directory a scratch index stays in memory
// and says so.
func TestScratchWithoutTempDir(t *testing.T) {
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	ix := openTest(t, Options{Scratch: true})
	if ix.scratch != "" || !strings.Contains(ix.Note(), "in-memory index") {
		t.Fatalf("scratch %q, note %q", ix.scratch, ix.Note())
	}
	res, err := ix.Search(context.Background(), Query{Text: "python", Access: Access{Principal: "alice"}, Size: 10})
	if err != nil || len(res.Hits) != 2 {
		t.Fatalf("search: %d hits (%v)", len(res.Hits), err)
	}
}
