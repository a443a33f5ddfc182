package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestPruneAgainstExactBM25: a candidate bound below the common words'
// document counts leaves them out of candidate selection, which still
// ranks exactly like BM25 (the rare terms' θ exceeds what the common ones
// can add); with the default bound the selection is the whole
// disjunction, exact too. The oracle is the exact ranking: every match
// rescored (a depth as large as the collection). The unpruned selection,
// whose pool Bleve's own score picks, must stay close (at least 90 of the
// top 100 ranks). The collection makes pruning apply: every document holds
// the common words, a fraction of them each rare word.
func TestPruneAgainstExactBM25(t *testing.T) {
	ix := sharedPruneTestIndex(t)
	ctx := context.Background()
	for _, q := range pruneTestQueries {
		t.Run(q, func(t *testing.T) {
			search := func(size int, prune bool, bound int) Result {
				ix.noPrune, ix.maxCandidates = !prune, bound
				defer func() { ix.noPrune, ix.maxCandidates = false, 0 }()
				r, err := ix.Search(ctx, Query{Text: q, Mode: "boolean", Access: Access{Principal: "p"}, Size: size, Explain: true})
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			exact := search(len(pruneTestDocs), false, 0).Hits
			// Below every common word's count (each document holds them),
			// above the rare words' together.
			tight := len(pruneTestDocs) - 1
			for _, c := range []struct {
				prune bool
				bound int
			}{{true, tight}, {true, 0}, {false, 0}} {
				r := search(100, c.prune, c.bound)
				same := 0
				for i, h := range r.Hits {
					if h.ID == exact[i].ID && h.Score == exact[i].Score {
						same++
					}
				}
				switch {
				case c.prune && same != 100:
					t.Fatalf("pruned (bound %d): %d of the top 100 match the exact BM25 ranking, want all", c.bound, same)
				case c.bound == tight && strings.Contains(r.Plan, `"system"`):
					t.Fatalf("the bound kept the common word in the selection: %s", r.Plan)
				case c.bound == tight && !strings.Contains(r.Plan, `"term"`):
					t.Fatalf("no rare term selected: %s", r.Plan)
				case c.prune && c.bound == 0 && strings.Count(r.Plan, `"term"`) != strings.Count(q, " OR ")+1:
					// One selection, as large as the bound allows: here
					// every term (a first selection of the rare ones
					// alone, grown only when it fails, would list fewer).
					t.Fatalf("the default bound selected %d of the terms: %s", strings.Count(r.Plan, `"term"`), r.Plan)
				case !c.prune && same < 90:
					t.Fatalf("unpruned: only %d of the top 100 match the exact BM25 ranking", same)
				}
			}
		})
	}
}

var pruneTestQueries = []string{
	`"turbine" OR "system" OR "value" OR "number"`,
	`"nozzle" OR "vortex" OR "system" OR "result" OR "value"`,
	`"plasma" OR "stator" OR "rotor" OR "number" OR "system"`,
	`"flutter" OR "shock" OR "turbine" OR "value" OR "result" OR "number"`,
}

// pruneTestDocs is the size of the pruning test collection.
var pruneTestDocs = make([]struct{}, 1500)

// prunedShared is the pruning test collection built once per test binary
// for the tests that only search it (each build took 0.25 s of CPU, four
// per run); a test that writes to the collection builds its own.
var prunedShared struct {
	once sync.Once
	ix   *Index
	err  error
}

// sharedPruneTestIndex returns the shared collection. Its tests run one at
// a time and restore any field they set; it stays open until the binary
// exits (an in-memory index).
func sharedPruneTestIndex(t *testing.T) *Index {
	t.Helper()
	prunedShared.once.Do(func() { prunedShared.ix, prunedShared.err = buildPruneTestIndex() })
	if prunedShared.err != nil {
		t.Fatal(prunedShared.err)
	}
	return prunedShared.ix
}

func pruneTestIndex(t *testing.T) *Index {
	t.Helper()
	ix, err := buildPruneTestIndex()
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

func buildPruneTestIndex() (*Index, error) {
	ix, err := Open(Options{})
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(7, 11))
	common := []string{"system", "value", "number", "result"}
	rare := []string{"turbine", "nozzle", "vortex", "plasma", "stator", "rotor", "flutter", "shock"}
	var docs []Doc
	for i := range pruneTestDocs {
		var w []string
		for _, c := range common {
			for range 1 + rng.IntN(3) {
				w = append(w, c)
			}
		}
		for j, r := range rare {
			if rng.IntN(len(rare)+j) < 3 {
				for range 1 + rng.IntN(4) {
					w = append(w, r)
				}
			}
		}
		for range rng.IntN(40) {
			w = append(w, fmt.Sprintf("filler%d", rng.IntN(300)))
		}
		rng.Shuffle(len(w), func(a, b int) { w[a], w[b] = w[b], w[a] })
		docs = append(docs, Doc{ID: fmt.Sprintf("%032x", i), Text: strings.Join(w, " "), Owner: "p",
			ThreadID: "t", Source: "user", ContentType: "text", CreatedAt: time.Unix(int64(i), 0)})
	}
	if err := ix.Apply(context.Background(), docs, nil, 1); err != nil {
		_ = ix.Close()
		return nil, err
	}
	return ix, nil
}
