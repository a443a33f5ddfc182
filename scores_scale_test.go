package contextd

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextd/contextd/internal/testtier"
	"github.com/contextd/contextd/model/builtin"
)

// TestOtherPrincipalsLeaveResultsByteIdentical is the property at scale:
// another principal's private writes and deletes (1 unrelated entry, 100
// near-duplicates of the caller's, 2,000 of both kinds, then deleting
// them all) leave every field of the caller's ranked results (ids,
// order, scores, passages, metadata) byte-identical, with the reranker
// on and off, for callers who read 200, 3,000 and 6,000 entries, on the
// in-process search backend. The 3,000-entry caller is above the graph's
// own exact-scan threshold; the 6,000-entry one above the vector index's
// (exactEntries), so its semantic leg walks a graph: before the index was
// partitioned by access scope (internal/search/vecpart.go) that was one
// graph of every principal's vectors, and alice's private entries moved
// bob's semantic scores and ranks. The native backend keeps the
// database's own statistics (TestNativeScoresCountEveryEntryR307). The
// 3,000- and 6,000-entry callers run in the long tier (about 40 s and
// 90 s of CPU).
func TestOtherPrincipalsLeaveResultsByteIdentical(t *testing.T) {
	for _, n := range []int{200, 3000, 6000} {
		t.Run(fmt.Sprintf("reads %d", n), func(t *testing.T) {
			if n > 200 {
				testtier.Long(t)
			}
			testOtherPrincipals(t, n)
		})
	}
}

// scaleWords are the caller's vocabulary; otherWords the unrelated
// entries'.
var (
	scaleWords = strings.Fields("server backup restore certificate timeout retry queue worker schedule deploy cluster node " +
		"memory disk network latency cache index search query token login password user group permission " +
		"release version build test coverage benchmark profile trace log metric alert dashboard pipeline")
	otherWords = strings.Fields("garden tomato harvest recipe flour oven bread butter orchard apple pear soil rain")
)

func scaleText(r *rand.Rand, words []string) string {
	ws := make([]string, 6+r.IntN(12))
	for i := range ws {
		ws[i] = words[r.IntN(len(words))]
	}
	return strings.Join(ws, " ")
}

func testOtherPrincipals(t *testing.T, n int) {
	ctx := context.Background()
	dir := t.TempDir()
	emb := &builtin.Embedder{}
	open := func(name string, rerank bool) *Engine {
		cfg := Config{
			DBPath:    filepath.Join(dir, "ctx.db"),
			IndexPath: filepath.Join(dir, name),
			FTS:       FTSConfig{Backend: BackendInProcess, Progress: &strings.Builder{}},
			Embedding: EmbeddingConfig{Embedder: emb, Provider: "builtin"},
		}
		if rerank {
			cfg.Rerank = RerankConfig{Reranker: builtin.Blend{Embedder: emb}, Provider: "builtin", Model: "lexical-semantic"}
		}
		eng, err := Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = eng.Close() })
		return eng
	}
	// Two engines on one database: one reranks, one does not.
	engines := []*Engine{open("plain", false), open("reranked", true)}
	r := rand.New(rand.NewPCG(27, uint64(n)))
	bobTexts := make([]string, n)
	for i := range bobTexts {
		if i%10 == 9 {
			bobTexts[i] = bobTexts[i-1] // equal texts: the tie order shows
			continue
		}
		bobTexts[i] = scaleText(r, scaleWords)
	}
	storeAllAs(t, engines[0], "bob", bobTexts)
	// Natural questions for the semantic and hybrid legs, and short ones
	// of one to three words: those sit between the caller's entries,
	// where a graph walk is least sure of its way.
	questions := []string{"restore the backup after a disk failure", "login password permission", "deploy"}
	for range 30 {
		ws := make([]string, 1+r.IntN(3))
		for i := range ws {
			ws[i] = scaleWords[r.IntN(len(scaleWords))]
		}
		questions = append(questions, strings.Join(ws, " "))
	}
	// Queries: the full-text modes, and the questions.
	sees := func() string {
		var b strings.Builder
		put := func(kind string, v any) {
			j, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%s %s\n", kind, j)
		}
		bob := as("bob")
		for i, eng := range engines {
			for _, q := range []struct{ text, mode string }{{"backup restore", ""}, {"cache OR latency OR disk", "boolean"}, {"perm", "prefix"}} {
				res, err := eng.FTSSearch(bob, FTSSearchRequest{Query: q.text, Mode: q.mode, Limit: 50})
				if err != nil || res.Error != "" {
					t.Fatalf("fts %q: %v %s", q.text, err, res.Error)
				}
				put(fmt.Sprintf("%d fts %q", i, q.text), res.Results)
			}
			for _, q := range questions {
				sem, err := eng.SemanticSearch(bob, SemanticSearchRequest{Query: q, Limit: 50})
				if err != nil || sem.Error != "" {
					t.Fatalf("semantic %q: %v %s", q, err, sem.Error)
				}
				put(fmt.Sprintf("%d semantic %q", i, q), sem.Results)
				hy, err := eng.HybridSearch(bob, HybridSearchRequest{Query: q, Limit: 50})
				if err != nil || hy.Error != "" {
					t.Fatalf("hybrid %q: %v %s", q, err, hy.Error)
				}
				put(fmt.Sprintf("%d hybrid %q", i, q), hy.Results)
			}
		}
		return b.String()
	}
	before := sees()
	if c := strings.Count(before, `"id":`); c < 300 {
		t.Fatalf("bob's queries return %d results in all", c)
	}
	check := func(what string) {
		t.Helper()
		if after := sees(); after != before {
			t.Fatalf("%s changed bob's results: %s", what, firstDiff(before, after))
		}
	}
	hidden := storeAllAs(t, engines[0], "alice", []string{scaleText(r, otherWords)})
	check("alice's one unrelated private entry")
	near := make([]string, 100)
	for i := range near {
		ws := strings.Fields(bobTexts[r.IntN(n)])
		ws[r.IntN(len(ws))] = scaleWords[r.IntN(len(scaleWords))]
		near[i] = strings.Join(ws, " ")
	}
	hidden = append(hidden, storeAllAs(t, engines[0], "alice", near)...)
	check("alice's 100 private near-duplicates")
	more := make([]string, 2000)
	for i := range more {
		switch i % 3 {
		case 0:
			more[i] = scaleText(r, otherWords)
		case 1:
			more[i] = bobTexts[r.IntN(n)] // exact duplicates
		default:
			more[i] = scaleText(r, scaleWords)
		}
	}
	hidden = append(hidden, storeAllAs(t, engines[0], "alice", more)...)
	check("alice's 2,000 more private entries")
	for len(hidden) > 0 {
		k := min(100, len(hidden))
		if _, err := engines[0].Delete(as("alice"), DeleteRequest{ContextIDs: hidden[:k]}); err != nil {
			t.Fatal(err)
		}
		hidden = hidden[k:]
	}
	check("alice deleting all her entries")
}
