package search

import (
	"cmp"
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/contextd/contextd/internal/follow"
	"github.com/contextd/contextd/persist"
)

// TestNarrow: the aggregate plan hint is set for a caller who reads at
// most an eighth of the entries (knowledge threads are not the caller's
// to count) and for no other, with every catalog; without a catalog the
// access is left as it is.
func TestNarrow(t *testing.T) {
	eachCatalogMode(t, func(t *testing.T, mode FullTextOptions) {
		ctx := context.Background()
		dir := t.TempDir()
		st := testStore(t, dir)
		// alice owns 10 of 100 entries and reads 2 public ones of
		// bob's; carol owns 60 knowledge entries; dave is granted
		// 3 of bob's private entries.
		err := st.Write(ctx, func(tx persist.Tx) error {
			for n := range 160 {
				e := persist.Entry{ID: fmt.Sprintf("%032x", n+1), ThreadID: "t", Source: "user", ContentType: "text",
					Text: "x", Owner: "bob", Visibility: "private", CreatedAt: t0, UpdatedAt: t0}
				var gs []persist.Grant
				switch {
				case n < 10:
					e.Owner = "alice"
				case n < 12:
					e.Visibility = "public"
				case n < 15:
					gs = []persist.Grant{{PrincipalType: "user", PrincipalID: "dave", Permission: "read", GrantedBy: "bob"}}
				case n >= 100:
					e.Owner, e.ThreadID = "carol", persist.KnowledgeThread
				}
				if err := tx.Insert(ctx, &e, gs); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		ft := openCatalog(t, st, dir, mode)
		// 160 entries: an eighth is 20.
		for _, c := range []struct {
			acc  persist.Access
			want bool
		}{
			{persist.Access{Principal: "alice"}, true},  // 12 readable
			{persist.Access{Principal: "dave"}, true},   // 5
			{persist.Access{Principal: "carol"}, true},  // 2: her 60 are knowledge
			{persist.Access{Principal: "bob"}, false},   // 90
			{persist.Access{Principal: "nobody"}, true}, // 2
		} {
			if got := ft.Narrow(c.acc); got.Narrow != c.want || got.Principal != c.acc.Principal {
				t.Errorf("Narrow(%s) = %+v, want Narrow %v", c.acc.Principal, got, c.want)
			}
		}
	})
	var none *FullText
	if got := none.Narrow(persist.Access{Principal: "a"}); got.Narrow {
		t.Fatalf("no full-text side: %+v", got)
	}
}

// TestThreadsOracle: list_threads answered from a catalog equals the
// store's answer (the SQL GROUP BY, whole-table plan) for random callers
// and pages over random entries with grants, ties of creation times and
// knowledge threads, before and after random updates, grants and deletes.
func TestThreadsOracle(t *testing.T) {
	eachCatalogMode(t, func(t *testing.T, mode FullTextOptions) {
		t.Parallel()
		ctx := context.Background()
		dir := t.TempDir()
		st := testStore(t, dir)
		w := newPageWorld(28)
		const n = 300
		w.insert(t, st, 0, n)
		err := st.Write(ctx, func(tx persist.Tx) error {
			for i, th := range []string{persist.KnowledgeThread, persist.KnowledgeThreadPrefix + "c1", "knowledgeable"} {
				e, gs := w.entry(n + i)
				e.ThreadID = th
				if err := tx.Insert(ctx, &e, gs); err != nil {
					return err
				}
			}
			// Entries sharing a few shapes (random entries rarely
			// do), so the per-shape tallies hold many entries each.
			for i := range 200 {
				e := persist.Entry{ID: fmt.Sprintf("%032x", 1000+i), ThreadID: fmt.Sprintf("s%d", i%3), Source: "user",
					ContentType: "text", Text: "x", Owner: w.users[i%2], Visibility: "private",
					CreatedAt: t0.Add(time.Duration(w.r.IntN(60)) * time.Second), UpdatedAt: t0}
				if err := tx.Insert(ctx, &e, nil); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		ft := openCatalog(t, st, dir, mode)
		for round := range 3 {
			if round > 0 {
				w.churn(t, st, n, 60)
			}
			for _, u := range append(w.users, "nobody") {
				for _, groups := range [][]string{nil, {"g1"}} {
					acc := persist.Access{Principal: u, Groups: groups}
					for _, pg := range [][2]int{{0, 0}, {1, 0}, {2, 1}, {5, 2}, {0, 3}} {
						want, err := st.ListThreads(ctx, acc, pg[0], pg[1])
						if err != nil {
							t.Fatal(err)
						}
						got, ok, err := ft.Threads(ctx, acc, pg[0], pg[1])
						if err != nil || !ok {
							t.Fatalf("Threads: %v, %v", ok, err)
						}
						if len(want) == 0 {
							want = []persist.ThreadInfo{}
						}
						if !reflect.DeepEqual(got, want) {
							t.Fatalf("round %d %+v page %v:\ncatalog %+v\nSQL     %+v", round, acc, pg, got, want)
						}
					}
				}
			}
		}
	})
}

// eachCatalogMode runs f in a subtest for each catalog search_context
// and list_threads can read: the in-process index's, and search_context's
// own with the native backend and with full-text search off.
func eachCatalogMode(t *testing.T, f func(t *testing.T, mode FullTextOptions)) {
	for _, mode := range []FullTextOptions{{}, {Backend: Native}, {Disable: true}} {
		name := cmp.Or(mode.Backend, InProcess)
		if mode.Disable {
			name = "fts-off"
		}
		t.Run(name, func(t *testing.T) { f(t, mode) })
	}
}

// openCatalog opens the full-text side of st in mode with its index
// under dir, waits for its catalog and catches it up; closed when t ends.
func openCatalog(t *testing.T, st persist.Store, dir string, mode FullTextOptions) *FullText {
	t.Helper()
	ctx := context.Background()
	o := mode
	o.Dir, o.Progress = dir+"/idx", &testWriter{t}
	ft, err := OpenFullText(ctx, st, follow.NewFeed(st), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ft.Close() })
	waitPages(t, ft)
	if _, fol := ft.pageCatalog(); fol == nil {
		t.Fatal("no catalog")
	} else if err := fol.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	return ft
}
