package write

import (
	"context"
	"testing"
	"time"

	"github.com/contextd/contextd/internal/generate"
	"github.com/contextd/contextd/internal/ids"
	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/persist"
)

func TestStoreDeduplicates(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	w := New(st, nil, Options{Now: fixedClock()})
	first := mustStore(t, w, alice, "t", "hello")
	if first.Merged || first.Message != "Context stored" {
		t.Fatalf("first store = %+v", first)
	}
	v1 := get(t, st, alice, first.ID).Version
	again := mustStore(t, w, alice, "t", "  hello ")
	if !again.Merged || again.ID != first.ID || again.Message != "Context updated" {
		t.Fatalf("identical store = %+v, want a merge into %s", again, first.ID)
	}
	if v := get(t, st, alice, first.ID).Version; v != v1+1 {
		t.Fatalf("merged entry version = %d, want %d", v, v1+1)
	}
	other, err := w.Store(ctx, alice, validStore(t, "t", "world"))
	if err != nil || other.Merged || other.ID == first.ID {
		t.Fatalf("different text = %+v, %v: want a new entry", other, err)
	}
	// The latest entry of the thread is the candidate: the same text merges
	// into it, unless the store turns deduplication off.
	for _, dedup := range []bool{true, false} {
		s := validStore(t, "t", "world")
		s.Dedup = dedup
		out, err := w.Store(ctx, alice, s)
		if err != nil || out.Merged != dedup {
			t.Fatalf("dedup=%v: %+v, %v", dedup, out, err)
		}
	}
	// Another caller's identical entry is never a candidate.
	if out, err := w.Store(ctx, bob, validStore(t, "t", "world")); err != nil || out.Merged {
		t.Fatalf("other owner: %+v, %v", out, err)
	}
}

func TestStoreGrantsAuthorGroups(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	for _, authorGroups := range []bool{false, true} {
		w := New(st, nil, Options{AuthorGroupGrants: authorGroups})
		out, err := w.Store(ctx, alice, validStore(t, "g", "grants"))
		if err != nil {
			t.Fatal(err)
		}
		grants, err := st.Grants(ctx, out.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		if authorGroups {
			want = 1
		}
		if len(grants) != want {
			t.Fatalf("author groups %v: grants = %+v", authorGroups, grants)
		}
		if want == 1 && (grants[0].PrincipalType != PrincipalGroup || grants[0].PrincipalID != "team" || grants[0].Permission != PermissionRead || grants[0].GrantedBy != "alice") {
			t.Fatalf("grant = %+v", grants[0])
		}
		if err := st.Write(ctx, func(tx persist.Tx) error { _, err := tx.Delete(ctx, []string{out.ID}); return err }); err != nil {
			t.Fatal(err)
		}
	}
}

func TestStoreReusesCandidateSummary(t *testing.T) {
	st := openStore(t)
	sum := &countingSummarizer{}
	zero := 0
	gen := generate.New(generate.Options{
		Summary: generate.SummaryOptions{Summarizer: sum, MinContentLength: &zero},
		Nodes:   generate.NodeOptions{Disabled: true},
	})
	w := New(st, gen, Options{})
	first := mustStore(t, w, alice, "t", "hello")
	if first.Message != "Context stored (summary generated)" {
		t.Fatalf("message = %q", first.Message)
	}
	again := mustStore(t, w, alice, "t", "hello")
	if !again.Merged || again.Message != "Context updated (summary preserved)" || sum.calls.Load() != 1 {
		t.Fatalf("merge = %+v after %d summaries, want the candidate's summary kept", again, sum.calls.Load())
	}
	if s := get(t, st, alice, first.ID).Summary; s != "summary of hello" {
		t.Fatalf("summary = %q", s)
	}
}

// interleavingStore inserts another entry of alice into the thread at the
// start of the next writes, after the deduplication pre-check: the merge
// the pre-check planned cannot happen in that transaction.
type interleavingStore struct {
	persist.Store
	interleave int
	newID      func() string // the writer's, so the new entry sorts last
}

func (s *interleavingStore) Write(ctx context.Context, fn func(persist.Tx) error) error {
	return s.Store.Write(ctx, func(tx persist.Tx) error {
		if s.interleave > 0 {
			s.interleave--
			now := time.Now().UTC()
			if err := tx.Insert(ctx, &persist.Entry{
				ID: s.newID(), ThreadID: "t", Source: "user", ContentType: "text",
				Text: "interleaved", ContentHash: request.ContentHash("interleaved"),
				Owner: alice.ID, Visibility: "private", CreatedAt: now, UpdatedAt: now,
			}, nil); err != nil {
				return err
			}
		}
		return fn(tx)
	})
}

func TestStoreRegeneratesWhenTheMergeVanishes(t *testing.T) {
	ctx := context.Background()
	base := openStore(t)
	newID := ids.NewGenerator(nil).Next
	st := &interleavingStore{Store: base, newID: newID}
	sum := &countingSummarizer{}
	zero := 0
	gen := generate.New(generate.Options{
		Summary: generate.SummaryOptions{Summarizer: sum, MinContentLength: &zero},
		Nodes:   generate.NodeOptions{Disabled: true},
	})
	w := New(st, gen, Options{NewID: newID})
	first := mustStore(t, w, alice, "t", "hello")
	cases := []struct {
		interleave int
		merged     bool
		message    string
	}{
		// The first transaction rolls back with the interleaved entry; the
		// retry merges after all, with the regenerated summary.
		{1, true, "Context updated (summary generated)"},
		// The interleaved entry stays: the retry inserts.
		{2, false, "Context stored (summary generated)"},
	}
	for i, c := range cases {
		st.interleave = c.interleave
		out, err := w.Store(ctx, alice, validStore(t, "t", "hello"))
		if err != nil {
			t.Fatal(err)
		}
		if out.Merged != c.merged || (out.ID == first.ID) != c.merged || out.Message != c.message {
			t.Fatalf("interleave %d: store = %+v", c.interleave, out)
		}
		if n := sum.calls.Load(); int(n) != i+2 {
			t.Fatalf("interleave %d: %d summaries, want one regeneration", c.interleave, n)
		}
		if s := get(t, base, alice, out.ID).Summary; s != "summary of hello" {
			t.Fatalf("summary = %q, want the regenerated one", s)
		}
	}
}
