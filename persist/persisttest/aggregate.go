package persisttest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/contextd/contextd/persist"
)

// accessNarrowPlan: the aggregate views answer exactly the same with the
// plan hint persist.Access.Narrow as without it (the whole-table plan),
// on 400 random entries of four owners (private and public, user and
// group grants of both permissions, several grants of one entry to the
// same caller, tags, summaries, images, vectors, node summaries and
// knowledge threads) for every caller of the fixture, and the entry count
// equals the readable entries counted in Go.
func (s suite) accessNarrowPlan(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	rng := rand.New(rand.NewPCG(28, 3))
	owners := []string{"alice", "bob", "carol", "dave"}
	groups := []string{"team", "ops", "other"}
	threads := []string{"t0", "t1", "t2", "t3", "t4", "t5", "t6", "knowledge", "knowledge/k1"}
	var es []persist.Entry
	grants := map[string][]persist.Grant{}
	for n := 1; n <= 400; n++ {
		e := NewEntry(n, threads[rng.IntN(len(threads))], []string{"user", "agent"}[rng.IntN(2)], owners[rng.IntN(len(owners))])
		if n%3 == 0 {
			e.CreatedAt = At(n / 3) // ties and an order unlike the ids'
		}
		if rng.IntN(6) == 0 {
			e.Visibility = "public"
		}
		for _, tg := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"} {
			if rng.IntN(4) == 0 {
				e.Tags = append(e.Tags, tg)
			}
		}
		switch rng.IntN(3) {
		case 0:
			e.Summary = fmt.Sprintf("summary %d", n)
		case 1:
			e.Summary = "" // stored as NULL
		}
		if rng.IntN(8) == 0 {
			e.ContentType = "multimodal"
			for range 1 + rng.IntN(3) {
				e.Images = append(e.Images, persist.Image{Data: []byte{byte(n)}, MimeType: "image/png"})
			}
		}
		for range rng.IntN(4) {
			g := persist.Grant{PrincipalType: "user", PrincipalID: owners[rng.IntN(len(owners))], GrantedBy: e.Owner,
				Permission: []string{"read", "write"}[rng.IntN(2)]}
			if rng.IntN(2) == 0 {
				g.PrincipalType, g.PrincipalID = "group", groups[rng.IntN(len(groups))]
			}
			if !hasGrant(grants[e.ID], g) {
				grants[e.ID] = append(grants[e.ID], g)
			}
		}
		es = append(es, e)
	}
	Insert(t, st, es, grants)
	write(t, st, func(ctx context.Context, tx persist.Tx) error {
		for i, e := range es {
			if i%4 == 0 {
				vs := [][]float32{{1, float32(i)}}
				if i%8 == 0 {
					vs = append(vs, []float32{2, float32(i)})
				}
				if err := tx.SetEmbeddings(ctx, e.ID, Embeddings(2, vs...)); err != nil {
					return err
				}
			}
			if i%5 == 0 {
				ns := []persist.NodeSummary{{NodeID: "1", Start: 0, End: 1, Summary: "s"}}
				if err := tx.ReplaceNodeSummaries(ctx, e.ID, ns); err != nil {
					return err
				}
			}
		}
		return nil
	})
	accs := []persist.Access{
		alice, bob, bobTeam, carol, dave,
		{Principal: "erin", Groups: []string{"team"}},
		{Principal: "carol", Groups: []string{"ops", "other", "team"}},
		{Principal: "nobody"},
	}
	for _, wide := range accs {
		narrow := wide
		narrow.Narrow = true
		t.Run(fmt.Sprint(wide.Principal, wide.Groups), func(t *testing.T) {
			want, err := st.Stats(ctx, wide)
			if err != nil {
				t.Fatal(err)
			}
			got, err := st.Stats(ctx, narrow)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("Stats narrow = %+v\nwide = %+v", got, want)
			}
			if n := readableOutsideKnowledge(es, grants, wide); want.TotalEntries != n {
				t.Fatalf("Stats counts %d entries, %d are readable outside knowledge", want.TotalEntries, n)
			}
			for _, page := range [][2]int{{0, 0}, {3, 0}, {2, 3}, {50, 1}} {
				want, err := st.ListThreads(ctx, wide, page[0], page[1])
				if err != nil {
					t.Fatal(err)
				}
				got, err := st.ListThreads(ctx, narrow, page[0], page[1])
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("ListThreads(%d, %d) narrow = %+v\nwide = %+v", page[0], page[1], got, want)
				}
			}
			we, wc, err := st.EmbeddingCounts(ctx, wide)
			if err != nil {
				t.Fatal(err)
			}
			ge, gc, err := st.EmbeddingCounts(ctx, narrow)
			if err != nil || ge != we || gc != wc {
				t.Fatalf("EmbeddingCounts narrow = %d, %d, %v; wide = %d, %d", ge, gc, err, we, wc)
			}
			wn, err := st.CountNodeSummaries(ctx, wide)
			if err != nil {
				t.Fatal(err)
			}
			if gn, err := st.CountNodeSummaries(ctx, narrow); err != nil || gn != wn {
				t.Fatalf("CountNodeSummaries narrow = %d, %v; wide = %d", gn, err, wn)
			}
		})
	}
}

func hasGrant(gs []persist.Grant, g persist.Grant) bool {
	for _, h := range gs {
		if h.PrincipalType == g.PrincipalType && h.PrincipalID == g.PrincipalID && h.Permission == g.Permission {
			return true
		}
	}
	return false
}

// readableOutsideKnowledge counts the entries of es that acc may read,
// outside the knowledge threads.
func readableOutsideKnowledge(es []persist.Entry, grants map[string][]persist.Grant, acc persist.Access) int {
	n := 0
	for _, e := range es {
		if persist.IsKnowledgeThread(e.ThreadID) {
			continue
		}
		ok := e.Owner == acc.Principal || e.Visibility == "public"
		for _, g := range grants[e.ID] {
			if g.PrincipalType == "user" && g.PrincipalID == acc.Principal {
				ok = true
			}
			for _, gr := range acc.Groups {
				if g.PrincipalType == "group" && g.PrincipalID == gr {
					ok = true
				}
			}
		}
		if ok {
			n++
		}
	}
	return n
}
