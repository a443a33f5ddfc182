package server_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// plan_context_sync and list_ingest_state: T-118..T-126, R-140..R-152
// (B.14, B.15) and the ingest block of A.9.

func digestOf(s string) string {
	sum := sha256.Sum256([]byte(strings.TrimSpace(s)))
	return hex.EncodeToString(sum[:])
}

// metaDigest is a stand-in for a client's metadata digest: any 64 hex.
func metaDigest(tag string) string { return digestOf("meta:" + tag) }

// storeManaged stores a managed entry of corpus thread as principal, the
// way a sync client does (deduplicate false, the ingest block).
func (e *env) storeManaged(t *testing.T, principal, thread, sourceID, text, meta string, extra M) string {
	t.Helper()
	args := M{"thread_id": thread, "source": "agent", "text": text, "deduplicate": false,
		"metadata": M{"ingest": M{"scope": thread, "source_id": sourceID, "meta_digest": meta, "synced_at": "2026-12-03T02:00:00Z"}}}
	for k, v := range extra {
		args[k] = v
	}
	return e.store(t, principal, args)
}

func item(sourceID, text, meta string) M {
	return M{"source_id": sourceID, "text_digest": digestOf(text), "meta_digest": meta}
}

func (e *env) plan(t *testing.T, principal string, args M) M {
	t.Helper()
	return e.call(t, principal, "plan_context_sync", args).ok(t)
}

func TestConformanceSync(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		t.Run("T-118 empty manifest refused; allowed plans every delete without reason", func(t *testing.T) {
			wantErrContains(t, env.call(t, "alice", "plan_context_sync", M{"thread_id": "kb:t118", "manifest": []any{}}).err(t),
				"manifest is empty: pass allow_empty_manifest=true")
			a := env.storeManaged(t, "alice", "kb:t118", "a.md", "alpha", metaDigest("a"), nil)
			b := env.storeManaged(t, "alice", "kb:t118", "b.md", "beta", metaDigest("b"), nil)
			seq, _ := env.st.LastSeq(context.Background())
			res := env.plan(t, "alice", M{"thread_id": "kb:t118", "manifest": []any{}, "allow_empty_manifest": true})
			if after, _ := env.st.LastSeq(context.Background()); after != seq {
				t.Fatalf("R-146: a plan wrote to the change log (seq %d -> %d)", seq, after)
			}
			wantEqualJSON(t, "plan", res, `{"thread_id":"kb:t118","creates":[],"updates":[],"deletes":[`+
				`{"context_id":"`+a+`","source_id":"a.md"},{"context_id":"`+b+`","source_id":"b.md"}],`+
				`"deletes_total":2,"unchanged_count":0,"kept_count":0,"foreign_count":0}`)
		})

		t.Run("T-119 create, then unchanged after a store without deduplication", func(t *testing.T) {
			m := []any{item("doc.md", "  Hello corpus \n", metaDigest("doc"))}
			res := env.plan(t, "alice", M{"thread_id": "kb:t119", "manifest": m})
			wantEqualJSON(t, "creates", res["creates"], `[0]`)
			env.call(t, "alice", "store_context_batch", M{"entries": []any{M{"thread_id": "kb:t119", "source": "agent",
				"text": "Hello corpus", "deduplicate": false, "metadata": M{"ingest": M{"scope": "kb:t119", "source_id": "doc.md",
					"meta_digest": metaDigest("doc"), "synced_at": "2026-12-03T02:00:00.123456+00:00"}}}}}).ok(t)
			res = env.plan(t, "alice", M{"thread_id": "kb:t119", "manifest": m})
			wantEqualJSON(t, "plan", res, `{"thread_id":"kb:t119","creates":[],"updates":[],"deletes":[],"deletes_total":0,"unchanged_count":1,"kept_count":0,"foreign_count":0}`)
		})

		t.Run("T-120 metadata, text and both changes", func(t *testing.T) {
			id := env.storeManaged(t, "alice", "kb:t120", "x.md", "old text", metaDigest("old"), nil)
			for _, tc := range []struct{ text, meta, change string }{
				{"old text", metaDigest("new"), "metadata"}, {"new text", metaDigest("old"), "text"}, {"new text", metaDigest("new"), "both"},
			} {
				res := env.plan(t, "alice", M{"thread_id": "kb:t120", "manifest": []any{item("x.md", tc.text, tc.meta)}})
				wantEqualJSON(t, tc.change, res["updates"], `[{"index":0,"context_id":"`+id+`","change":"`+tc.change+`"}]`)
			}
		})

		t.Run("T-121 duplicates: the text match survives, the others are deleted as duplicate", func(t *testing.T) {
			newest := env.storeManaged(t, "alice", "kb:t121", "d.md", "stale", metaDigest("m"), nil)
			match := env.storeManaged(t, "alice", "kb:t121", "d.md", "fresh", metaDigest("other"), nil)
			newer := env.storeManaged(t, "alice", "kb:t121", "d.md", "stale too", metaDigest("m"), nil)
			res := env.plan(t, "alice", M{"thread_id": "kb:t121", "manifest": []any{item("d.md", "fresh", metaDigest("m"))}})
			wantEqualJSON(t, "updates", res["updates"], `[{"index":0,"context_id":"`+match+`","change":"metadata"}]`)
			dels := []string{newest, newer}
			slices.Sort(dels)
			wantEqualJSON(t, "deletes", res["deletes"], `[{"context_id":"`+dels[0]+`","source_id":"d.md","reason":"duplicate"},`+
				`{"context_id":"`+dels[1]+`","source_id":"d.md","reason":"duplicate"}]`)
			// Without a text match the meta match survives, then the newest.
			res = env.plan(t, "alice", M{"thread_id": "kb:t121", "manifest": []any{item("d.md", "unknown", metaDigest("other"))}})
			wantEqualJSON(t, "meta survivor", res["updates"], `[{"index":0,"context_id":"`+match+`","change":"text"}]`)
			res = env.plan(t, "alice", M{"thread_id": "kb:t121", "manifest": []any{item("d.md", "unknown", metaDigest("none"))}})
			wantEqualJSON(t, "newest survivor", res["updates"], `[{"index":0,"context_id":"`+newer+`","change":"both"}]`)
			wantEqual(t, "deletes_total", num(t, res, "deletes_total"), 2)
		})

		t.Run("T-122 keep item: counted, nothing planned, duplicates untouched; a digest refuses it", func(t *testing.T) {
			env.storeManaged(t, "alice", "kb:t122", "k.md", "one", metaDigest("k"), nil)
			env.storeManaged(t, "alice", "kb:t122", "k.md", "two", metaDigest("k"), nil)
			res := env.plan(t, "alice", M{"thread_id": "kb:t122", "manifest": []any{M{"source_id": "k.md", "keep": true}}})
			wantEqualJSON(t, "plan", res, `{"thread_id":"kb:t122","creates":[],"updates":[],"deletes":[],"deletes_total":0,"unchanged_count":0,"kept_count":1,"foreign_count":0}`)
			wantErrContains(t, env.call(t, "alice", "plan_context_sync", M{"thread_id": "kb:t122",
				"manifest": []any{M{"source_id": "k.md", "keep": true, "text_digest": digestOf("x")}}}).err(t),
				"manifest item 0: a keep item carries no text_digest or meta_digest")
		})

		t.Run("T-123 foreign readable entries only count; hidden ones are invisible", func(t *testing.T) {
			env.storeManaged(t, "bob", "kb:t123", "pub.md", "bob public", metaDigest("p"), M{"visibility": "public"})
			env.storeManaged(t, "bob", "kb:t123", "priv.md", "bob private", metaDigest("q"), nil)
			res := env.plan(t, "alice", M{"thread_id": "kb:t123", "manifest": []any{item("priv.md", "bob private", metaDigest("q"))}})
			wantEqualJSON(t, "plan", res, `{"thread_id":"kb:t123","creates":[0],"updates":[],"deletes":[],"deletes_total":0,"unchanged_count":0,"kept_count":0,"foreign_count":1}`)
			res = env.plan(t, "alice", M{"thread_id": "kb:t123", "manifest": []any{}, "allow_empty_manifest": true})
			wantEqual(t, "foreign never deleted", num(t, res, "deletes_total"), 0)
			wantEqual(t, "foreign_count", num(t, res, "foreign_count"), 1)
			// The same plan for bob: both are his own.
			res = env.plan(t, "bob", M{"thread_id": "kb:t123", "manifest": []any{}, "allow_empty_manifest": true})
			wantEqual(t, "bob deletes", num(t, res, "deletes_total"), 2)
			wantEqual(t, "bob foreign", num(t, res, "foreign_count"), 0)
		})

		t.Run("T-124 refusals before any read", func(t *testing.T) {
			d, m := digestOf("x"), metaDigest("x")
			ok := func(sid string) M { return M{"source_id": sid, "text_digest": d, "meta_digest": m} }
			many := make([]any, 1001)
			for i := range many {
				many[i] = ok(fmt.Sprintf("s%04d", i))
			}
			for _, tc := range []struct {
				name string
				args M
				want string
			}{
				{"outside", M{"manifest": []any{ok("a")}, "source_id_after": "a"}, "manifest item 0: source_id 'a' is outside the planned range ('a', +inf]"},
				{"above", M{"manifest": []any{ok("z")}, "source_id_through": "m"}, "manifest item 0: source_id 'z' is outside the planned range (-inf, 'm']"},
				{"after >= through", M{"manifest": []any{ok("b")}, "source_id_after": "b", "source_id_through": "b"}, "source_id_after 'b' must sort before source_id_through 'b'"},
				{"repeated", M{"manifest": []any{ok("a"), ok("b"), ok("a")}}, "manifest item 2: source_id 'a' repeats item 0"},
				{"1001 items", M{"manifest": many}, "manifest has 1001 items; at most 1000 are allowed"},
				{"malformed digest", M{"manifest": []any{M{"source_id": "a", "text_digest": "abc", "meta_digest": m}}}, "manifest item 0: text_digest must be a SHA-256 hex digest"},
				{"non-hex digest", M{"manifest": []any{M{"source_id": "a", "text_digest": d, "meta_digest": strings.Repeat("g", 64)}}}, "manifest item 0: meta_digest must be a SHA-256 hex digest"},
				{"missing digest", M{"manifest": []any{M{"source_id": "a", "text_digest": d}}}, "manifest item 0: an ordinary item needs both text_digest and meta_digest"},
				{"unknown key", M{"manifest": []any{M{"source_id": "a", "text_digest": d, "meta_digest": m, "path": "/a"}}}, "manifest item 0: unknown key 'path'"},
				{"keep false", M{"manifest": []any{M{"source_id": "a", "keep": false}}}, "manifest item 0: keep must be true"},
				{"empty source", M{"manifest": []any{ok("")}}, "source_id"},
				{"long source", M{"manifest": []any{ok(strings.Repeat("é", 257))}}, "source_id"},
			} {
				tc.args["thread_id"] = "kb:t124"
				wantErrContains(t, env.call(t, "alice", "plan_context_sync", tc.args).err(t), tc.want)
			}
			// Code-point order: "é" (U+00E9) sorts after "z", as bytes do.
			res := env.plan(t, "alice", M{"thread_id": "kb:t124", "manifest": []any{ok("é")}, "source_id_after": "z"})
			wantEqualJSON(t, "creates", res["creates"], `[0]`)
		})

		t.Run("T-125 150 stale entries: 100 listed in order, deletes_total 150", func(t *testing.T) {
			var ids []string
			for i := range 150 {
				ids = append(ids, env.storeManaged(t, "alice", "kb:t125", fmt.Sprintf("s%03d", 149-i), "t", metaDigest("s"), nil))
			}
			res := env.plan(t, "alice", M{"thread_id": "kb:t125", "manifest": []any{}, "allow_empty_manifest": true})
			dels := objs(t, arr(t, res, "deletes"))
			wantEqual(t, "listed", len(dels), 100)
			wantEqual(t, "deletes_total", num(t, res, "deletes_total"), 150)
			for i, d := range dels {
				wantEqual(t, "order", str(t, d, "source_id"), fmt.Sprintf("s%03d", i))
				wantEqual(t, "id", str(t, d, "context_id"), ids[149-i])
			}
		})

		t.Run("manifest of exactly 1000 items, planned in a range", func(t *testing.T) {
			m := make([]any, 1000)
			for i := range m {
				m[i] = item(fmt.Sprintf("f%04d", i), "x", metaDigest("x"))
			}
			env.storeManaged(t, "alice", "kb:k1000", "f0500", "x", metaDigest("x"), nil)
			env.storeManaged(t, "alice", "kb:k1000", "g0000", "outside the range", metaDigest("x"), nil)
			res := env.plan(t, "alice", M{"thread_id": "kb:k1000", "manifest": m, "source_id_through": "f9999"})
			wantEqual(t, "creates", len(arr(t, res, "creates")), 999)
			wantEqual(t, "unchanged", num(t, res, "unchanged_count"), 1)
			wantEqual(t, "out of range untouched", num(t, res, "deletes_total"), 0)
		})

		t.Run("A.9 invalid blocks and other scopes are unmanaged", func(t *testing.T) {
			base := M{"scope": "kb:a9", "source_id": "a.md", "meta_digest": metaDigest("a"), "synced_at": "2026-12-03T02:00:00Z"}
			bad := func(k string, v any) M {
				b := M{}
				for kk, vv := range base {
					b[kk] = vv
				}
				if v == nil {
					delete(b, k)
				} else {
					b[k] = v
				}
				return b
			}
			for _, blk := range []M{bad("scope", "kb:other"), bad("meta_digest", strings.ToUpper(metaDigest("a"))),
				bad("synced_at", "yesterday"), bad("source_id", 7), bad("synced_at", nil), bad("source_id", "")} {
				env.store(t, "alice", M{"thread_id": "kb:a9", "source": "agent", "text": "t", "deduplicate": false, "metadata": M{"ingest": blk}})
			}
			env.store(t, "alice", M{"thread_id": "kb:other", "source": "agent", "text": "t", "deduplicate": false, "metadata": M{"ingest": base}})
			res := env.plan(t, "alice", M{"thread_id": "kb:a9", "manifest": []any{}, "allow_empty_manifest": true})
			wantEqual(t, "nothing managed", num(t, res, "deletes_total"), 0)
			page := env.call(t, "alice", "list_ingest_state", M{"thread_id": "kb:a9"}).ok(t)
			wantEqual(t, "nothing listed", num(t, page, "count"), 0)
		})

		t.Run("T-126 list_ingest_state pages with lookahead; invalid cursor; foreign never listed", func(t *testing.T) {
			env.storeManaged(t, "bob", "kb:t126", "a0", "bob", metaDigest("b"), M{"visibility": "public"})
			var ids []string
			for i := range 5 {
				ids = append(ids, env.storeManaged(t, "alice", "kb:t126", fmt.Sprintf("a%d", i+1), fmt.Sprintf("text %d", i), metaDigest("a"), nil))
			}
			var got []string
			var sizes []int
			cursor := ""
			for {
				args := M{"thread_id": "kb:t126", "limit": 2}
				if cursor != "" {
					args["cursor"] = cursor
				}
				page := env.call(t, "alice", "list_ingest_state", args).ok(t)
				es := objs(t, arr(t, page, "entries"))
				sizes = append(sizes, len(es))
				for _, e := range es {
					got = append(got, str(t, e, "context_id"))
					if str(t, e, "text_digest") != digestOf(fmt.Sprintf("text %d", len(got)-1)) || str(t, e, "meta_digest") != metaDigest("a") ||
						str(t, e, "synced_at") != "2026-12-03T02:00:00Z" {
						t.Fatalf("entry %v", e)
					}
				}
				if page["next_cursor"] == nil {
					break
				}
				cursor = str(t, page, "next_cursor")
			}
			wantEqualJSON(t, "pages", sizes, `[2,2,1]`)
			wantSlice(t, "entries", got, ids)
			// 4 entries: the second page ends exactly at the last entry.
			page := env.call(t, "alice", "list_ingest_state", M{"thread_id": "kb:t126", "limit": 4}).ok(t)
			if page["next_cursor"] == nil {
				t.Fatal("5 entries, limit 4: want a next_cursor")
			}
			page = env.call(t, "alice", "list_ingest_state", M{"thread_id": "kb:t126", "limit": 5}).ok(t)
			if page["next_cursor"] != nil || num(t, page, "count") != 5 {
				t.Fatalf("a page ending at the last entry: %v", page)
			}
			for _, c := range []string{"garbage!", "W10", "WyJhIiwieCJd", strings.Repeat("A", 2000)} {
				wantEqual(t, "cursor "+c[:min(len(c), 10)], env.call(t, "alice", "list_ingest_state", M{"thread_id": "kb:t126", "cursor": c}).err(t), "invalid cursor")
			}
			bobPage := env.call(t, "bob", "list_ingest_state", M{"thread_id": "kb:t126"}).ok(t)
			wantEqual(t, "bob sees only his", num(t, bobPage, "count"), 1)
		})
	})
}

// TestConformanceSyncDisabled_T128: ENABLE_CONTEXT_SYNC=false (which the
// config turns into DISABLED_TOOLS entries) leaves both tools out.
func TestConformanceSyncDisabled_T128(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		for _, tool := range []string{"plan_context_sync", "list_ingest_state"} {
			res := env.call(t, "alice", tool, M{"thread_id": "kb:x"})
			if !res.failed() {
				t.Fatalf("%s served while disabled", tool)
			}
		}
	}, withDisabledTools("plan_context_sync", "list_ingest_state"))
}
