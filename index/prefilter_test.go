package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"
)

// TestPrefilterMatchesTerms checks the catalog prefilter against the term
// prefilter (the Bleve access and filter fields) over random entries,
// grants and filters, across many batches (many segments, merges), updates
// that move entries between principals, deletes (reused ordinals), and a
// reopen from the snapshot with the catalog loaded from the documents.
func TestPrefilterMatchesTerms(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	words := []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"}
	users := []string{"u0", "u1", "u2", "u3", "u4", "u5"}
	groups := []string{"g0", "g1", "g2", "g3"}
	pick := func(s []string) string { return s[r.IntN(len(s))] }
	doc := func(id string) Doc {
		d := Doc{ID: id, Owner: pick(users), Public: r.IntN(6) == 0, ThreadID: fmt.Sprintf("t%d", r.IntN(4)),
			Source: []string{"user", "agent"}[r.IntN(2)], ContentType: []string{"text", "multimodal"}[r.IntN(2)],
			CreatedAt: t0.Add(time.Duration(r.IntN(100)) * time.Hour)}
		for range 3 + r.IntN(6) {
			d.Text += pick(words) + " "
		}
		for range r.IntN(3) {
			if r.IntN(2) == 0 {
				d.Readers = append(d.Readers, "u:"+pick(users))
			} else {
				d.Readers = append(d.Readers, "g:"+pick(groups))
			}
		}
		for range r.IntN(3) {
			d.Tags = append(d.Tags, fmt.Sprintf("k%d", r.IntN(4)))
		}
		return d
	}
	dir := filepath.Join(t.TempDir(), "db.index")
	ix, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	live := map[string]Doc{}
	next := 0
	seq := int64(0)
	mutate := func(n int) {
		var ups []Doc
		var dels []string
		for range n {
			switch k := r.IntN(10); {
			case k < 6 || len(live) == 0:
				id := fmt.Sprintf("e%05d", next)
				next++
				ups = append(ups, doc(id))
			case k < 8:
				for id := range live {
					ups = append(ups, doc(id))
					break
				}
			default:
				for id := range live {
					dels = append(dels, id)
					delete(live, id)
					break
				}
			}
		}
		for _, d := range ups {
			live[d.ID] = d
		}
		seq++
		if err := ix.Apply(ctx, ups, dels, seq); err != nil {
			t.Fatal(err)
		}
	}
	checks := 0
	compare := func() {
		for range 40 {
			q := Query{Text: pick(words), Mode: "match", Size: 1000, Access: Access{Principal: pick(users)}}
			if r.IntN(3) == 0 {
				q.Text += " " + pick(words)
			}
			if r.IntN(4) == 0 {
				q.Mode, q.Text = "prefix", pick(words)[:2]
			}
			for _, g := range groups {
				if r.IntN(3) == 0 {
					q.Access.Groups = append(q.Access.Groups, g)
				}
			}
			if r.IntN(4) == 0 {
				q.ThreadID = fmt.Sprintf("t%d", r.IntN(5))
			}
			if r.IntN(5) == 0 {
				q.Source = "agent"
			}
			if r.IntN(5) == 0 {
				q.Content = "multimodal"
			}
			if r.IntN(4) == 0 {
				q.Tags = []string{fmt.Sprintf("k%d", r.IntN(5)), fmt.Sprintf("k%d", r.IntN(5))}
			}
			if r.IntN(4) == 0 {
				s := t0.Add(time.Duration(r.IntN(100)) * time.Hour)
				q.Start = &s
			}
			if r.IntN(4) == 0 {
				e := t0.Add(time.Duration(r.IntN(100)) * time.Hour)
				q.End = &e
			}
			if r.IntN(6) == 0 {
				q.IDs = []string{}
				for id := range live {
					if r.IntN(3) == 0 {
						q.IDs = append(q.IDs, id)
					}
				}
			}
			got, err := ix.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			// The same through the other plan (skip or filter).
			saved := skipMax
			skipMax = map[bool]uint64{true: 0, false: 1 << 40}[saved > 0]
			other, err := ix.Search(ctx, q)
			skipMax = saved
			if err != nil {
				t.Fatal(err)
			}
			if ids(other) != ids(got) {
				t.Fatalf("query %+v: skip/filter plans differ:\n%s\n%s", q, ids(got), ids(other))
			}
			tq := q
			tq.TermPrefilter = true
			want, err := ix.Search(ctx, tq)
			if err != nil {
				t.Fatal(err)
			}
			if ids(got) != ids(want) {
				t.Fatalf("query %+v:\ncatalog %s\nterms   %s", q, ids(got), ids(want))
			}
			for i := range got.Hits {
				if got.Hits[i].Score != want.Hits[i].Score {
					t.Fatalf("query %+v: score of %s %v, terms %v", q, got.Hits[i].ID, got.Hits[i].Score, want.Hits[i].Score)
				}
			}
			n, _ := ix.CountReadable(ctx, q.Access)
			m, _ := ix.countReadableTerms(ctx, q.Access)
			if n != m {
				t.Fatalf("CountReadable %v = %d, terms %d", q.Access, n, m)
			}
			checks += len(got.Hits) + 1
		}
	}
	for round := range 60 {
		mutate(1 + r.IntN(40))
		if round%3 == 0 {
			compare()
		}
	}
	compare()
	ix = reopen(t, ix, dir)
	if ix.Fresh() {
		t.Fatal("reopened fresh")
	}
	var docs []Doc
	for _, d := range live {
		docs = append(docs, d)
	}
	r.Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] }) // any order
	ix.LoadCatalog(docs)
	compare()
	for range 10 {
		mutate(1 + r.IntN(40))
		compare()
	}
	if checks < 2000 {
		t.Fatalf("only %d checks", checks)
	}
	t.Logf("%d checks, %d live entries", checks, len(live))
}

// TestPrefilterConcurrent searches while batches apply (run with -race):
// every hit must be readable by the caller in the state of some batch.
func TestPrefilterConcurrent(t *testing.T) {
	ix, err := Open(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ctx := context.Background()
	defer func(s uint64) { skipMax = s }(skipMax)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 200 {
			// Entry i is alice's and private; every third batch shares it
			// with bob, then deletes it the batch after.
			d := Doc{ID: fmt.Sprintf("e%03d", i%20), Text: "shared words here", Owner: "alice", CreatedAt: t0}
			if i%3 == 0 {
				d.Readers = []string{"u:bob"}
			}
			var dels []string
			if i%7 == 0 {
				dels = []string{fmt.Sprintf("e%03d", (i+5)%20)}
			}
			if err := ix.Apply(ctx, []Doc{d}, dels, int64(i+1)); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for {
		select {
		case <-done:
			return
		default:
		}
		for _, skip := range []uint64{0, 1024} {
			skipMax = skip // only this goroutine searches
			res, err := ix.Search(ctx, Query{Text: "shared", Access: Access{Principal: "carol"}, Size: 100})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) != 0 {
				t.Fatalf("carol reads %v", ids(res))
			}
			if _, err := ix.Search(ctx, Query{Text: "shared", Access: Access{Principal: "bob"}, Size: 100}); err != nil {
				t.Fatal(err)
			}
			if _, err := ix.CountReadable(ctx, Access{Principal: "bob"}); err != nil {
				t.Fatal(err)
			}
		}
	}
}
