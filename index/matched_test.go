package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd/persist"
)

// TestMatchedMatchesText: Hit.Matched, read from the postings, is the
// number of the query's distinct terms that the analysis of the hit's
// text yields (what the hybrid evidence read from the texts before), for
// the first Query.Matched hits and 0 past them; over several segments,
// with entries updated and deleted after they were indexed, in match and
// boolean OR queries.
func TestMatchedMatchesText(t *testing.T) {
	ctx := context.Background()
	ix, err := Open(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	rng := rand.New(rand.NewPCG(5, 8))
	// Inflected forms stem to one term; "the" and "of" are stop words.
	words := []string{"running", "runs", "runner", "turbine", "turbines", "the", "of", "café", "cafe",
		"nozzle", "vortex", "vortices", "plasma", "shock", "shocked", "rotor"}
	texts := map[string]string{}
	doc := func(i int) Doc {
		var w []string
		for range 1 + rng.IntN(12) {
			w = append(w, words[rng.IntN(len(words))])
		}
		d := aliceDoc(i, strings.Join(w, " "))
		texts[d.ID] = d.Text
		return d
	}
	seq := int64(0)
	for batch := range 4 { // one segment a batch
		var docs []Doc
		var deletes []string
		for i := range 60 {
			docs = append(docs, doc(batch*60+i))
		}
		if batch > 0 {
			for range 10 { // rewrite or delete earlier entries
				i := rng.IntN(batch * 60)
				if rng.IntN(2) == 0 {
					docs = append(docs, doc(i))
				} else {
					id := fmt.Sprintf("%032x", i)
					deletes = append(deletes, id)
					delete(texts, id)
				}
			}
		}
		seq++
		if err := ix.Apply(ctx, docs, deletes, seq); err != nil {
			t.Fatal(err)
		}
	}
	acc := Access{Principal: "alice"}
	checked := 0
	for n := range 60 {
		var q []string
		for range 1 + rng.IntN(6) {
			q = append(q, words[rng.IntN(len(words))])
		}
		query, mode := strings.Join(q, " "), persist.FullTextMatch
		if n%2 == 1 {
			query, mode = strings.Join(q, " OR "), persist.FullTextBoolean
		}
		const k = 5
		res, err := ix.Search(ctx, Query{Text: query, Mode: mode, Access: acc, Size: 50, Matched: k})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]bool{}
		for _, term := range res.Terms {
			want[term] = true
		}
		for i, h := range res.Hits {
			exp := 0
			if i < k {
				held := map[string]bool{}
				for _, term := range ix.analyze(texts[h.ID]) {
					if want[term] {
						held[term] = true
					}
				}
				exp = len(held)
				checked++
			}
			if h.Matched != exp {
				t.Fatalf("%s %q: hit %d (%s, %q) matched %d of %v, want %d", mode, query, i, h.ID, texts[h.ID], h.Matched, res.Terms, exp)
			}
		}
	}
	if checked < 200 {
		t.Fatalf("only %d hits checked", checked)
	}
	res, err := ix.Search(ctx, Query{Text: "run turb", Mode: persist.FullTextPrefix, Access: acc, Size: 10, Matched: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Terms != nil {
		t.Fatalf("prefix query: %d hits, terms %v", len(res.Hits), res.Terms)
	}
	for _, h := range res.Hits {
		if h.Matched != 0 {
			t.Fatalf("prefix query: hit %s matched %d, want 0 (no terms)", h.ID, h.Matched)
		}
	}
}

// aliceDoc is entry i of thread "t", owned by alice, holding text.
func aliceDoc(i int, text string) Doc {
	return Doc{ID: fmt.Sprintf("%032x", i), Text: text, Owner: "alice", ThreadID: "t", Source: "user", ContentType: "text", CreatedAt: time.Unix(int64(i), 0)}
}
