package server_test

// semantic_search_context (B.8, C.4, C.9) and the registration of both
// vector-backed ranked searches (R-080, R-100, R-505, T-128). Every test
// runs on both store kinds: "sqlite" serves vectors from the in-process
// HNSW index, "sqlite-native" from sqlite-vec (the semantic backend
// follows SEARCH_BACKEND).

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/config"
	"github.com/contextd/contextd/model/builtin"
)

// switchEmbedder wraps an embedder, counts its calls and fails every call
// while failing is set: entries are stored with a working provider, which
// is then switched off before the search under test.
type switchEmbedder struct {
	contextd.Embedder
	calls   atomic.Int64
	failing atomic.Bool
}

func newSwitchEmbedder(inner contextd.Embedder) *switchEmbedder {
	return &switchEmbedder{Embedder: inner}
}

// errProviderDown is the failing provider's error.
var errProviderDown = errors.New("embedding provider unreachable (test)")

func (s *switchEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	s.calls.Add(1)
	if s.failing.Load() {
		return nil, errProviderDown
	}
	return s.Embedder.Embed(ctx, texts)
}

// withEmbedder is EMBEDDING_PROVIDER with em as the provider.
func withEmbedder(em contextd.Embedder) envOption {
	return withConfig(func(c *contextd.Config) { c.Embedding.Embedder = em })
}

// withReranker is ENABLE_RERANKING=true with r as the provider.
func withReranker(r contextd.Reranker) envOption {
	return withConfig(func(c *contextd.Config) { c.Rerank.Reranker = r })
}

// withFTSDisabled is ENABLE_FTS=false, applied the way the binary reads it
// (config.FromEnv): full-text search is off in the engine and
// fts_search_context joins DISABLED_TOOLS.
func withFTSDisabled() envOption {
	vars := map[string]string{"ENABLE_FTS": "false", "DB_PATH": "unused.db"}
	c, err := config.FromEnv(func(k string) (string, bool) { v, ok := vars[k]; return v, ok })
	if err != nil {
		panic(fmt.Sprintf("config.FromEnv(ENABLE_FTS=false): %v", err))
	}
	return func(s *envSettings) {
		s.configure = append(s.configure, func(cfg *contextd.Config) { cfg.FTS.Disable = c.Engine.FTS.Disable })
		s.opts.DisabledTools = append(s.opts.DisabledTools, c.Server.DisabledTools...)
	}
}

// forEachStoreEmbed is forEachStore with a fresh switchable built-in
// (GloVe) embedder per store kind.
func forEachStoreEmbed(t *testing.T, fn func(t *testing.T, env *env, em *switchEmbedder), opts ...envOption) {
	t.Helper()
	parallel := settingsOf(opts).parallel
	for _, kind := range vectorKinds() {
		t.Run(kind.name, func(t *testing.T) {
			if parallel {
				t.Parallel()
			}
			em := newSwitchEmbedder(&builtin.Embedder{})
			fn(t, newEnv(t, kind, append([]envOption{withEmbedder(em)}, opts...)...), em)
		})
	}
}

func (e *env) semantic(t *testing.T, principal string, args M) M {
	t.Helper()
	return e.call(t, principal, "semantic_search_context", args).ok(t)
}

// storeAll stores entries through store_context_batch (100 per call) as
// principal and returns their ids in order.
func (e *env) storeAll(t *testing.T, principal string, entries []M) []string {
	t.Helper()
	var ids []string
	for start := 0; start < len(entries); start += 100 {
		batch := entries[start:min(start+100, len(entries))]
		items := make([]any, len(batch))
		for i, en := range batch {
			items[i] = en
		}
		resp := e.call(t, principal, "store_context_batch", M{"entries": items}).ok(t)
		for i, r := range objs(t, arr(t, resp, "results")) {
			if !boolean(t, r, "success") {
				t.Fatalf("store_context_batch entry %d: %s", start+i, mustJSON(r))
			}
			ids = append(ids, str(t, r, "context_id"))
		}
	}
	wantEqual(t, "stored", len(ids), len(entries))
	return ids
}

// rankOf is the 1-based position of id in ids (0 when absent).
func rankOf(ids []string, id string) int {
	return slices.Index(ids, id) + 1
}

// wantNoRepeats fails when an id occurs twice.
func wantNoRepeats(t *testing.T, label string, ids []string) {
	t.Helper()
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("%s: id %s repeats in %v", label, id, ids)
		}
		seen[id] = true
	}
}

// wantKeys fails unless m has exactly the keys want.
func wantKeys(t *testing.T, label string, m M, want ...string) {
	t.Helper()
	var got []string
	for k := range m {
		got = append(got, k)
	}
	sort.Strings(got)
	sort.Strings(want)
	wantSlice(t, label+" keys", got, want)
}

// wantNull fails unless m[key] is present and null.
func wantNull(t *testing.T, m M, key string) {
	t.Helper()
	if v := field(t, m, key); v != nil {
		t.Fatalf("key %q: got %s, want null", key, mustJSON(v))
	}
}

// rankedResultKeys are the keys of a ranked search's result r: the
// entry's, scores, and passage exactly when text_content is truncated (a
// whole text's passage would repeat it).
func rankedResultKeys(r M) []string {
	keys := append(slices.Clone(searchEntryKeys), "scores")
	if truncated, _ := r["is_text_content_truncated"].(bool); truncated {
		keys = append(keys, "passage")
	}
	return keys
}

// searchEntryKeys are the keys of every search result entry (API reference,
// "Entry Fields by Tool"), besides scores.
var searchEntryKeys = []string{"id", "thread_id", "source", "content_type", "text_content", "summary",
	"is_text_content_truncated", "metadata", "tags", "created_at", "updated_at", "visibility", "is_owner"}

// ---- registration ---------------------------------------------------------

func TestSemanticHybridRegistration(t *testing.T) {
	listed := func(t *testing.T, env *env, want map[string]bool) {
		t.Helper()
		names := toolNames(t, env, "alice")
		for tool, on := range want {
			if slices.Contains(names, tool) != on {
				t.Fatalf("%s: listed=%v, want %v (tools %q)", tool, !on, on, names)
			}
		}
	}
	t.Run("R-080 no embedder: semantic absent, hybrid on FTS", func(t *testing.T) {
		forEachStore(t, func(t *testing.T, env *env) {
			listed(t, env, map[string]bool{"semantic_search_context": false, "hybrid_search_context": true, "fts_search_context": true})
			env.storeText(t, "alice", "reg", "user", "registration probe text")
			resp := env.hybrid(t, "alice", M{"query": "registration"})
			wantSlice(t, "search_modes_used", strs(t, resp, "search_modes_used"), []string{"fts"})
		}, withNoEmbedder())
	})
	t.Run("T-128 ENABLE_FTS=false and no embedder: both absent", func(t *testing.T) {
		forEachStore(t, func(t *testing.T, env *env) {
			listed(t, env, map[string]bool{"semantic_search_context": false, "hybrid_search_context": false, "fts_search_context": false})
		}, withFTSDisabled(), withNoEmbedder())
	})
	t.Run("R-100 embedder and ENABLE_FTS=false: hybrid on semantic only", func(t *testing.T) {
		forEachStoreEmbed(t, func(t *testing.T, env *env, _ *switchEmbedder) {
			listed(t, env, map[string]bool{"semantic_search_context": true, "hybrid_search_context": true, "fts_search_context": false})
			id := env.storeText(t, "alice", "reg", "user", "registration probe text")
			resp := env.hybrid(t, "alice", M{"query": "registration", "explain_query": true})
			wantSlice(t, "search_modes_used", strs(t, resp, "search_modes_used"), []string{"semantic"})
			wantEqual(t, "fts_count", num(t, resp, "fts_count"), 0)
			wantEqual(t, "semantic_count", num(t, resp, "semantic_count"), 1)
			wantSlice(t, "ids", resultIDs(t, resp), []string{id})
			sc := obj(t, objs(t, arr(t, resp, "results"))[0], "scores")
			wantNull(t, sc, "fts_rank")
			wantNull(t, sc, "fts_score")
			wantEqual(t, "semantic_rank", num(t, sc, "semantic_rank"), 1)
			st := obj(t, resp, "stats")
			for _, k := range []string{"fts_stats", "adaptive_fts_mode"} {
				if st[k] != nil {
					t.Fatalf("%s without an FTS leg: %s", k, mustJSON(st))
				}
			}
			obj(t, st, "semantic_stats")
		}, withFTSDisabled())
	})
	t.Run("R-080 embedder: both present", func(t *testing.T) {
		forEachStoreEmbed(t, func(t *testing.T, env *env, _ *switchEmbedder) {
			listed(t, env, map[string]bool{"semantic_search_context": true, "hybrid_search_context": true, "fts_search_context": true})
		})
	})
	t.Run("R-080 ENABLE_SEMANTIC_SEARCH=false: semantic absent", func(t *testing.T) {
		forEachStoreEmbed(t, func(t *testing.T, env *env, _ *switchEmbedder) {
			listed(t, env, map[string]bool{"semantic_search_context": false, "hybrid_search_context": true})
		}, withConfig(func(c *contextd.Config) { c.Embedding.DisableSemantic = true }))
	})
}

// ---- paraphrase acceptance ---------------------------------------

// distractorTopics are sentence parts on topics unrelated to cars, engines,
// winter or cold; a sentence takes one part of each list of one topic.
var distractorTopics = [][4][]string{
	{ // cooking
		{"The chef", "My grandmother", "The young baker", "Our neighbour", "The pastry cook"},
		{"seasoned", "sliced", "baked", "simmered", "tasted"},
		{"the tomato sauce", "a loaf of rye bread", "the lentil soup", "fresh basil leaves", "the apple pie"},
		{"for the dinner party", "before the guests arrived", "with a pinch of salt", "in a cast iron pan", "using an old family recipe"},
	},
	{ // gardening
		{"The gardener", "My aunt", "The volunteers", "A retired teacher", "The florist"},
		{"planted", "watered", "pruned", "harvested", "fertilised"},
		{"the rose bushes", "a row of carrots", "the apple trees", "tulip bulbs", "the herb garden"},
		{"along the fence", "after the rain", "behind the greenhouse", "near the pond", "during the spring festival"},
	},
	{ // astronomy
		{"The astronomer", "A student", "The observatory team", "An amateur stargazer", "The research group"},
		{"observed", "photographed", "catalogued", "measured", "discovered"},
		{"a distant galaxy", "the rings of Saturn", "a faint comet", "the moons of Jupiter", "a binary star"},
		{"through a large telescope", "from the mountain observatory", "with a new spectrograph", "over several nights", "near the constellation Orion"},
	},
	{ // finance
		{"The accountant", "The investor", "Our treasurer", "The bank manager", "A financial analyst"},
		{"reviewed", "approved", "audited", "summarised", "reconciled"},
		{"the quarterly budget", "the pension fund", "the tax return", "the loan application", "the dividend report"},
		{"before the board meeting", "for the shareholders", "with careful attention", "at the end of the fiscal year", "in the annual statement"},
	},
	{ // music
		{"The violinist", "The choir", "A jazz pianist", "The orchestra", "The composer"},
		{"rehearsed", "performed", "recorded", "arranged", "improvised"},
		{"a slow sonata", "the opening overture", "an old folk song", "the final movement", "a cheerful melody"},
		{"in the concert hall", "for a sold out audience", "with great emotion", "at the summer festival", "on the radio"},
	},
	{ // sports
		{"The striker", "The tennis champion", "Our team captain", "The young sprinter", "The goalkeeper"},
		{"won", "trained for", "celebrated", "lost", "prepared for"},
		{"the championship final", "the relay race", "the penalty shootout", "the tournament", "the semifinal match"},
		{"in front of the home crowd", "after months of practice", "with a broken finger", "despite the heat", "under the stadium lights"},
	},
	{ // medicine
		{"The nurse", "The surgeon", "A family doctor", "The pharmacist", "The paediatrician"},
		{"examined", "treated", "prescribed", "monitored", "vaccinated"},
		{"the patient with a fever", "a sprained ankle", "the allergy symptoms", "the newborn baby", "the blood pressure readings"},
		{"at the clinic", "during the night shift", "in the emergency ward", "with a gentle manner", "after the lab results came back"},
	},
	{ // law
		{"The judge", "The defence lawyer", "The jury", "A legal clerk", "The prosecutor"},
		{"questioned", "dismissed", "reviewed", "upheld", "challenged"},
		{"the witness statement", "the appeal", "the contract dispute", "the verdict", "the new evidence"},
		{"in the courtroom", "after a long deliberation", "before the hearing", "under the new statute", "with the consent of both parties"},
	},
	{ // software
		{"The developer", "Our test suite", "The database administrator", "A junior programmer", "The release manager"},
		{"refactored", "deployed", "documented", "profiled", "reviewed"},
		{"the payment service", "the search index", "the login page", "the nightly backup job", "the API gateway"},
		{"before the release", "with better logging", "in a pull request", "on the staging server", "after the code review"},
	},
	{ // history and art
		{"The historian", "The museum curator", "A painter", "The archaeologist", "The librarian"},
		{"restored", "studied", "exhibited", "translated", "sketched"},
		{"an ancient manuscript", "a Roman mosaic", "the medieval tapestry", "a portrait of the queen", "the letters of a poet"},
		{"in the national gallery", "for a new exhibition", "with delicate brushes", "from the royal archive", "near the old harbour"},
	},
	{ // ocean and birds
		{"The marine biologist", "A fisherman", "The birdwatcher", "The diving instructor", "The ship captain"},
		{"spotted", "followed", "counted", "filmed", "rescued"},
		{"a pod of dolphins", "a flock of pelicans", "the coral reef", "a stranded whale", "the nesting seagulls"},
		{"along the coast", "near the lighthouse", "at sunset", "in the warm lagoon", "off the rocky island"},
	},
}

// paraphraseTopicWords must not occur in a distractor.
var paraphraseTopicWords = regexp.MustCompile(`(?i)\b(cars?|automobiles?|vehicles?|trucks?|motors?|autos?|engines?|winter|cold|snow|ice|frost|freez\w*)\b`)

// distractorSentences returns n distinct sentences (fixed seed).
func distractorSentences(t *testing.T, n int) []string {
	t.Helper()
	rng := rand.New(rand.NewPCG(4, 1000))
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		tp := distractorTopics[rng.IntN(len(distractorTopics))]
		s := fmt.Sprintf("%s %s %s %s.", tp[0][rng.IntN(5)], tp[1][rng.IntN(5)], tp[2][rng.IntN(5)], tp[3][rng.IntN(5)])
		if seen[s] {
			continue
		}
		if paraphraseTopicWords.MatchString(s) {
			t.Fatalf("distractor on the paraphrase topic: %q", s)
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}

// TestSemanticParaphrase is the acceptance test, through the
// MCP tools: a paraphrase sharing no content word with the query ranks in
// the top 3 among 1,000 unrelated entries.
func TestSemanticParaphrase(t *testing.T) {
	const query = "car engine failure in winter"
	const target = "The automobile would not start in the cold morning"
	forEachStoreEmbed(t, func(t *testing.T, env *env, _ *switchEmbedder) {
		var entries []M
		for i, s := range distractorSentences(t, 1000) {
			entries = append(entries, M{"thread_id": fmt.Sprintf("topic-%02d", i%37), "source": []string{"user", "agent"}[i%2], "text": s})
		}
		entries = append(entries, M{"thread_id": "garage", "source": "user", "text": target})
		ids := env.storeAll(t, "alice", entries)
		want := ids[len(ids)-1]

		sem := env.semantic(t, "alice", M{"query": query, "limit": 10})
		semIDs := resultIDs(t, sem)
		rank := rankOf(semIDs, want)
		t.Logf("%s: semantic_search_context rank of the paraphrase: %d (top 10 %s)", env.kind.name, rank, texts(t, sem))
		if rank < 1 || rank > 3 {
			t.Fatalf("paraphrase rank %d, want 1..3", rank)
		}

		hyb := env.hybrid(t, "alice", M{"query": query, "limit": 10, "explain_query": true})
		hrank := rankOf(resultIDs(t, hyb), want)
		st := obj(t, hyb, "stats")
		t.Logf("%s: hybrid_search_context rank of the paraphrase: %d; fts_count %v semantic_count %v adaptive_fts_mode %v fusion %s",
			env.kind.name, hrank, hyb["fts_count"], hyb["semantic_count"], st["adaptive_fts_mode"], mustJSON(st["fusion_stats"]))
		if hrank < 1 {
			t.Fatalf("paraphrase missing from the hybrid top 10: %s", texts(t, hyb))
		}
		// the semantic leg fetches 100 x HYBRID_RRF_OVERFETCH (2).
		wantEqual(t, "semantic_count", num(t, hyb, "semantic_count"), 200)

		// C.4 over the full depth of 1,001 candidates: pages of 30 cut the
		// one ordering of 100, and the window is served short at its end.
		for _, tool := range []string{"semantic_search_context", "hybrid_search_context"} {
			whole := resultIDs(t, env.call(t, "alice", tool, M{"query": query, "limit": 100}).ok(t))
			wantEqual(t, tool+" depth", len(whole), 100)
			wantNoRepeats(t, tool, whole)
			var paged []string
			for off := 0; off < 100; off += 30 {
				resp := env.call(t, "alice", tool, M{"query": query, "limit": 30, "offset": off}).ok(t)
				paged = append(paged, resultIDs(t, resp)...)
				if off == 90 {
					wantEqual(t, tool+" last page", num(t, resp, "count"), 10)
					wantEqualJSON(t, tool+" rank_depth_limit", resp["rank_depth_limit"], `{"requested_offset":90,"requested_limit":30,"rank_depth":100}`)
				}
			}
			wantSlice(t, tool+" pages", paged, whole)
		}
	}, withParallelKinds())
}

// texts lists "rank:text" of a search response, for messages.
func texts(t *testing.T, resp M) string {
	t.Helper()
	var out []string
	for i, r := range objs(t, arr(t, resp, "results")) {
		out = append(out, fmt.Sprintf("%d:%q", i+1, str(t, r, "text_content")))
	}
	return strings.Join(out, " ")
}

// ---- response shape ------------------------------------------------------

func TestSemanticResponseShape(t *testing.T) {
	seed := func(t *testing.T, env *env) []string {
		return env.storeAll(t, "alice", []M{
			{"thread_id": "shape", "source": "user", "text": "The kitten chased a ball of yarn across the kitchen floor."},
			{"thread_id": "shape", "source": "agent", "text": "Our cat sleeps on the sofa all afternoon.", "tags": []string{"pets"}},
			{"thread_id": "shape", "source": "user", "text": "The quarterly budget was approved by the board.", "metadata": M{"kind": "finance"}},
			{"thread_id": "other", "source": "user", "text": "A puppy and a kitten played in the garden.", "visibility": "public"},
		})
	}
	t.Run("R-084 without reranker", func(t *testing.T) {
		forEachStoreEmbed(t, func(t *testing.T, env *env, _ *switchEmbedder) {
			seed(t, env)
			resp := env.semantic(t, "alice", M{"query": "cat", "limit": 10})
			wantKeys(t, "response", resp, "query", "results", "count", "model")
			wantEqual(t, "query", str(t, resp, "query"), "cat")
			wantEqual(t, "model", str(t, resp, "model"), builtin.EmbedderModel)
			results := objs(t, arr(t, resp, "results"))
			wantEqual(t, "count", int(num(t, resp, "count")), len(results))
			wantEqual(t, "count", len(results), 4)
			prev := -1.0
			for _, r := range results {
				wantKeys(t, "result", r, rankedResultKeys(r)...)
				sc := obj(t, r, "scores")
				wantKeys(t, "scores", sc, "semantic_distance", "semantic_rank")
				d := num(t, sc, "semantic_distance")
				if d < 0 || d < prev {
					t.Fatalf("semantic_distance %v after %v: want >= 0 and ascending", d, prev)
				}
				prev = d
				wantNull(t, sc, "semantic_rank")
				wantEqual(t, "is_owner", boolean(t, r, "is_owner"), true)
				if _, ok := r["summary"].(string); !ok {
					t.Fatalf("summary is not a string: %s", mustJSON(r))
				}
			}
		})
	})
	t.Run("R-084 explain_query", func(t *testing.T) {
		forEachStoreEmbed(t, func(t *testing.T, env *env, _ *switchEmbedder) {
			seed(t, env)
			resp := env.semantic(t, "alice", M{"query": "cat", "thread_id": "shape", "limit": 10, "explain_query": true})
			st := obj(t, resp, "stats")
			wantEqual(t, "rows_returned", num(t, st, "rows_returned"), 3)
			wantEqual(t, "filters_applied", num(t, st, "filters_applied"), 1)
			for _, k := range []string{"execution_time_ms", "embedding_generation_ms", "backend", "query_plan"} {
				if !hasKey(st, k) {
					t.Fatalf("stats lacks %s: %s", k, mustJSON(st))
				}
			}
		})
	})
	t.Run("R-372 with reranker", func(t *testing.T) {
		forEachStoreEmbed(t, func(t *testing.T, env *env, _ *switchEmbedder) {
			seed(t, env)
			resp := env.semantic(t, "alice", M{"query": "kitten", "limit": 10})
			prev := 2.0
			for _, r := range objs(t, arr(t, resp, "results")) {
				sc := obj(t, r, "scores")
				wantKeys(t, "scores", sc, "semantic_distance", "semantic_rank", "rerank_score")
				s := num(t, sc, "rerank_score")
				if s < 0 || s > 1 || s > prev {
					t.Fatalf("rerank_score %v after %v: want in [0,1], descending", s, prev)
				}
				prev = s
				if num(t, sc, "semantic_distance") < 0 {
					t.Fatalf("semantic_distance %v < 0", sc["semantic_distance"])
				}
				wantNull(t, sc, "semantic_rank")
			}
			top := objs(t, arr(t, resp, "results"))[0]
			wantErrContains(t, str(t, top, "text_content"), "kitten")
		}, withReranker(builtin.Lexical{}))
	})
}

// ---- pagination (C.4) -----------------------------------------------------

// pagedWalk checks T-052 for tool: pages of limit 2 at offsets 0,2,4,6
// concatenate to the limit-8 page, with no id repeated.
func pagedWalk(t *testing.T, env *env, tool string, args M) {
	t.Helper()
	page := func(limit, offset int) []string {
		a := M{"limit": limit, "offset": offset}
		for k, v := range args {
			a[k] = v
		}
		return resultIDs(t, env.call(t, "alice", tool, a).ok(t))
	}
	var paged []string
	for off := 0; off < 8; off += 2 {
		p := page(2, off)
		wantEqual(t, fmt.Sprintf("%s page at %d", tool, off), len(p), 2)
		paged = append(paged, p...)
	}
	whole := page(8, 0)
	wantSlice(t, tool+" pages", paged, whole)
	wantNoRepeats(t, tool, paged)
	wantSlice(t, tool+" repeated query", page(8, 0), whole)
}

// pagingEntries are 14 entries about pets and food, of varying relevance.
func pagingEntries() []M {
	var out []M
	subjects := []string{"cat", "kitten", "dog", "puppy", "parrot", "hamster", "rabbit"}
	for i := 0; i < 14; i++ {
		out = append(out, M{"thread_id": "pages", "source": "user",
			"text": fmt.Sprintf("The %s ate its dinner %s and then slept near the %s.", subjects[i%7], strings.Repeat("slowly ", i%3+1), []string{"window", "door"}[i%2])})
	}
	return out
}

func TestSemanticRankedPagination(t *testing.T) {
	for _, variant := range []struct {
		name string
		opts []envOption
	}{{"no reranker", nil}, {"reranker", []envOption{withReranker(builtin.Lexical{})}}} {
		t.Run(variant.name, func(t *testing.T) {
			forEachStoreEmbed(t, func(t *testing.T, env *env, _ *switchEmbedder) {
				env.storeAll(t, "alice", pagingEntries())
				t.Run("T-052 semantic", func(t *testing.T) {
					pagedWalk(t, env, "semantic_search_context", M{"query": "cat dinner"})
				})
				t.Run("T-052 hybrid", func(t *testing.T) {
					pagedWalk(t, env, "hybrid_search_context", M{"query": "cat dinner"})
				})
				t.Run("T-052 hybrid adaptive OR", func(t *testing.T) {
					pagedWalk(t, env, "hybrid_search_context", M{"query": "the kitten slept near window"})
				})
			}, variant.opts...)
		})
	}
}

func TestSemanticRankDepth(t *testing.T) {
	forEachStoreEmbed(t, func(t *testing.T, env *env, em *switchEmbedder) {
		env.storeAll(t, "alice", pagingEntries())
		t.Run("R-331 window inside the depth", func(t *testing.T) {
			for _, tool := range []string{"semantic_search_context", "hybrid_search_context"} {
				if resp := env.call(t, "alice", tool, M{"query": "cat", "limit": 100}).ok(t); hasKey(resp, "rank_depth_limit") {
					t.Fatalf("%s: rank_depth_limit at limit=100 offset=0", tool)
				}
				resp := env.call(t, "alice", tool, M{"query": "cat", "limit": 5, "offset": 99}).ok(t)
				wantEqualJSON(t, tool+" rank_depth_limit", resp["rank_depth_limit"], `{"requested_offset":99,"requested_limit":5,"rank_depth":100}`)
				wantEqual(t, tool+" count past the candidates", num(t, resp, "count"), 0)
			}
		})
		t.Run("R-334 clamped", func(t *testing.T) {
			for _, tool := range []string{"semantic_search_context", "hybrid_search_context"} {
				resp := env.call(t, "alice", tool, M{"query": "cat", "limit": 500}).ok(t)
				wantEqualJSON(t, tool+" clamped_limit", resp["clamped_limit"], `{"requested":500,"applied":100}`)
				wantEqual(t, tool+" count", num(t, resp, "count"), 14)
			}
		})
		t.Run("T-054 offset 100, provider failing", func(t *testing.T) {
			em.failing.Store(true)
			defer em.failing.Store(false)
			before := em.calls.Load()
			resp := env.semantic(t, "alice", M{"query": "cat", "offset": 100, "limit": 7})
			wantKeys(t, "semantic past depth", resp, "query", "model", "results", "count", "rank_depth_limit")
			wantEqual(t, "results", len(arr(t, resp, "results")), 0)
			wantEqual(t, "count", num(t, resp, "count"), 0)
			wantEqual(t, "model", str(t, resp, "model"), builtin.EmbedderModel)
			wantEqualJSON(t, "rank_depth_limit", resp["rank_depth_limit"], `{"requested_offset":100,"requested_limit":7,"rank_depth":100}`)

			resp = env.hybrid(t, "alice", M{"query": "cat", "offset": 250})
			wantEqual(t, "hybrid results", len(arr(t, resp, "results")), 0)
			wantEqual(t, "hybrid count", num(t, resp, "count"), 0)
			wantEqual(t, "hybrid search_modes_used", len(arr(t, resp, "search_modes_used")), 0)
			wantEqual(t, "hybrid fts_count", num(t, resp, "fts_count"), 0)
			wantEqual(t, "hybrid semantic_count", num(t, resp, "semantic_count"), 0)
			wantEqual(t, "hybrid fusion_method", str(t, resp, "fusion_method"), "rrf")
			wantEqualJSON(t, "hybrid rank_depth_limit", resp["rank_depth_limit"], `{"requested_offset":250,"requested_limit":5,"rank_depth":100}`)
			if hasKey(resp, "warnings") {
				t.Fatalf("warnings on a short-circuited page: %s", mustJSON(resp))
			}
			wantEqual(t, "embedding calls at offset >= 100", em.calls.Load(), before)

			// The same provider does fail a search inside the depth.
			msg := env.call(t, "alice", "semantic_search_context", M{"query": "cat"}).err(t)
			wantErrContains(t, msg, "Failed to generate embedding for query: ")
			wantErrContains(t, msg, errProviderDown.Error())
			if em.calls.Load() == before {
				t.Fatal("a search inside the depth made no embedding call")
			}
		})
		t.Run("R-081 filter errors before embedding", func(t *testing.T) {
			before := em.calls.Load()
			resp := env.semantic(t, "alice", M{"query": "cat", "explain_query": true,
				"metadata_filters": []any{M{"key": "a", "operator": "nope", "value": 1}}})
			wantEqual(t, "error", str(t, resp, "error"), "Metadata filter validation failed")
			if len(strs(t, resp, "validation_errors")) == 0 {
				t.Fatal("no validation_errors")
			}
			wantEqual(t, "count", num(t, resp, "count"), 0)
			wantEqual(t, "model", str(t, resp, "model"), builtin.EmbedderModel)
			wantEqual(t, "embedding_generation_ms", num(t, obj(t, resp, "stats"), "embedding_generation_ms"), 0)
			wantEqual(t, "embedding calls", em.calls.Load(), before)
		})
	})
}

// ---- hidden == absent, filters inside the search ---------------------------

// TestSemanticHybridAccess: entries another principal may not read never
// appear, count or take a slot, even when they are the nearest to the
// query by far and outnumber the candidate depth; filters select inside
// the search, not after it.
func TestSemanticHybridAccess(t *testing.T) {
	forEachStoreEmbed(t, func(t *testing.T, env *env, _ *switchEmbedder) {
		// 120 private entries of bob, exactly on the query's topic.
		var near []M
		for i := 0; i < 120; i++ {
			near = append(near, M{"thread_id": "shared", "source": "user",
				"text": fmt.Sprintf("Secret harbour lighthouse keeper notes number %d about the lighthouse and the harbour.", i)})
		}
		env.storeAll(t, "bob", near)
		// Alice's entries: far from the query, some public.
		alicePrivate := env.storeAll(t, "alice", []M{
			{"thread_id": "shared", "source": "user", "text": "Quarterly budget review of the lighthouse fund.", "tags": []string{"finance"}},
			{"thread_id": "mine", "source": "agent", "text": "Budget lighthouse spreadsheet totals.", "metadata": M{"priority": 9}},
		})
		alicePublic := env.storeAll(t, "alice", []M{
			{"thread_id": "shared", "source": "user", "visibility": "public", "text": "Public lighthouse tour timetable and ticket prices.", "tags": []string{"tour"}},
			{"thread_id": "shared", "source": "agent", "visibility": "public", "text": "Lighthouse museum opening announcement for visitors.", "metadata": M{"priority": 2}},
		})
		query := "lighthouse keeper at the harbour"
		tools := []string{"semantic_search_context", "hybrid_search_context"}

		t.Run("carol sees only public entries", func(t *testing.T) {
			for _, tool := range tools {
				resp := env.call(t, "carol", tool, M{"query": query, "limit": 100}).ok(t)
				wantSet(t, tool, resultIDs(t, resp), alicePublic)
				wantEqual(t, tool+" count", int(num(t, resp, "count")), 2)
				for _, r := range objs(t, arr(t, resp, "results")) {
					wantEqual(t, "is_owner", boolean(t, r, "is_owner"), false)
					wantEqual(t, "visibility", str(t, r, "visibility"), "public")
				}
				if tool == "hybrid_search_context" {
					wantEqual(t, "fts_count", num(t, resp, "fts_count"), 2)
					wantEqual(t, "semantic_count", num(t, resp, "semantic_count"), 2)
				}
			}
		})
		t.Run("hidden entries never take a slot", func(t *testing.T) {
			for _, tool := range tools {
				var paged []string
				for off := 0; off < 3; off++ {
					paged = append(paged, resultIDs(t, env.call(t, "carol", tool, M{"query": query, "limit": 1, "offset": off}).ok(t))...)
				}
				wantSet(t, tool+" pages", paged, alicePublic)
			}
		})
		t.Run("alice: own and public, not bob's", func(t *testing.T) {
			for _, tool := range tools {
				resp := env.call(t, "alice", tool, M{"query": query, "limit": 100}).ok(t)
				wantSet(t, tool, resultIDs(t, resp), append(slices.Clone(alicePrivate), alicePublic...))
			}
		})
		t.Run("bob: own 120 plus alice's public, nearest first", func(t *testing.T) {
			resp := env.semantic(t, "bob", M{"query": query, "limit": 100})
			wantEqual(t, "count", num(t, resp, "count"), 100)
			for _, r := range objs(t, arr(t, resp, "results")) {
				if slices.Contains(alicePrivate, str(t, r, "id")) {
					t.Fatalf("bob sees alice's private %s", str(t, r, "id"))
				}
			}
		})
		t.Run("filters apply inside the search", func(t *testing.T) {
			tests := []struct {
				name string
				args M
				want []string
			}{
				{"thread_id", M{"thread_id": "mine"}, alicePrivate[1:]},
				{"tags", M{"tags": []string{"finance", "tour"}}, []string{alicePrivate[0], alicePublic[0]}},
				{"metadata_filters", M{"metadata_filters": []any{M{"key": "priority", "operator": "gte", "value": 5}}}, alicePrivate[1:]},
				{"metadata", M{"metadata": M{"priority": 2}}, alicePublic[1:]},
				{"source", M{"source": "agent"}, []string{alicePrivate[1], alicePublic[1]}},
				{"end_date before", M{"end_date": "2025-11-19"}, nil},
				{"start_date after", M{"start_date": "2025-11-21"}, nil},
				{"date range", M{"start_date": "2025-11-20", "end_date": "2025-11-20"}, append(slices.Clone(alicePrivate), alicePublic...)},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					for _, tool := range tools {
						// Bob's 120 nearer entries would fill the depth if
						// the filter ran after the ranking; as alice they
						// are hidden, as bob they are filtered by thread.
						args := M{"query": query, "limit": 100}
						for k, v := range tc.args {
							args[k] = v
						}
						resp := env.call(t, "alice", tool, args).ok(t)
						wantSet(t, tool+" "+tc.name, resultIDs(t, resp), tc.want)
						wantEqual(t, tool+" count", int(num(t, resp, "count")), len(tc.want))
					}
				})
			}
			// As bob, a filter picks alice's far public entries out of 120
			// nearer ones of his own.
			for _, tool := range tools {
				resp := env.call(t, "bob", tool, M{"query": query, "limit": 100, "tags": []string{"tour"}}).ok(t)
				wantSet(t, tool+" bob tags", resultIDs(t, resp), alicePublic[:1])
				resp = env.call(t, "bob", tool, M{"query": query, "limit": 100, "metadata_filters": []any{M{"key": "priority", "operator": "exists"}}}).ok(t)
				wantSet(t, tool+" bob metadata_filters", resultIDs(t, resp), alicePublic[1:])
			}
		})
	})
}

// wantRRF fails unless got equals want to 1e-12.
func wantRRF(t *testing.T, label string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-12 {
		t.Fatalf("%s: rrf %v, want %v", label, got, want)
	}
}

// TestSemanticTies is R-333: entries at the same distance are ordered by id
// ascending, whatever order they were stored in, on every page.
func TestSemanticTies(t *testing.T) {
	forEachStoreEmbed(t, func(t *testing.T, env *env, _ *switchEmbedder) {
		tied := []string{
			"50000000000000000000000000000005", "30000000000000000000000000000003",
			"40000000000000000000000000000004", "10000000000000000000000000000001",
			"20000000000000000000000000000002",
		}
		env.ids.push(tied...)
		var entries []M
		for i := range tied {
			// Distinct threads: the same text is not merged.
			entries = append(entries, M{"thread_id": fmt.Sprintf("tie-%d", i), "source": "user", "text": "The harbour seal dozed on a warm rock."})
		}
		env.storeAll(t, "alice", entries)
		env.storeText(t, "alice", "tie-x", "user", "Stock prices fell sharply after the announcement.")
		want := slices.Sorted(slices.Values(tied))
		resp := env.semantic(t, "alice", M{"query": "seal on a rock", "limit": 5})
		wantSlice(t, "tied order", resultIDs(t, resp), want)
		var paged []string
		for off := 0; off < 5; off += 2 {
			paged = append(paged, resultIDs(t, env.semantic(t, "alice", M{"query": "seal on a rock", "limit": 2, "offset": off}))...)
		}
		wantSlice(t, "tied pages", paged[:5], want)
	}, withCraftedIDs())
}

// TestSemanticFollowsWritesAndGrants: the vectors follow update, delete,
// share and unshare at once, on both vector backends.
func TestSemanticFollowsWritesAndGrants(t *testing.T) {
	forEachStoreEmbed(t, func(t *testing.T, env *env, _ *switchEmbedder) {
		id := env.storeText(t, "alice", "w", "user", "The kitten purred on the sunny windowsill.")
		other := env.storeText(t, "alice", "w", "agent", "The accountant reconciled the pension fund ledger.")
		top := func(who, q string) []string {
			return resultIDs(t, env.semantic(t, who, M{"query": q, "thread_id": "w", "limit": 10}))
		}
		wantSlice(t, "stored", top("alice", "cat sleeping in the sun"), []string{id, other})
		env.call(t, "alice", "update_context", M{"context_id": id, "text": "The auditors reviewed the tax return and the budget."}).ok(t)
		wantSlice(t, "updated", top("alice", "cat sleeping in the sun")[:1], []string{other})
		wantSlice(t, "updated finance", top("alice", "auditors tax return")[:1], []string{id})
		env.call(t, "alice", "delete_context", M{"context_ids": []string{id}}).ok(t)
		wantSlice(t, "deleted", top("alice", "auditors tax return"), []string{other})
		hybrid := resultIDs(t, env.hybrid(t, "alice", M{"query": "auditors tax return", "thread_id": "w", "limit": 10}))
		wantSlice(t, "deleted (hybrid)", hybrid, []string{other})

		wantSlice(t, "bob before", top("bob", "pension ledger"), nil)
		share := M{"context_id": other, "principal_type": "user", "principal_id": "bob", "permission": "read"}
		env.call(t, "alice", "share_context", share).ok(t)
		wantSlice(t, "bob shared", top("bob", "pension ledger"), []string{other})
		env.call(t, "alice", "unshare_context", share).ok(t)
		wantSlice(t, "bob unshared", top("bob", "pension ledger"), nil)
		wantEqual(t, "bob hybrid unshared", num(t, env.hybrid(t, "bob", M{"query": "pension ledger"}), "count"), 0)
	})
}

// TestSemanticBestChunk is: a long entry is as near as its
// best chunk, and the reranker reads that chunk, not the start of the text.
func TestSemanticBestChunk(t *testing.T) {
	forEachStoreEmbed(t, func(t *testing.T, env *env, _ *switchEmbedder) {
		var b strings.Builder
		for i := 0; b.Len() < 4000; i++ {
			fmt.Fprintf(&b, "The accountant reconciled ledger page %d of the pension fund before the audit. ", i)
		}
		b.WriteString("Meanwhile the kitten chased a cat toy across the kitchen.")
		long := env.storeText(t, "alice", "chunks", "user", b.String())
		short := env.storeText(t, "alice", "chunks", "agent", "The treasurer approved the quarterly budget.")
		resp := env.semantic(t, "alice", M{"query": "kitten cat", "limit": 10})
		wantSlice(t, "order", resultIDs(t, resp), []string{long, short})
		r := objs(t, arr(t, resp, "results"))[0]
		wantEqual(t, "truncated", boolean(t, r, "is_text_content_truncated"), true)
		if s := num(t, obj(t, r, "scores"), "rerank_score"); s <= 0 {
			t.Fatalf("rerank_score %v: the reranker did not read the matching chunk", s)
		}
		wantEqual(t, "short entry rerank_score", num(t, obj(t, objs(t, arr(t, resp, "results"))[1], "scores"), "rerank_score"), 0)
	}, withReranker(builtin.Lexical{}))
}
