package index

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// Upserts applied in groups (one document a Bleve batch) leave the index
// the one batch leaves: the same hits with the same scores, the same
// count and watermark, deletes included.
func TestApplyInGroups(t *testing.T) {
	apply := func(group int) *Index {
		saved := applyGroupBytes
		applyGroupBytes = group
		defer func() { applyGroupBytes = saved }()
		ix, err := Open(Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ix.Close() })
		ctx := context.Background()
		if err := ix.Apply(ctx, testDocs(), nil, 7); err != nil {
			t.Fatal(err)
		}
		changed := testDocs()[1:3]
		changed[0].Text = "Connection refused again by the database server, twice."
		if err := ix.Apply(ctx, changed, []string{"05", "07"}, 9); err != nil {
			t.Fatal(err)
		}
		return ix
	}
	if got := textGroups(testDocs(), 40); len(got) != len(testDocs()) {
		t.Fatalf("%d groups of 40 bytes for %d documents longer than that", len(got), len(testDocs()))
	}
	// The same change read in parts, one document a part, the deletes
	// with the last part.
	parts := func() *Index {
		ix, err := Open(Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ix.Close() })
		ctx := context.Background()
		docs := testDocs()
		each := func(dels []string) func(context.Context, int) ([]Doc, []string, error) {
			return func(_ context.Context, p int) ([]Doc, []string, error) {
				if p == len(docs)-1 {
					return docs[p : p+1], dels, nil
				}
				return docs[p : p+1], nil, nil
			}
		}
		if err := ix.ApplyRead(ctx, len(docs), each(nil), 7); err != nil {
			t.Fatal(err)
		}
		docs = testDocs()[1:3]
		docs[0].Text = "Connection refused again by the database server, twice."
		// A part that cannot be read fails the change: the watermark
		// stays, so the change is applied again.
		failing := func(_ context.Context, p int) ([]Doc, []string, error) {
			if p == 1 {
				return nil, nil, fmt.Errorf("read part %d: gone", p)
			}
			return docs[p : p+1], nil, nil
		}
		if err := ix.ApplyRead(ctx, len(docs), failing, 9); err == nil {
			t.Fatal("a failed read applied the change")
		}
		if wm, err := ix.Watermark(); err != nil || wm != 7 {
			t.Fatalf("watermark %d (%v) after a failed read, want 7", wm, err)
		}
		if err := ix.ApplyRead(ctx, len(docs), each([]string{"05", "07"}), 9); err != nil {
			t.Fatal(err)
		}
		return ix
	}
	whole, grouped := apply(1<<30), apply(1)
	state := func(ix *Index) string {
		wm, err := ix.Watermark()
		if err != nil {
			t.Fatal(err)
		}
		n, err := ix.DocCount()
		if err != nil {
			t.Fatal(err)
		}
		out := fmt.Sprintf("watermark %d, %d documents", wm, n)
		for _, q := range []string{"connection refused", "authentication", "python", "secret", "cafe", "database server"} {
			for _, acc := range []Access{{Principal: "alice"}, {Principal: "bob"}} {
				res, err := ix.Search(context.Background(), Query{Text: q, Mode: "match", Access: acc, Size: 100})
				if err != nil {
					t.Fatal(err)
				}
				for _, h := range res.Hits {
					out += fmt.Sprintf("; %s %s %s %.6f", q, acc.Principal, h.ID, h.Score)
				}
			}
		}
		return out
	}
	if a, b := state(whole), state(grouped); a != b {
		t.Fatalf("one batch:\n%s\ngroups:\n%s", a, b)
	}
	if a, b := state(whole), state(parts()); a != b {
		t.Fatalf("one batch:\n%s\nread in parts:\n%s", a, b)
	}
}

// textGroups keeps every document, in order, in groups within the limit
// unless a document alone exceeds it.
func TestTextGroups(t *testing.T) {
	for _, sizes := range [][]int{{}, {5}, {1, 2, 3}, {10, 1, 1, 10}, {3, 3, 3, 3}, {20}, {0, 0, 0}} {
		var docs []Doc
		for i, n := range sizes {
			docs = append(docs, Doc{ID: fmt.Sprint(i), Text: string(make([]byte, n))})
		}
		groups := textGroups(docs, 6)
		var flat []Doc
		for _, g := range groups {
			n := 0
			for _, d := range g {
				n += len(d.Text)
			}
			if n > 6 && len(g) > 1 {
				t.Fatalf("%v: a group of %d documents holds %d bytes", sizes, len(g), n)
			}
			if len(g) == 0 && len(docs) > 0 {
				t.Fatalf("%v: an empty group", sizes)
			}
			flat = append(flat, g...)
		}
		if !slices.EqualFunc(flat, docs, func(a, b Doc) bool { return a.ID == b.ID }) {
			t.Fatalf("%v: groups %v lose or reorder documents", sizes, groups)
		}
	}
}
