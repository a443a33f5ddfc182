package server_test

// hybrid_search_context (B.10, C.8, C.9): reciprocal rank fusion of the
// full-text and semantic legs, validation, degradation when a leg fails.
// Pagination, rank depth and access are proven together with semantic
// search in conformance_semantic_test.go.

import (
	"fmt"
	"testing"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/internal/rank"
	"github.com/contextd/contextd/model/builtin"
)

func (e *env) hybrid(t *testing.T, principal string, args M) M {
	t.Helper()
	return e.call(t, principal, "hybrid_search_context", args).ok(t)
}

// hybridEntries are 10 entries; "lantern" occurs in some of them only.
func hybridEntries() []M {
	var out []M
	for i := 0; i < 10; i++ {
		text := fmt.Sprintf("Field note %d: the river bank was quiet and the birds sang.", i)
		if i%2 == 0 {
			text = fmt.Sprintf("Field note %d: a lantern %s lit the path by the river.", i, repeat("lantern ", i/2))
		}
		out = append(out, M{"thread_id": "hy", "source": "user", "text": text})
	}
	return out
}

// hybridScores checks the R-105 score object of every result, with the
// default fusion weights, and returns the results.
func hybridScores(t *testing.T, resp M, k int, reranked bool) []M {
	t.Helper()
	return hybridScoresWeighted(t, resp, k, rank.DefaultSemanticWeight, reranked)
}

// hybridScoresWeighted is hybridScores for a semantic-leg weight w: rrf =
// 1/(k + fts_rank) + w/(k + semantic_rank). w = 1 is R-360's plain RRF
// (HYBRID_SEMANTIC_WEIGHT=1); the default weighs the built-in embedder's
// leg down.
func hybridScoresWeighted(t *testing.T, resp M, k int, w float64, reranked bool) []M {
	t.Helper()
	results := objs(t, arr(t, resp, "results"))
	wantEqual(t, "count", int(num(t, resp, "count")), len(results))
	for i, r := range results {
		wantKeys(t, "result", r, rankedResultKeys(r)...)
		sc := obj(t, r, "scores")
		wantKeys(t, "scores", sc, "rrf", "fts_rank", "semantic_rank", "fts_score", "semantic_distance", "rerank_score")
		want := 0.0
		if sc["fts_rank"] != nil {
			fr := num(t, sc, "fts_rank")
			if fr < 1 || fr > num(t, resp, "fts_count") {
				t.Fatalf("result %d: fts_rank %v outside 1..fts_count", i, fr)
			}
			want += 1 / (float64(k) + fr)
			num(t, sc, "fts_score")
		} else {
			wantNull(t, sc, "fts_score")
		}
		if sc["semantic_rank"] != nil {
			sr := num(t, sc, "semantic_rank")
			if sr < 1 || sr > num(t, resp, "semantic_count") {
				t.Fatalf("result %d: semantic_rank %v outside 1..semantic_count", i, sr)
			}
			want += w / (float64(k) + sr)
			if num(t, sc, "semantic_distance") < 0 {
				t.Fatalf("result %d: semantic_distance %v < 0", i, sc["semantic_distance"])
			}
		} else {
			wantNull(t, sc, "semantic_distance")
		}
		if want == 0 {
			t.Fatalf("result %d has neither rank: %s", i, mustJSON(sc))
		}
		wantRRF(t, fmt.Sprintf("result %d", i), num(t, sc, "rrf"), want)
		if reranked {
			if s := num(t, sc, "rerank_score"); s < 0 || s > 1 || (i > 0 && s > num(t, obj(t, results[i-1], "scores"), "rerank_score")) {
				t.Fatalf("result %d: rerank_score %v not in [0,1] or not descending", i, s)
			}
		} else {
			wantNull(t, sc, "rerank_score")
			// rrf DESC, then id ASC.
			if i > 0 {
				prev, cur := num(t, obj(t, results[i-1], "scores"), "rrf"), num(t, sc, "rrf")
				if cur > prev || (cur == prev && str(t, r, "id") < str(t, results[i-1], "id")) {
					t.Fatalf("result %d (rrf %v, id %s) after (rrf %v, id %s): want rrf DESC, id ASC",
						i, cur, str(t, r, "id"), prev, str(t, results[i-1], "id"))
				}
			}
		}
	}
	return results
}

func TestHybridResponseShape(t *testing.T) {
	for _, variant := range []struct {
		name     string
		reranked bool
		weight   float64
		opts     []envOption
	}{
		{"no reranker", false, rank.DefaultSemanticWeight, nil},
		{"reranker", true, rank.DefaultSemanticWeight, []envOption{withReranker(builtin.Lexical{})}},
		{"R-360 plain RRF (HYBRID_SEMANTIC_WEIGHT=1)", false, 1, []envOption{withConfig(func(c *contextd.Config) { c.Hybrid.SemanticWeight = 1 })}},
	} {
		t.Run(variant.name, func(t *testing.T) {
			forEachStoreEmbed(t, func(t *testing.T, env *env, _ *switchEmbedder) {
				env.storeAll(t, "alice", hybridEntries())
				t.Run("R-104 both modes", func(t *testing.T) {
					resp := env.hybrid(t, "alice", M{"query": "lantern", "limit": 10})
					wantKeys(t, "response", resp, "query", "results", "count", "fusion_method", "search_modes_used", "fts_count", "semantic_count")
					wantEqual(t, "query", str(t, resp, "query"), "lantern")
					wantEqual(t, "fusion_method", str(t, resp, "fusion_method"), "rrf")
					wantSlice(t, "search_modes_used", strs(t, resp, "search_modes_used"), []string{"fts", "semantic"})
					wantEqual(t, "fts_count", num(t, resp, "fts_count"), 5)
					wantEqual(t, "semantic_count", num(t, resp, "semantic_count"), 10)
					results := hybridScoresWeighted(t, resp, 60, variant.weight, variant.reranked)
					wantEqual(t, "results", len(results), 10)
					inBoth := 0
					for _, r := range results {
						if obj(t, r, "scores")["fts_rank"] != nil {
							inBoth++
						}
					}
					wantEqual(t, "documents with an fts_rank", inBoth, 5)
				})
				t.Run("R-104 explain_query", func(t *testing.T) {
					resp := env.hybrid(t, "alice", M{"query": "lantern", "limit": 3, "explain_query": true, "thread_id": "hy"})
					st := obj(t, resp, "stats")
					wantEqualJSON(t, "fusion_stats", st["fusion_stats"],
						`{"rrf_k":60,"total_unique_documents":10,"documents_in_both":5,"documents_fts_only":0,"documents_semantic_only":5}`)
					wantEqual(t, "adaptive_fts_mode", str(t, st, "adaptive_fts_mode"), "match")
					for _, k := range []string{"execution_time_ms", "fts_stats", "semantic_stats"} {
						if !hasKey(st, k) {
							t.Fatalf("stats lacks %s: %s", k, mustJSON(st))
						}
					}
					obj(t, st, "fts_stats")
					obj(t, st, "semantic_stats")
					resp = env.hybrid(t, "alice", M{"query": "a lantern by the quiet river bank", "explain_query": true, "rrf_k": 7})
					st = obj(t, resp, "stats")
					wantEqual(t, "adaptive_fts_mode (6 significant terms)", str(t, st, "adaptive_fts_mode"), "boolean")
					wantEqual(t, "rrf_k", num(t, obj(t, st, "fusion_stats"), "rrf_k"), 7)
					hybridScoresWeighted(t, resp, 7, variant.weight, variant.reranked)
				})
			}, variant.opts...)
		})
	}
}

// TestHybridFTSOnly is T-059: with no embedder the fused ranking is the
// full-text ranking, rrf = 1/(k + fts_rank).
func TestHybridFTSOnly(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		env.storeAll(t, "alice", hybridEntries())
		resp := env.hybrid(t, "alice", M{"query": "lantern", "limit": 10})
		wantSlice(t, "search_modes_used", strs(t, resp, "search_modes_used"), []string{"fts"})
		wantEqual(t, "semantic_count", num(t, resp, "semantic_count"), 0)
		wantEqual(t, "fts_count", num(t, resp, "fts_count"), 5)
		results := hybridScores(t, resp, 60, false)
		wantEqual(t, "results", len(results), 5)
		for i, r := range results {
			sc := obj(t, r, "scores")
			wantEqual(t, "fts_rank", num(t, sc, "fts_rank"), float64(i+1))
			wantRRF(t, "T-059", num(t, sc, "rrf"), 1/(60+num(t, sc, "fts_rank")))
			wantNull(t, sc, "semantic_rank")
			wantNull(t, sc, "semantic_distance")
		}
		// The fused order is the standalone full-text order.
		wantSlice(t, "order", resultIDs(t, resp), resultIDs(t, env.fts(t, "alice", M{"query": "lantern", "limit": 10})))
		// Pages of the FTS-only fusion keep their absolute ranks.
		page := objs(t, arr(t, env.hybrid(t, "alice", M{"query": "lantern", "limit": 2, "offset": 2}), "results"))
		wantEqual(t, "paged fts_rank", num(t, obj(t, page[0], "scores"), "fts_rank"), 3)

		top := objs(t, arr(t, env.hybrid(t, "alice", M{"query": "lantern", "rrf_k": 1}), "results"))[0]
		wantRRF(t, "rrf_k=1 top", num(t, obj(t, top, "scores"), "rrf"), 0.5)
		top = objs(t, arr(t, env.hybrid(t, "alice", M{"query": "lantern", "rrf_k": 1000}), "results"))[0]
		wantRRF(t, "rrf_k=1000 top", num(t, obj(t, top, "scores"), "rrf"), 1.0/1001)

		st := obj(t, env.hybrid(t, "alice", M{"query": "lantern", "explain_query": true}), "stats")
		wantEqualJSON(t, "fusion_stats", st["fusion_stats"],
			`{"rrf_k":60,"total_unique_documents":5,"documents_in_both":0,"documents_fts_only":5,"documents_semantic_only":0}`)
		wantNull(t, st, "semantic_stats")
	}, withNoEmbedder())
}

// TestHybridValidation is T-060 and T-061.
func TestHybridValidation(t *testing.T) {
	badFilter := []any{M{"key": "status", "operator": "nope", "value": 1}}
	reject := func(t *testing.T, env *env) {
		t.Helper()
		for _, args := range []M{
			{"query": "lantern", "rrf_k": 0},
			{"query": "lantern", "rrf_k": 1001},
			{"query": "lantern", "rrf_k": -5},
			{"query": "lantern", "fusion_method": "weighted"},
			{"query": "lantern", "fusion_method": "RRF "},
			{"query": ""},
			{"query": "lantern", "limit": 0},
		} {
			env.call(t, "alice", "hybrid_search_context", args).err(t)
		}
		env.hybrid(t, "alice", M{"query": "lantern", "rrf_k": 1000, "fusion_method": "rrf"})
	}
	allFailed := func(t *testing.T, env *env, legs ...string) {
		t.Helper()
		resp := env.hybrid(t, "alice", M{"query": "lantern", "metadata_filters": badFilter})
		msg := str(t, resp, "error")
		wantPrefix(t, "error", msg, "All available search modes failed.")
		for _, leg := range legs {
			wantErrContains(t, msg, leg+": ")
		}
		if len(strs(t, resp, "validation_errors")) == 0 {
			t.Fatalf("no validation_errors: %s", mustJSON(resp))
		}
		wantEqual(t, "count", num(t, resp, "count"), 0)
		wantEqual(t, "results", len(arr(t, resp, "results")), 0)
		wantEqual(t, "search_modes_used", len(arr(t, resp, "search_modes_used")), 0)
		wantEqual(t, "fts_count", num(t, resp, "fts_count"), 0)
		wantEqual(t, "semantic_count", num(t, resp, "semantic_count"), 0)
		wantEqual(t, "fusion_method", str(t, resp, "fusion_method"), "rrf")
		// Also past the depth: validation comes first.
		resp = env.hybrid(t, "alice", M{"query": "lantern", "metadata_filters": badFilter, "offset": 100})
		wantPrefix(t, "error past depth", str(t, resp, "error"), "All available search modes failed.")
	}
	t.Run("FTS only", func(t *testing.T) {
		forEachStore(t, func(t *testing.T, env *env) {
			env.storeAll(t, "alice", hybridEntries())
			t.Run("T-060", func(t *testing.T) { reject(t, env) })
			t.Run("T-061", func(t *testing.T) { allFailed(t, env, "FTS") })
		})
	})
	t.Run("semantic only", func(t *testing.T) {
		forEachStoreEmbed(t, func(t *testing.T, env *env, em *switchEmbedder) {
			env.storeAll(t, "alice", hybridEntries())
			t.Run("T-060", func(t *testing.T) { reject(t, env) })
			t.Run("T-061", func(t *testing.T) {
				before := em.calls.Load()
				allFailed(t, env, "Semantic")
				wantEqual(t, "embedding calls", em.calls.Load(), before)
			})
		}, withFTSDisabled())
	})
	t.Run("both modes", func(t *testing.T) {
		forEachStoreEmbed(t, func(t *testing.T, env *env, _ *switchEmbedder) {
			env.storeAll(t, "alice", hybridEntries())
			t.Run("T-060", func(t *testing.T) { reject(t, env) })
			t.Run("R-103", func(t *testing.T) { allFailed(t, env, "FTS", "Semantic") })
		})
	})
}

// TestHybridDegradation is R-102: a semantic leg that fails at query time
// leaves the full-text results, with a warning.
func TestHybridDegradation(t *testing.T) {
	forEachStoreEmbed(t, func(t *testing.T, env *env, em *switchEmbedder) {
		env.storeAll(t, "alice", hybridEntries())
		healthy := env.hybrid(t, "alice", M{"query": "lantern", "limit": 10})
		wantSlice(t, "healthy modes", strs(t, healthy, "search_modes_used"), []string{"fts", "semantic"})

		em.failing.Store(true)
		resp := env.hybrid(t, "alice", M{"query": "lantern", "limit": 10, "explain_query": true})
		wantSlice(t, "search_modes_used", strs(t, resp, "search_modes_used"), []string{"fts"})
		warnings := strs(t, resp, "warnings")
		wantEqual(t, "warnings", len(warnings), 1)
		wantPrefix(t, "warning", warnings[0], "Semantic sub-search failed; results may be based on FTS only. Semantic: ")
		wantErrContains(t, warnings[0], errProviderDown.Error())
		wantEqual(t, "semantic_count", num(t, resp, "semantic_count"), 0)
		wantEqual(t, "fts_count", num(t, resp, "fts_count"), 5)
		results := hybridScores(t, resp, 60, false)
		wantEqual(t, "results", len(results), 5)
		for _, r := range results {
			wantNull(t, obj(t, r, "scores"), "semantic_rank")
		}
		wantSlice(t, "fts order", resultIDs(t, resp), resultIDs(t, env.fts(t, "alice", M{"query": "lantern", "limit": 10})))
		// semantic_search_context itself reports the failure.
		wantErrContains(t, env.call(t, "alice", "semantic_search_context", M{"query": "lantern"}).err(t), "Failed to generate embedding for query: ")

		em.failing.Store(false)
		again := env.hybrid(t, "alice", M{"query": "lantern", "limit": 10})
		wantSlice(t, "recovered modes", strs(t, again, "search_modes_used"), []string{"fts", "semantic"})
		if hasKey(again, "warnings") {
			t.Fatalf("warnings after recovery: %s", mustJSON(again))
		}
		wantSlice(t, "recovered order", resultIDs(t, again), resultIDs(t, healthy))
	})
}

// TestHybridTies: identical entries tie in both legs; the fused order is
// rrf DESC, id ASC, the same on every page.
func TestHybridTies(t *testing.T) {
	forEachStoreEmbed(t, func(t *testing.T, env *env, _ *switchEmbedder) {
		env.ids.push("50000000000000000000000000000005", "30000000000000000000000000000003",
			"40000000000000000000000000000004", "10000000000000000000000000000001",
			"20000000000000000000000000000002", "60000000000000000000000000000006")
		var entries []M
		for i := 0; i < 6; i++ {
			entries = append(entries, M{"thread_id": fmt.Sprintf("tie-%d", i), "source": "user", "text": "The harbour seal dozed on a warm rock."})
		}
		env.storeAll(t, "alice", entries)
		resp := env.hybrid(t, "alice", M{"query": "seal", "limit": 6})
		for _, r := range hybridScores(t, resp, 60, false) {
			sc := obj(t, r, "scores")
			t.Logf("%s: %s fts_rank %v semantic_rank %v rrf %v", env.kind.name, str(t, r, "id")[:1], sc["fts_rank"], sc["semantic_rank"], sc["rrf"])
		}
		whole := resultIDs(t, resp)
		wantEqual(t, "results", len(whole), 6)
		var paged []string
		for off := 0; off < 6; off += 2 {
			paged = append(paged, resultIDs(t, env.hybrid(t, "alice", M{"query": "seal", "limit": 2, "offset": off}))...)
		}
		wantSlice(t, "tied pages", paged, whole)
	}, withCraftedIDs())
}
