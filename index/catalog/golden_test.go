package catalog

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/*.golden")

// goldenCatalog is a metadata catalog after a fixed history of puts,
// replacements and removes: grants of both kinds, repeated and duplicate
// tags, the bench's metadata and one unserved entry, summaries, image
// and node counts, and free ordinals.
func goldenCatalog() *Catalog {
	u := newUniverse(23)
	c := NewMeta()
	var ids []string
	for i := range 1200 {
		switch k := u.r.IntN(10); {
		case k < 7 || len(ids) == 0:
			e := u.entry(fmt.Sprintf("e%05d", i))
			e.Metadata, e.Length = benchMeta(i), uint32(u.r.IntN(300))
			e.Summarized, e.Images, e.Nodes = i%3 == 0, i%4, i%5
			if i%97 == 0 {
				e.Metadata = []byte(`{"p":1,"p":2}`) // duplicate key: unserved
			}
			c.Put(e)
			ids = append(ids, e.ID)
		case k < 9:
			e := u.entry(ids[u.r.IntN(len(ids))])
			e.Metadata = benchMeta(i)
			e.Summarized, e.Images, e.Nodes = i%2 == 0, i%3, i%7
			c.Put(e)
		default:
			c.Remove(ids[u.r.IntN(len(ids))])
		}
	}
	return c
}

// TestSnapshotGolden: the snapshot format does not change by accident.
// testdata/catalog.golden was rewritten when the format gained the
// summarized flag, the image and node counts (CXCATLG3; the version before was
// written by the catalog before slots were shapes, commit 762555c, and
// the shapes encoded it byte for byte): the same history must encode to
// the same bytes, so snapshots on disk stay valid, and decoding them
// gives the same catalog back.
func TestSnapshotGolden(t *testing.T) {
	path := filepath.Join("testdata", "catalog.golden")
	c := goldenCatalog()
	got := c.Encode(nil)
	if *updateGolden {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the snapshot of the golden history changed: %d bytes, golden %d (a format change needs a new magic)", len(got), len(want))
	}
	d, err := Decode(want)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(d.Encode(nil), want) || d.Len() != c.Len() || d.Tokens(nil) != c.Tokens(nil) {
		t.Fatal("the golden snapshot decodes to another catalog")
	}
}

// TestSnapshotV2: a snapshot written before the statistics counts
// (testdata/catalog-v2.golden, the golden history at commit 2942c88)
// still decodes, to a catalog that says it has no counts and encodes to
// the same bytes, so the vector index keeps its state snapshot; Stats'
// readers refuse it (OpenCatalog, readPageCatalog).
func TestSnapshotV2(t *testing.T) {
	old, err := os.ReadFile(filepath.Join("testdata", "catalog-v2.golden"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := Decode(old)
	if err != nil {
		t.Fatal(err)
	}
	c := goldenCatalog()
	if d.Counts() || !c.Counts() || d.Len() != c.Len() || d.Tokens(nil) != c.Tokens(nil) {
		t.Fatalf("v2 snapshot: counts %v (want false), %d entries (want %d)", d.Counts(), d.Len(), c.Len())
	}
	if !bytes.Equal(d.Encode(nil), old) {
		t.Fatal("a catalog without counts does not encode as version 2")
	}
	if d.Reset(); !d.Counts() {
		t.Fatal("a reset catalog has no counts")
	}
}
