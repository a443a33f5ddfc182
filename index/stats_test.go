package index

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// statsQueries cover each use of the statistics: the BM25 stage of match,
// phrase and boolean queries, and a long OR taking the term-pruning path.
var statsQueries = []struct{ text, mode string }{
	{"alpha", "match"}, {"beta gamma", "match"}, {"delta epsilon", "phrase"},
	{"alpha OR zeta OR eta OR theta OR beta", "boolean"}, {"gamma AND NOT beta", "boolean"},
}

// scored is a ranking as ids with the exact bits of their scores.
func scored(r Result) string {
	var b strings.Builder
	for _, h := range r.Hits {
		fmt.Fprintf(&b, "%s:%x ", h.ID, math.Float64bits(h.Score))
	}
	return b.String()
}

// TestReadableSetStatistics checks the statistics of a search against an
// oracle: the same caller's search in an index that holds only the
// entries the caller may read. Scores (and the reranker's document
// frequencies) must agree bit for bit, across many batches (segments,
// merges), updates, deletes, both prefilter plans, and after a reopen
// whose catalog is loaded without text lengths. The collection-wide
// statistics (GlobalStats) must not: the entries the caller cannot read
// move them.
func TestReadableSetStatistics(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 11))
	words := []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"}
	users := []string{"me", "u1", "u2", "u3"}
	acc := Access{Principal: "me", Groups: []string{"g0"}}
	readable := func(d Doc) bool {
		return d.Public || d.Owner == "me" || slices.Contains(d.Readers, "u:me") || slices.Contains(d.Readers, "g:g0")
	}
	doc := func(id string) Doc {
		d := Doc{ID: id, Owner: users[r.IntN(len(users))], Public: r.IntN(8) == 0, ThreadID: fmt.Sprintf("t%d", r.IntN(3)),
			Source: "user", ContentType: "text", CreatedAt: t0.Add(time.Duration(r.IntN(100)) * time.Hour)}
		for range 2 + r.IntN(12) {
			d.Text += words[r.IntN(len(words))] + " "
		}
		switch r.IntN(6) {
		case 0:
			d.Readers = []string{"u:me"}
		case 1:
			d.Readers = []string{"g:g0"}
		case 2:
			d.Readers = []string{"g:g1"}
		}
		return d
	}
	dir := filepath.Join(t.TempDir(), "db.index")
	ix, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ix.Close() }()
	ctx := context.Background()
	live := map[string]Doc{}
	next, seq := 0, int64(0)
	mutate := func(n int) {
		var ups []Doc
		var dels []string
		for range n {
			switch k := r.IntN(10); {
			case k < 6 || len(live) == 0:
				ups = append(ups, doc(fmt.Sprintf("e%05d", next)))
				next++
			case k < 8:
				for id := range live {
					d := doc(id)
					ups = append(ups, d)
					break
				}
			default:
				for id := range live {
					dels = append(dels, id)
					break
				}
			}
		}
		seq++
		if err := ix.Apply(ctx, ups, dels, seq); err != nil {
			t.Fatal(err)
		}
		for _, id := range dels {
			delete(live, id)
		}
		for _, d := range ups {
			live[d.ID] = d
		}
	}
	leaks, checks := 0, 0
	compare := func(step string) {
		t.Helper()
		oracle, err := Open(Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer oracle.Close()
		var mine []Doc
		for _, d := range live {
			if readable(d) {
				mine = append(mine, d)
			}
		}
		if err := oracle.Apply(ctx, mine, nil, 1); err != nil {
			t.Fatal(err)
		}
		for _, q := range statsQueries {
			want, err := oracle.Search(ctx, Query{Text: q.text, Mode: q.mode, Access: acc, Size: 100})
			if err != nil {
				t.Fatal(err)
			}
			for _, small := range []uint64{0, 1 << 20} { // both prefilter plans
				skipMax = small
				got, err := ix.Search(ctx, Query{Text: q.text, Mode: q.mode, Access: acc, Size: 100})
				if err != nil {
					t.Fatal(err)
				}
				if scored(got) != scored(want) {
					t.Fatalf("%s: %s %q (skipMax %d):\n got  %s\n want %s", step, q.mode, q.text, small, scored(got), scored(want))
				}
				checks++
			}
			global, err := ix.Search(ctx, Query{Text: q.text, Mode: q.mode, Access: acc, Size: 100, GlobalStats: true})
			if err != nil {
				t.Fatal(err)
			}
			if scored(global) != scored(want) {
				leaks++
			}
		}
		dfWords := append(slices.Clone(words), "the", "absent")
		gotDF, gotN, err := ix.Stats(acc).DocFreqs(ctx, dfWords)
		if err != nil {
			t.Fatal(err)
		}
		wantDF, wantN, err := oracle.Stats(acc).DocFreqs(ctx, dfWords)
		if err != nil {
			t.Fatal(err)
		}
		if gotN != wantN || !slices.Equal(gotDF, wantDF) {
			t.Fatalf("%s: document frequencies %v of %d, want %v of %d", step, gotDF, gotN, wantDF, wantN)
		}
	}
	defer func(s uint64) { skipMax = s }(skipMax)
	for round := range 30 {
		mutate(5 + r.IntN(30))
		if round%5 == 4 {
			compare(fmt.Sprintf("round %d", round))
		}
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	if ix, err = Open(Options{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	if ix.Fresh() {
		t.Fatal("reopened fresh")
	}
	var docs []Doc
	for _, d := range live {
		d.Text = "" // as the loader reads the catalog: access fields only
		docs = append(docs, d)
	}
	ix.LoadCatalog(docs)
	compare("reopened")
	mutate(20)
	compare("reopened and written")
	if leaks == 0 {
		t.Fatalf("collection-wide statistics never differed from the readable set's in %d checks", checks)
	}
	t.Logf("%d checks; collection-wide statistics differed in %d", checks, leaks)
}
