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
// tags, the bench's metadata and one unserved entry, and free ordinals.
func goldenCatalog() *Catalog {
	u := newUniverse(23)
	c := NewMeta()
	var ids []string
	for i := range 1200 {
		switch k := u.r.IntN(10); {
		case k < 7 || len(ids) == 0:
			e := u.entry(fmt.Sprintf("e%05d", i))
			e.Metadata, e.Length = benchMeta(i), uint32(u.r.IntN(300))
			if i%97 == 0 {
				e.Metadata = []byte(`{"p":1,"p":2}`) // duplicate key: unserved
			}
			c.Put(e)
			ids = append(ids, e.ID)
		case k < 9:
			e := u.entry(ids[u.r.IntN(len(ids))])
			e.Metadata = benchMeta(i)
			c.Put(e)
		default:
			c.Remove(ids[u.r.IntN(len(ids))])
		}
	}
	return c
}

// TestSnapshotGolden: the snapshot format does not change by accident.
// testdata/catalog.golden was written by the catalog before slots were
// shapes (commit 762555c): the same history must encode to the same
// bytes, so snapshots on disk stay valid across the change, and decoding
// them gives the same catalog back.
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
