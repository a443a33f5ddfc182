package index

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd/internal/memrelease"
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

// TestApplyReadHoldsTightGoal: a change read in parts keeps the tight
// collector goal from its first part to its last, also while a later part
// is read (between two groups the default goal came back).
func TestApplyReadHoldsTightGoal(t *testing.T) {
	orig := debug.SetGCPercent(100)
	defer debug.SetGCPercent(orig)
	ix, err := Open(Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ix.Close() })
	large := strings.Repeat("alpha beta gamma ", collectBytes/17+1)
	var during int
	read := func(_ context.Context, p int) ([]Doc, []string, error) {
		if p == 1 {
			during = debug.SetGCPercent(-1)
			debug.SetGCPercent(during)
		}
		return []Doc{{ID: fmt.Sprintf("%02d", p), Text: large, Owner: "u1", CreatedAt: time.Unix(1, 0)}}, nil, nil
	}
	if err := ix.ApplyRead(context.Background(), 2, read, 3); err != nil {
		t.Fatal(err)
	}
	if during != memrelease.TightPercent {
		t.Fatalf("goal %d while the second part was read, want %d", during, memrelease.TightPercent)
	}
	if g := debug.SetGCPercent(100); g != 100 {
		t.Fatalf("goal %d after the change, want 100 back", g)
	}
}

// TestGroupPercent: the analysis goal only for a group with a large text
// whose analysis weighs at least half the live heap; the call's tight goal
// for ordinary notes and over a large live heap.
func TestGroupPercent(t *testing.T) {
	large := []Doc{{Text: strings.Repeat("x", collectBytes)}, {Text: "note"}}
	notes := make([]Doc, 4096)
	for i := range notes {
		notes[i].Text = strings.Repeat("y", 1024)
	}
	for _, c := range []struct {
		name  string
		group []Doc
		live  uint64
		want  int
	}{
		{"large text, small heap", large, 10 << 20, analysisPercent},
		{"large text, heap twice its analysis", large, 2 * transientPerByte * (collectBytes + 4), analysisPercent},
		{"large text, larger heap", large, 2*transientPerByte*(collectBytes+4) + 1, memrelease.TightPercent},
		{"ordinary notes", notes, 1 << 20, memrelease.TightPercent},
	} {
		if got := groupPercent(c.group, groupBytes(c.group), c.live); got != c.want {
			t.Errorf("%s: goal %d, want %d", c.name, got, c.want)
		}
	}
}
