package search

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/contextd/contextd/persist"
)

// TestCatalogStats: get_statistics' counts from the catalog equal the
// store's for every caller, through inserts with summaries, images and
// node summaries,
// knowledge entries, and churn that adds, clears and replaces summaries,
// images, tags, grants and visibility (each change must reach the
// catalog through the change log).
func TestCatalogStats(t *testing.T) {
	eachCatalogMode(t, func(t *testing.T, mode FullTextOptions) {
		t.Parallel()
		ctx := context.Background()
		dir := t.TempDir()
		st := testStore(t, dir)
		w := newPageWorld(41)
		const n = 240
		img := func(k int) []persist.Image {
			out := make([]persist.Image, k)
			for i := range out {
				out[i] = persist.Image{Data: []byte{byte(i)}, MimeType: "image/png"}
			}
			return out
		}
		nodes := func(k int) []persist.NodeSummary {
			out := make([]persist.NodeSummary, k)
			for i := range out {
				out[i] = persist.NodeSummary{NodeID: fmt.Sprint("n", i), Start: i, End: i + 1, Summary: "s"}
			}
			return out
		}
		err := st.Write(ctx, func(tx persist.Tx) error {
			for i := range n {
				e, gs := w.entry(i)
				switch i % 5 {
				case 0:
					e.Summary = fmt.Sprintf("summary %d", i)
				case 1:
					e.ContentType, e.Images = "multimodal", img(1+i%3)
				}
				if i%17 == 0 {
					e.ThreadID = persist.KnowledgeThreadPrefix + "c1"
				}
				if err := tx.Insert(ctx, &e, gs); err != nil {
					return err
				}
				if i%4 == 0 {
					if err := tx.ReplaceNodeSummaries(ctx, e.ID, nodes(1+i%3)); err != nil {
						return err
					}
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
				w.churn(t, st, n, 40)
				err := st.Write(ctx, func(tx persist.Tx) error {
					for range 30 {
						id := fmt.Sprintf("%032x", w.r.IntN(n))
						s, found, err := tx.State(ctx, persist.Access{}, id)
						if err != nil || !found {
							continue
						}
						u := persist.Update{BumpVersion: true, UpdatedAt: t0, ExpectVersion: s.Version}
						switch w.r.IntN(4) {
						case 3:
							// Node summaries alone change no column of
							// the entry: their own change-log row
							// brings the count to the catalog.
							if err := tx.ReplaceNodeSummaries(ctx, id, nodes(w.r.IntN(3))); err != nil {
								return err
							}
							continue
						case 0:
							sum := []string{"", "a new summary"}[w.r.IntN(2)]
							u.Summary = &sum
						default:
							im := img(w.r.IntN(3))
							u.Images = &im
						}
						if _, err := tx.Update(ctx, id, u); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			for _, u := range append(w.users, "nobody") {
				for _, groups := range [][]string{nil, {"g1"}} {
					acc := persist.Access{Principal: u, Groups: groups}
					want, err := st.Stats(ctx, acc)
					if err != nil {
						t.Fatal(err)
					}
					got, ok, err := ft.Stats(ctx, acc)
					if err != nil || !ok {
						t.Fatalf("Stats: %v, %v", ok, err)
					}
					want.DBSizeBytes = -1 // the store's figure, not the catalog's
					nodes, err := st.CountNodeSummaries(ctx, acc)
					if err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(got, Counts{want, nodes}) {
						t.Fatalf("round %d %+v:\ncatalog %+v\nSQL     %+v", round, acc, got, want)
					}
					if u == "ann" && round == 0 && (got.SummaryCount == 0 || got.TotalImages == 0 || got.NodeSummaries == 0) {
						t.Fatalf("no summaries or images counted: %+v", got)
					}
				}
			}
		}
	})
}
