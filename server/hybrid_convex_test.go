package server_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/internal/rank"
)

// TestHybridConvexDefault: without HYBRID_FUSION the server fuses by the
// convex combination of min-max normalised scores (the rest of
// the suite pins R-360's RRF). Every candidate of both legs is on the
// page, so each rrf is recomputed from the page's own fts_score and
// semantic_distance; fusion_method "rrf" still gives R-360's scores.
func TestHybridConvexDefault(t *testing.T) {
	forEachStoreEmbed(t, func(t *testing.T, env *env, _ *switchEmbedder) {
		env.storeAll(t, "alice", hybridEntries())
		resp := env.hybrid(t, "alice", M{"query": "lantern", "limit": 10})
		wantEqual(t, "fusion_method", str(t, resp, "fusion_method"), "convex")
		results := objs(t, arr(t, resp, "results"))
		wantEqual(t, "results", len(results), 10)
		wantEqual(t, "fts_count", num(t, resp, "fts_count"), 5)
		wantEqual(t, "semantic_count", num(t, resp, "semantic_count"), 10)
		tlo, thi, slo, shi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
		for _, r := range results {
			sc := obj(t, r, "scores")
			if sc["fts_score"] != nil {
				tlo, thi = math.Min(tlo, num(t, sc, "fts_score")), math.Max(thi, num(t, sc, "fts_score"))
			}
			d := num(t, sc, "semantic_distance")
			slo, shi = math.Min(slo, 1-d*d/2), math.Max(shi, 1-d*d/2)
		}
		// "lantern", one word its first full-text hits hold, is a lexical
		// match by share: the in-process backend caps the weight at
		// rank.MatchWeight; a native one measures no evidence and keeps
		// the default (rank.AdaptiveWeight).
		a := rank.DefaultSemanticWeight
		if env.kind.search == contextd.BackendInProcess {
			a = rank.MatchWeight
		}
		for i, r := range results {
			sc := obj(t, r, "scores")
			want := 0.0
			if sc["fts_score"] != nil {
				want += (1 - a) * (num(t, sc, "fts_score") - tlo) / (thi - tlo)
			}
			d := num(t, sc, "semantic_distance")
			want += a * (1 - d*d/2 - slo) / (shi - slo)
			got := num(t, sc, "rrf")
			if math.Abs(got-want) > 1e-9 {
				t.Fatalf("result %d: fused score %v, want %v (%s)", i, got, want, mustJSON(sc))
			}
			if i > 0 {
				prev := num(t, obj(t, results[i-1], "scores"), "rrf")
				if got > prev || got == prev && str(t, r, "id") < str(t, results[i-1], "id") {
					t.Fatalf("result %d (%v) after (%v): want score DESC, id ASC", i, got, prev)
				}
			}
		}
		hybridScores(t, env.hybrid(t, "alice", M{"query": "lantern", "limit": 10, "fusion_method": "rrf"}), 60, false)
		env.call(t, "alice", "hybrid_search_context", M{"query": "lantern", "fusion_method": "weighted"}).err(t)
	}, withConfig(func(c *contextd.Config) { c.Hybrid.Fusion = "" }))
}

// TestHybridConvexHiddenEntries: the normalisation reads only the caller's
// candidates, so another principal's private entries, even better matches
// by far and more than the leg depth, change nothing in alice's results:
// not the order, not one fused score (in-process, where the full-text
// statistics are those of the readable set too; FTS5's bm25 counts every
// row, see Security notes).
func TestHybridConvexHiddenEntries(t *testing.T) {
	forEachStoreEmbed(t, func(t *testing.T, env *env, _ *switchEmbedder) {
		if env.kind.search != contextd.BackendInProcess {
			t.Skip("native full-text statistics count every entry")
		}
		env.storeAll(t, "alice", hybridEntries())
		args := M{"query": "lantern by the river", "limit": 10}
		before := mustJSON(arr(t, env.hybrid(t, "alice", args), "results"))
		var hidden []M
		for i := range 250 {
			hidden = append(hidden, M{"thread_id": "hy", "source": "user",
				"text": fmt.Sprintf("Lantern %d: a lantern lantern lit by the river, lantern by the river.", i)})
		}
		env.storeAll(t, "bob", hidden)
		if after := mustJSON(arr(t, env.hybrid(t, "alice", args), "results")); after != before {
			t.Fatalf("alice's results changed with bob's private entries:\nbefore %s\nafter  %s", before, after)
		}
	}, withConfig(func(c *contextd.Config) { c.Hybrid.Fusion = "" }))
}
