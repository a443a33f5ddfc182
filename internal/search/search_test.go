package search

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/internal/follow"
	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlite"
)

// testStore opens a SQLite database file in dir.
func testStore(t testing.TB, dir string) persist.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), sqlite.Options{Path: filepath.Join(dir, "ctx.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

var t0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// put stores entry n (id derived from n) owned by owner, with vec as its
// one chunk vector when not nil.
func put(t *testing.T, st persist.Store, n int, owner, text string, vec []float32, grants ...persist.Grant) string {
	t.Helper()
	ctx := context.Background()
	id := fmt.Sprintf("%032x", n)
	err := st.Write(ctx, func(tx persist.Tx) error {
		e := &persist.Entry{ID: id, ThreadID: "t", Source: "user", ContentType: "text", Text: text,
			Owner: owner, Visibility: "private", CreatedAt: t0.Add(time.Duration(n) * time.Second), UpdatedAt: t0}
		if err := tx.Insert(ctx, e, grants); err != nil {
			return err
		}
		if vec == nil {
			return nil
		}
		return tx.AddEmbeddings(ctx, id, persist.Embeddings{Model: "test", Dim: len(vec),
			Chunks: []persist.ChunkVector{{Index: 0, Start: 0, End: len(text), Vector: vec}}})
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func del(t *testing.T, st persist.Store, ids ...string) {
	t.Helper()
	ctx := context.Background()
	if err := st.Write(ctx, func(tx persist.Tx) error { _, err := tx.Delete(ctx, ids); return err }); err != nil {
		t.Fatal(err)
	}
}

func ftsIDs(t *testing.T, ft *FullText, who, q string) []string {
	t.Helper()
	hits, _, err := ft.Rank(context.Background(), persist.Access{Principal: who}, FullTextQuery{Text: q, Depth: 100})
	ids := hitIDs(t, hits, err, func(h *FullTextHit) string { return h.ID })
	slices.Sort(ids)
	return ids
}

// hitIDs are the ids of a ranking, in order.
func hitIDs[H any](t *testing.T, hits []H, err error, id func(*H) string) []string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := range hits {
		ids = append(ids, id(&hits[i]))
	}
	return ids
}

func TestFullTextFollowsAndRebuilds(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := testStore(t, dir)
	idx := filepath.Join(dir, "ctx.db.index")
	open := func() (*FullText, *follow.Feed, string) {
		t.Helper()
		var progress bytes.Buffer
		feed := follow.NewFeed(st)
		ft, err := OpenFullText(ctx, st, feed, FullTextOptions{Dir: idx, Progress: &progress})
		if err != nil {
			t.Fatal(err)
		}
		return ft, feed, progress.String()
	}
	ft, feed, _ := open()
	a := put(t, st, 1, "alice", "heron by the river", nil)
	b := put(t, st, 2, "bob", "heron in the reeds", nil, persist.Grant{PrincipalType: "group", PrincipalID: "birders", Permission: "read"})
	if got := ftsIDs(t, ft, "alice", "heron"); !slices.Equal(got, []string{a}) {
		t.Fatalf("alice sees %v", got)
	}
	hits, _, err := ft.Rank(ctx, persist.Access{Principal: "carol", Groups: []string{"birders"}}, FullTextQuery{Text: "heron", Mode: persist.FullTextMatch, Depth: 100})
	if err != nil || len(hits) != 1 || hits[0].ID != b {
		t.Fatalf("a group grant: %v, %v", hits, err)
	}
	if eng, n, err := ft.Indexed(ctx, persist.Access{Principal: "alice"}, 1); err != nil || n != 1 || eng != "bleve scorch (bm25)" {
		t.Fatalf("indexed: %q %d %v", eng, n, err)
	}
	feed.Close()
	if err := ft.Close(); err != nil {
		t.Fatal(err)
	}

	// Writes the index never saw are caught up at the next open, from the
	// sealed snapshot: no rebuild.
	c := put(t, st, 3, "alice", "heron at dawn", nil)
	del(t, st, a)
	ft, feed, progress := open()
	if progress != "" {
		t.Fatalf("clean reopen: progress %q", progress)
	}
	if got := ftsIDs(t, ft, "alice", "heron"); !slices.Equal(got, []string{c}) {
		t.Fatalf("after catch-up alice sees %v, want [%s]", got, c)
	}
	feed.Close()
	_ = ft.Close()

	// A corrupt header is rebuilt from SQL.
	if err := os.WriteFile(filepath.Join(idx, "fts.json"), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	ft, feed, progress = open()
	if !strings.Contains(progress, "corrupt") || !strings.Contains(progress, "rebuilt 2 entries") {
		t.Fatalf("corrupt header: progress %q", progress)
	}
	if got := ftsIDs(t, ft, "alice", "heron"); !slices.Equal(got, []string{c}) {
		t.Fatalf("after rebuild alice sees %v", got)
	}
	feed.Close()
	_ = ft.Close()

	// The snapshot over a new, empty database is ahead of its change log.
	st2 := testStore(t, t.TempDir())
	var p2 bytes.Buffer
	feed2 := follow.NewFeed(st2)
	ft2, err := OpenFullText(ctx, st2, feed2, FullTextOptions{Dir: idx, Progress: &p2})
	if err != nil {
		t.Fatal(err)
	}
	defer ft2.Close()
	defer feed2.Close()
	if !strings.Contains(p2.String(), "stale") {
		t.Fatalf("stale snapshot: progress %q", p2.String())
	}
	if got := ftsIDs(t, ft2, "alice", "heron"); len(got) != 0 {
		t.Fatalf("stale snapshot still answers %v", got)
	}
}

func TestFullTextOptions(t *testing.T) {
	ctx := context.Background()
	st := testStore(t, t.TempDir())
	feed := follow.NewFeed(st)
	defer feed.Close()
	for _, tc := range []struct {
		o    FullTextOptions
		want string
	}{
		{FullTextOptions{Language: "klingon"}, `full-text language must be one of`},
		{FullTextOptions{Backend: "elastic"}, `full-text backend must be in-process or native, got "elastic"`},
	} {
		_, err := OpenFullText(ctx, st, feed, tc.o)
		if !errors.Is(err, cerrors.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%+v: %v", tc.o, err)
		}
	}
	off, err := OpenFullText(ctx, st, feed, FullTextOptions{Disable: true})
	if err != nil || off.Enabled() || off.Unavailable() != "Full-text search is disabled (ENABLE_FTS=false)" || off.Index() != nil {
		t.Fatalf("disabled: %v %+v", err, off)
	}
	if err := off.Close(); err != nil {
		t.Fatal(err)
	}
	nat, err := OpenFullText(ctx, st, feed, FullTextOptions{Backend: Native})
	if err != nil || nat.Unavailable() != "" || nat.Backend() != Native || nat.CollectionStats(persist.Access{Principal: "p"}) == nil {
		t.Fatalf("native: %v %+v", err, nat)
	}
	if err := nat.Close(); err != nil {
		t.Fatal(err)
	}
}

// unit is a 4-dimensional vector along axis i, scaled.
func unit(i int, scale float32) []float32 {
	v := make([]float32, 4)
	v[i] = scale
	return v
}

func vecIDs(t *testing.T, vs *Vectors, who string, q []float32) []string {
	t.Helper()
	hits, _, err := vs.Rank(context.Background(), persist.Access{Principal: who}, VectorQuery{Vector: q, Depth: 100})
	return hitIDs(t, hits, err, func(h *VectorHit) string { return h.ID })
}

func TestVectorsFollowAndReconcile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := testStore(t, dir)
	vdir := filepath.Join(dir, "ctx.db.vectors")
	open := func() (*Vectors, *follow.Feed, string) {
		t.Helper()
		var progress bytes.Buffer
		feed := follow.NewFeed(st)
		vs, err := OpenVectors(ctx, st, feed, VectorOptions{Dim: 4, Dir: vdir, Progress: &progress})
		if err != nil {
			t.Fatal(err)
		}
		return vs, feed, progress.String()
	}
	vs, feed, _ := open()
	a := put(t, st, 1, "alice", "near", unit(0, 1))
	b := put(t, st, 2, "alice", "far", unit(0, 3))
	put(t, st, 3, "bob", "bob's", unit(0, 1))
	put(t, st, 4, "alice", "no vectors", nil)
	if got := vecIDs(t, vs, "alice", unit(0, 1)); !slices.Equal(got, []string{a, b}) {
		t.Fatalf("alice's ranking %v, want [%s %s]", got, a, b)
	}
	if e, c := vs.Counts(persist.Access{Principal: "alice"}); e != 2 || c != 2 {
		t.Fatalf("counts %d entries %d chunks", e, c)
	}
	feed.Close()
	if err := vs.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(vdir, vectorSnapshotFile)); err != nil {
		t.Fatalf("no snapshot after close: %v", err)
	}

	// A snapshot of any age is reconciled with SQL.
	del(t, st, a)
	c := put(t, st, 5, "alice", "nearest", unit(0, 1.5))
	vs, feed, _ = open()
	if got := vecIDs(t, vs, "alice", unit(0, 1)); !slices.Equal(got, []string{c, b}) {
		t.Fatalf("after reconcile %v, want [%s %s]", got, c, b)
	}
	feed.Close()
	_ = vs.Close()

	// A corrupt snapshot is rebuilt from SQL, with the reason.
	if err := os.WriteFile(filepath.Join(vdir, vectorSnapshotFile), []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	vs, feed, progress := open()
	defer vs.Close()
	defer feed.Close()
	if !strings.Contains(progress, "snapshot unusable") || !strings.Contains(progress, "3 chunk vectors added") {
		t.Fatalf("corrupt snapshot: progress %q", progress)
	}
	if got := vecIDs(t, vs, "alice", unit(0, 1)); !slices.Equal(got, []string{c, b}) {
		t.Fatalf("after rebuild %v", got)
	}
}

func TestVectorsBackends(t *testing.T) {
	ctx := context.Background()
	st := testStore(t, t.TempDir())
	feed := follow.NewFeed(st)
	defer feed.Close()
	if _, err := OpenVectors(ctx, st, feed, VectorOptions{Backend: "faiss", Dim: 4}); !errors.Is(err, cerrors.ErrInvalid) ||
		err.Error() != `vector backend must be in-process or native, got "faiss"` {
		t.Fatalf("unknown backend: %v", err)
	}
	a := put(t, st, 1, "alice", "near", unit(1, 1))
	nat, err := OpenVectors(ctx, st, feed, VectorOptions{Backend: Native, Dim: 4})
	if err != nil || nat.Unavailable() != "" {
		t.Fatalf("native: %v %+v", err, nat)
	}
	defer nat.Close()
	if got := vecIDs(t, nat, "alice", unit(1, 1)); !slices.Equal(got, []string{a}) {
		t.Fatalf("native ranking %v", got)
	}
}
