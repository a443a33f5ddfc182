package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// TestExactSelection: a caller who does not read every entry gets the
// exact BM25 top over its allowed matches, bit for bit, when its matches
// far outnumber Bleve's candidate pool: the oracle is an index holding
// only the caller's entries, searched with a depth as large as the
// collection (every match rescored). Entries of another owner, which skew
// the collection-wide statistics, must change nothing; with Bleve's pool
// (PoolSelection, the behaviour before) they do change the ranking.
func TestExactSelection(t *testing.T) {
	ctx := context.Background()
	mine := sharedPruneTestIndex(t) // 1,500 entries of p, only searched
	both := pruneTestIndex(t)
	defer both.Close()
	rng := rand.New(rand.NewPCG(3, 5))
	rare := []string{"turbine", "nozzle", "vortex", "plasma", "stator", "rotor", "flutter", "shock"}
	var hidden []Doc
	for i := range 3000 {
		var w []string
		for range 1 + rng.IntN(3) {
			w = append(w, rare[rng.IntN(len(rare))])
		}
		for range rng.IntN(60) {
			w = append(w, fmt.Sprintf("filler%d", rng.IntN(300)))
		}
		hidden = append(hidden, Doc{ID: fmt.Sprintf("h%031x", i), Text: strings.Join(w, " "), Owner: "x",
			ThreadID: "tx", Source: "user", ContentType: "text", CreatedAt: time.Unix(int64(i), 0)})
	}
	if err := both.Apply(ctx, hidden, nil, 2); err != nil {
		t.Fatal(err)
	}
	queries := append([]string{`"turbine" OR "nozzle"`, `"system" "value"`, `"rotor"`}, pruneTestQueries...)
	moved := 0
	for _, text := range queries {
		q := Query{Text: text, Mode: "boolean", Access: Access{Principal: "p"}, Size: 100}
		all := q
		all.Size = len(pruneTestDocs)
		oracle, err := mine.Search(ctx, all)
		if err != nil {
			t.Fatal(err)
		}
		oracle.Hits = oracle.Hits[:min(100, len(oracle.Hits))]
		q.Highlight = true
		got, err := both.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if scored(got) != scored(oracle) {
			t.Fatalf("%s: exact selection differs from the oracle:\n got %s\nwant %s", text, scored(got), scored(oracle))
		}
		for _, h := range got.Hits {
			if len(h.Spans) == 0 {
				t.Fatalf("%s: %s has no highlight spans", text, h.ID)
			}
		}
		q.Highlight, q.PoolSelection = false, true
		pool, err := both.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if scored(pool) != scored(oracle) {
			moved++
		}
	}
	if moved == 0 {
		t.Fatal("Bleve's pool ranked every query as the oracle: the test does not exercise the pool")
	}
	t.Logf("Bleve's pool moved %d of %d rankings", moved, len(queries))
}
