package server_test

// fts_search_context (B.9, C.4, C.5, C.7): every test runs against both
// search backends (storeKinds: in-process Bleve and native FTS5), so the
// hidden-entry and filter rules are proven identical in both.

import (
	"fmt"
	"strings"
	"testing"
)

func (e *env) fts(t *testing.T, principal string, args M) M {
	t.Helper()
	return e.call(t, principal, "fts_search_context", args).ok(t)
}

func TestFTSModes(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		auth := env.storeText(t, "alice", "fts", "user", "The authentication module is ready.")
		refused := env.storeText(t, "alice", "fts", "user", "The server logged connection refused twice.")
		reversed := env.storeText(t, "alice", "fts", "agent", "It refused connection attempts from the proxy.")
		py := env.storeText(t, "alice", "fts", "user", "Python tooling for the build.")
		both := env.storeText(t, "alice", "fts", "agent", "Python and Java bindings.")
		_ = reversed
		ids := func(args M) []string { return resultIDs(t, env.fts(t, "alice", args)) }

		t.Run("T-055 operator words only", func(t *testing.T) {
			resp := env.fts(t, "alice", M{"query": "and or not"})
			wantEqual(t, "count", num(t, resp, "count"), 0)
			for _, q := range []string{"cat(", "foo:bar", `"x`} {
				for _, mode := range []string{"match", "prefix", "phrase", "boolean"} {
					env.fts(t, "alice", M{"query": q, "mode": mode})
				}
			}
		})
		t.Run("T-056 prefix", func(t *testing.T) {
			wantSet(t, "auth*", ids(M{"query": "auth", "mode": "prefix"}), []string{auth})
		})
		t.Run("T-056 phrase keeps order", func(t *testing.T) {
			wantSet(t, "phrase", ids(M{"query": "connection refused", "mode": "phrase"}), []string{refused})
		})
		t.Run("T-056 boolean NOT", func(t *testing.T) {
			wantSet(t, "python NOT java", ids(M{"query": "python NOT java", "mode": "boolean", "limit": 10}), []string{py})
			wantSet(t, "or", ids(M{"query": "java OR authentication", "mode": "boolean", "limit": 10}), []string{both, auth})
		})
		t.Run("T-056 malformed boolean degrades", func(t *testing.T) {
			resp := env.fts(t, "alice", M{"query": "(python AND", "mode": "boolean", "limit": 10})
			wantSet(t, "degraded", resultIDs(t, resp), []string{py, both})
		})
		t.Run("match stems", func(t *testing.T) {
			wantSet(t, "refusing", ids(M{"query": "refusing connections", "limit": 10}), []string{refused, reversed})
		})
		t.Run("response shape", func(t *testing.T) {
			resp := env.fts(t, "alice", M{"query": "python", "limit": 10})
			wantEqual(t, "query", str(t, resp, "query"), "python")
			wantEqual(t, "mode", str(t, resp, "mode"), "match")
			wantEqual(t, "language", str(t, resp, "language"), "english")
			for _, r := range objs(t, arr(t, resp, "results")) {
				sc := obj(t, r, "scores")
				if num(t, sc, "fts_score") <= 0 {
					t.Fatalf("fts_score %v is not positive", sc["fts_score"])
				}
				if v, ok := sc["fts_rank"]; !ok || v != nil {
					t.Fatalf("fts_rank = %v (present %v), want null", v, ok)
				}
				for _, k := range []string{"summary", "is_text_content_truncated", "visibility", "is_owner"} {
					if !hasKey(r, k) {
						t.Fatalf("result lacks %s: %s", k, mustJSON(r))
					}
				}
				if hasKey(r, "highlighted") {
					t.Fatal("highlighted present without highlight=true")
				}
			}
			if hasKey(resp, "stats") || hasKey(resp, "rank_depth_limit") {
				t.Fatalf("unexpected keys: %s", mustJSON(resp))
			}
		})
	})
}

func TestFTSHighlightAndValidation(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		env.storeText(t, "alice", "fts", "user", "Connection refused by the database server.")
		t.Run("T-057 highlight", func(t *testing.T) {
			r := objs(t, arr(t, env.fts(t, "alice", M{"query": "refused", "highlight": true}), "results"))
			if len(r) != 1 {
				t.Fatalf("%d results", len(r))
			}
			wantEqual(t, "highlighted", str(t, r[0], "highlighted"), "Connection <mark>refused</mark> by the database server.")
		})
		t.Run("T-058 too long", func(t *testing.T) {
			env.call(t, "alice", "fts_search_context", M{"query": strings.Repeat("a", 10001)}).err(t)
		})
		t.Run("T-058 NUL", func(t *testing.T) {
			resp := env.fts(t, "alice", M{"query": "a\x00b"})
			wantEqual(t, "error", str(t, resp, "error"), "FTS query validation failed")
			wantSlice(t, "validation_errors", strs(t, resp, "validation_errors"),
				[]string{"Query contains an embedded NUL (U+0000) character, which full-text search cannot parse"})
		})
		t.Run("bad mode", func(t *testing.T) {
			env.call(t, "alice", "fts_search_context", M{"query": "a", "mode": "fuzzy"}).err(t)
		})
		t.Run("explain", func(t *testing.T) {
			st := obj(t, env.fts(t, "alice", M{"query": "refused", "explain_query": true, "thread_id": "fts"}), "stats")
			wantEqual(t, "rows_returned", num(t, st, "rows_returned"), 1)
			wantEqual(t, "filters_applied", num(t, st, "filters_applied"), 1)
			for _, k := range []string{"execution_time_ms", "backend", "query_plan"} {
				if !hasKey(st, k) {
					t.Fatalf("stats lacks %s", k)
				}
			}
		})
		t.Run("metadata filter problem", func(t *testing.T) {
			resp := env.fts(t, "alice", M{"query": "refused", "metadata_filters": []any{M{"key": "a", "operator": "nope", "value": 1}}})
			wantEqual(t, "error", str(t, resp, "error"), "Metadata filter validation failed")
		})
	})
}

func TestFTSRankedPagination(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		for i := 0; i < 12; i++ {
			env.storeText(t, "alice", "pages", "user", fmt.Sprintf("alpha report %d %s", i, strings.Repeat("alpha ", i%4)))
		}
		t.Run("T-052 pages concatenate", func(t *testing.T) {
			var paged []string
			for off := 0; off < 8; off += 2 {
				paged = append(paged, resultIDs(t, env.fts(t, "alice", M{"query": "alpha", "limit": 2, "offset": off}))...)
			}
			whole := resultIDs(t, env.fts(t, "alice", M{"query": "alpha", "limit": 8}))
			wantSlice(t, "pages", paged, whole)
			seen := map[string]bool{}
			for _, id := range paged {
				if seen[id] {
					t.Fatalf("id %s repeats", id)
				}
				seen[id] = true
			}
		})
		t.Run("T-053 depth", func(t *testing.T) {
			if resp := env.fts(t, "alice", M{"query": "alpha", "limit": 100}); hasKey(resp, "rank_depth_limit") {
				t.Fatal("rank_depth_limit at limit=100 offset=0")
			}
			resp := env.fts(t, "alice", M{"query": "alpha", "limit": 5, "offset": 99})
			wantEqualJSON(t, "rank_depth_limit", resp["rank_depth_limit"], `{"requested_offset":99,"requested_limit":5,"rank_depth":100}`)
		})
		t.Run("T-054 past depth", func(t *testing.T) {
			resp := env.fts(t, "alice", M{"query": "alpha", "offset": 100})
			wantEqual(t, "count", num(t, resp, "count"), 0)
			wantEqual(t, "results", len(arr(t, resp, "results")), 0)
			wantEqualJSON(t, "rank_depth_limit", resp["rank_depth_limit"], `{"requested_offset":100,"requested_limit":5,"rank_depth":100}`)
			wantEqual(t, "language", str(t, resp, "language"), "english")
		})
		t.Run("clamped limit", func(t *testing.T) {
			resp := env.fts(t, "alice", M{"query": "alpha", "limit": 500})
			wantEqualJSON(t, "clamped_limit", resp["clamped_limit"], `{"requested":500,"applied":100}`)
			wantEqual(t, "count", num(t, resp, "count"), 12)
		})
	})
}

func TestFTSHiddenEntries(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		var public []string
		for i := 0; i < 3; i++ {
			env.store(t, "alice", M{"thread_id": "shared", "source": "user", "text": fmt.Sprintf("deploy secret plan %d zyxword", i)})
		}
		for i := 0; i < 2; i++ {
			public = append(public, env.store(t, "alice", M{"thread_id": "shared", "source": "agent", "visibility": "public",
				"text": fmt.Sprintf("deploy public notes %d", i)}))
		}
		t.Run("T-062 count", func(t *testing.T) {
			resp := env.fts(t, "bob", M{"query": "deploy", "thread_id": "shared", "limit": 10})
			wantEqual(t, "count", num(t, resp, "count"), 2)
			wantSet(t, "ids", resultIDs(t, resp), public)
			wantEqual(t, "alice count", num(t, env.fts(t, "alice", M{"query": "deploy", "limit": 10}), "count"), 5)
		})
		t.Run("hidden never take a slot", func(t *testing.T) {
			var paged []string
			for off := 0; off < 3; off++ {
				paged = append(paged, resultIDs(t, env.fts(t, "bob", M{"query": "deploy", "limit": 1, "offset": off}))...)
			}
			wantSet(t, "pages", paged, public)
		})
		t.Run("prefix on hidden text", func(t *testing.T) {
			for _, mode := range []string{"prefix", "match", "phrase", "boolean"} {
				resp := env.fts(t, "bob", M{"query": "zyxwor", "mode": mode})
				if mode == "prefix" || mode == "match" {
					wantEqual(t, mode+" count", num(t, resp, "count"), 0)
				}
			}
			wantEqual(t, "secret", num(t, env.fts(t, "bob", M{"query": "secret OR zyxword", "mode": "boolean"}), "count"), 0)
		})
	})
}

func TestFTSFilters(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		a := env.store(t, "alice", M{"thread_id": "f1", "source": "user", "text": "kiwi one", "tags": []string{"fruit"}, "metadata": M{"status": "active", "priority": 5}})
		env.clock.advance(48 * 3600e9)
		b := env.store(t, "alice", M{"thread_id": "f2", "source": "agent", "text": "kiwi two", "metadata": M{"status": "done", "priority": 1}})
		c := env.store(t, "alice", M{"thread_id": "f1", "source": "agent", "text": "kiwi three", "tags": []string{"green"}})
		day2 := wire(env.clock.Now())[:10]
		tests := []struct {
			name string
			args M
			want []string
		}{
			{"thread", M{"thread_id": "f1"}, []string{a, c}},
			{"source", M{"source": "agent"}, []string{b, c}},
			{"tags", M{"tags": []string{"fruit", "green"}}, []string{a, c}},
			{"content_type", M{"content_type": "multimodal"}, nil},
			{"metadata", M{"metadata": M{"status": "active"}}, []string{a}},
			{"metadata_filters", M{"metadata_filters": []any{M{"key": "priority", "operator": "lt", "value": 3}}}, []string{b}},
			{"start_date", M{"start_date": day2}, []string{b, c}},
			{"end_date", M{"end_date": wire(epoch)[:10]}, []string{a}},
			{"combined", M{"thread_id": "f1", "source": "agent", "start_date": day2}, []string{c}},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				args := M{"query": "kiwi", "limit": 10}
				for k, v := range tc.args {
					args[k] = v
				}
				resp := env.fts(t, "alice", args)
				wantSet(t, tc.name, resultIDs(t, resp), tc.want)
				wantEqual(t, "count", int(num(t, resp, "count")), len(tc.want))
			})
		}
	})
}

func TestFTSFollowsWrites(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		id := env.storeText(t, "alice", "w", "user", "original walrus text")
		count := func(q string) int { return int(num(t, env.fts(t, "alice", M{"query": q}), "count")) }
		wantEqual(t, "stored", count("walrus"), 1)
		env.call(t, "alice", "update_context", M{"context_id": id, "text": "replaced narwhal text"}).ok(t)
		wantEqual(t, "old text", count("walrus"), 0)
		wantEqual(t, "new text", count("narwhal"), 1)
		env.call(t, "alice", "delete_context", M{"context_ids": []string{id}}).ok(t)
		wantEqual(t, "deleted", count("narwhal"), 0)
		st := obj(t, env.stats(t, "alice"), "fts")
		wantEqual(t, "enabled", boolean(t, st, "enabled"), true)
		wantEqual(t, "available", boolean(t, st, "available"), true)
		wantEqual(t, "language", str(t, st, "language"), "english")
		wantEqual(t, "backend", str(t, st, "backend"), env.kind.search)
		env.storeText(t, "bob", "w", "user", "bob private text")
		st = obj(t, env.stats(t, "alice"), "fts")
		wantEqual(t, "indexed_entries", num(t, st, "indexed_entries"), 0)
		wantEqual(t, "coverage none", num(t, st, "coverage_percentage"), 0)
		env.storeText(t, "alice", "w", "user", "alice again")
		st = obj(t, env.stats(t, "alice"), "fts")
		wantEqual(t, "indexed_entries", num(t, st, "indexed_entries"), 1)
		wantEqual(t, "coverage", num(t, st, "coverage_percentage"), 100)
	})
}

// TestFTSFollowsGrants: a grant (share_context) and its removal change
// what full-text search returns, in both backends, at once.
func TestFTSFollowsGrants(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		id := env.storeText(t, "alice", "g", "user", "private otter notes")
		count := func(who string) int { return int(num(t, env.fts(t, who, M{"query": "otter"}), "count")) }
		wantEqual(t, "before", count("bob"), 0)
		env.call(t, "alice", "share_context", M{"context_id": id, "principal_type": "user", "principal_id": "bob", "permission": "read"}).ok(t)
		wantEqual(t, "shared", count("bob"), 1)
		env.call(t, "alice", "unshare_context", M{"context_id": id, "principal_type": "user", "principal_id": "bob", "permission": "read"}).ok(t)
		wantEqual(t, "unshared", count("bob"), 0)
	})
}
