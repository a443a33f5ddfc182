package index

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/contextd/contextd/index/snapfmt"
)

// TestReleaseMapped: after a restart the index searches its segment
// files through their maps; releasing their pages covers those maps and
// leaves every answer as it was.
func TestReleaseMapped(t *testing.T) {
	ix := restartedTestIndex(t)
	defer ix.Close()
	q := Query{Text: "refusing connections", Mode: "match", Access: Access{Principal: "alice"}, Size: 100}
	before, err := ix.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	n, err := ix.ReleaseMapped()
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "linux" && n <= 0 {
		t.Fatal("no segment mapping was released")
	}
	after, err := ix.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if ids(before) != ids(after) || ids(after) != "02,01" {
		t.Fatalf("before %q, after %q, want 02,01", ids(before), ids(after))
	}
	// The ordinal arrays of a segment gone from the reader are dropped.
	ix.ords.get(1<<62, nil)
	if _, err := ix.ReleaseMapped(); err != nil {
		t.Fatal(err)
	}
	ix.ords.mu.Lock()
	_, stale := ix.ords.segs[1<<62]
	ix.ords.mu.Unlock()
	if stale {
		t.Fatal("the arrays of a segment not in the reader were kept")
	}
	// An index kept in memory has nothing mapped.
	mem := openTest(t, Options{})
	if _, err := mem.ReleaseMapped(); err != nil {
		t.Fatal(err)
	}
}

// restartedTestIndex is an on-disk index of testDocs closed and opened
// again with its catalog: it searches its persisted segment files through
// their maps. The caller closes it.
func restartedTestIndex(t *testing.T) *Index {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "db.index")
	ix := openTest(t, Options{Dir: dir}) // closed here; its cleanup's Close does nothing then
	seq, data, err := ix.CatalogSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.SaveCatalog(snapfmt.Mark{Seq: seq}, data); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	if ix, err = Open(Options{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	if _, why, err := ix.OpenCatalog(func(snapfmt.Mark) (string, error) { return "", nil }); err != nil || why != "" {
		t.Fatalf("catalog: %q %v", why, err)
	}
	return ix
}
