package index

import (
	"context"
	"strings"
	"testing"
	"time"
)

// indexedBytes is scorch's count of the text bytes it has analysed.
func indexedBytes(t *testing.T, ix *Index) uint64 {
	t.Helper()
	st, ok := ix.bi.StatsMap()["index"].(map[string]any)
	if !ok {
		t.Fatal("no scorch statistics")
	}
	n, ok := st["TotIndexedPlainTextBytes"].(uint64)
	if !ok {
		t.Fatalf("TotIndexedPlainTextBytes is %T", st["TotIndexedPlainTextBytes"])
	}
	return n
}

// TestUnchangedLongTextNotReindexed: a long text applied again with only
// its catalog fields changed is not analysed again, every change of a
// field its Bleve document is made of is, and searches see each change.
func TestUnchangedLongTextNotReindexed(t *testing.T) {
	ctx := context.Background()
	ix, err := Open(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	long := strings.Repeat("walrus honey lantern ", fingerprintMin/21+1)
	base := Doc{ID: "k1", Text: long + "zebra", Owner: "alice", ThreadID: "t1", Source: "user", ContentType: "text", CreatedAt: t0}
	small := Doc{ID: "s1", Text: "a short note about zebra", Owner: "alice", ThreadID: "t1", Source: "user", ContentType: "text", CreatedAt: t0}
	seq := int64(1)
	apply := func(docs []Doc, dels []string) uint64 {
		t.Helper()
		before := indexedBytes(t, ix)
		seq++
		if err := ix.Apply(ctx, docs, dels, seq); err != nil {
			t.Fatal(err)
		}
		return indexedBytes(t, ix) - before
	}
	find := func(q Query) string {
		t.Helper()
		q.Access, q.Size = Access{Principal: "alice"}, 10
		res, err := ix.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		return ids(res)
	}
	if n := apply([]Doc{base, small}, nil); n < uint64(len(base.Text)+len(small.Text)) {
		t.Fatalf("first apply analysed %d bytes", n)
	}
	// Metadata is the catalog's: the long text is not analysed again, the
	// short one is (it is not tracked).
	meta := base
	meta.Metadata = []byte(`{"status":"Ready"}`)
	smallMeta := small
	smallMeta.Metadata = []byte(`{"status":"Ready"}`)
	// (scorch counts every field's bytes: the short note's are under
	// fingerprintMin, the long text's over it.)
	if n := apply([]Doc{meta, smallMeta}, nil); n < uint64(len(small.Text)) || n >= fingerprintMin {
		t.Fatalf("a metadata change analysed %d bytes, want the short note's %d and its fields", n, len(small.Text))
	}
	if got := find(Query{Text: "zebra"}); !sameSet(got, "k1,s1") {
		t.Fatalf("zebra after a metadata change: %q", got)
	}
	changes := map[string]func(d *Doc){
		"text":    func(d *Doc) { d.Text = long + "okapi" },
		"owner":   func(d *Doc) { d.Owner = "bob" },
		"public":  func(d *Doc) { d.Public = true },
		"readers": func(d *Doc) { d.Readers = []string{"u:carol"} },
		"thread":  func(d *Doc) { d.ThreadID = "t2" },
		"source":  func(d *Doc) { d.Source = "agent" },
		"ctype":   func(d *Doc) { d.ContentType = "multimodal" },
		"tags":    func(d *Doc) { d.Tags = []string{"x"} },
		"created": func(d *Doc) { d.CreatedAt = t0.Add(time.Microsecond) },
	}
	for name, change := range changes {
		d := meta
		change(&d)
		if n := apply([]Doc{d}, nil); n < uint64(len(d.Text)) {
			t.Errorf("%s changed: analysed %d bytes, want %d", name, n, len(d.Text))
		}
		if n := apply([]Doc{meta}, nil); n < uint64(len(meta.Text)) { // back
			t.Errorf("%s changed back: analysed %d bytes", name, n)
		}
	}
	moved := meta
	moved.ThreadID = "t2"
	apply([]Doc{moved}, nil)
	if got := find(Query{Text: "zebra", ThreadID: "t2"}); got != "k1" {
		t.Fatalf("zebra in t2 after the move: %q", got)
	}
	text := moved
	text.Text = long + "okapi"
	apply([]Doc{text}, nil)
	if got, old := find(Query{Text: "okapi"}), find(Query{Text: "zebra"}); got != "k1" || old != "s1" {
		t.Fatalf("after the text changed: okapi %q, zebra %q", got, old)
	}
	// A deleted text is indexed again when it comes back, and after a
	// Reset every text is.
	apply(nil, []string{"k1"})
	if n := apply([]Doc{text}, nil); n < uint64(len(text.Text)) {
		t.Fatalf("a text deleted and applied again analysed %d bytes", n)
	}
	if err := ix.Reset(); err != nil {
		t.Fatal(err)
	}
	if n := apply([]Doc{text}, nil); n < uint64(len(text.Text)) {
		t.Fatalf("a text applied after Reset analysed %d bytes", n)
	}
	if got := find(Query{Text: "okapi"}); got != "k1" {
		t.Fatalf("okapi after Reset: %q", got)
	}
}
