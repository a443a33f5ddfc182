package server_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// list_threads, get_statistics, tool registration, instructions and lax
// input coercion: T-115, T-116, T-127, T-129, T-131, T-132 (B.5, B.6, C.15).

// scopeTools are the ten tools this suite covers.
var scopeTools = []string{
	"store_context", "search_context", "get_context_by_ids", "update_context", "delete_context",
	"list_threads", "get_statistics", "store_context_batch", "update_context_batch", "delete_context_batch",
}

func TestConformanceListThreads(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		at := func(minutes int) { env.clock.set(epoch.Add(time.Duration(minutes) * time.Minute)) }
		ts := func(minutes int) string { return wire(epoch.Add(time.Duration(minutes) * time.Minute)) }
		at(0)
		env.storeText(t, "alice", "lt-a", "user", "a1")
		at(1)
		a2 := env.store(t, "alice", M{"thread_id": "lt-a", "source": "agent", "text": "a2", "images": []M{{"data": pngB64()}}})
		at(2)
		b1 := env.storeText(t, "bob", "lt-b", "user", "b1")
		at(3)
		env.storeText(t, "alice", "lt-m", "user", "m1")
		at(4)
		m2 := env.store(t, "bob", M{"thread_id": "lt-m", "source": "agent", "text": "m2", "visibility": "public"})
		at(5)
		m3 := env.storeText(t, "alice", "lt-m", "user", "m3")

		row := func(thread string, n, sources, mm, first, last int, lastID string) M {
			return M{"thread_id": thread, "entry_count": n, "source_types": sources, "multimodal_count": mm,
				"first_entry": ts(first), "last_entry": ts(last), "last_id": lastID}
		}
		for _, c := range []struct {
			who  string
			want []M
		}{
			{"alice", []M{row("lt-m", 3, 2, 0, 3, 5, m3), row("lt-a", 2, 2, 1, 0, 1, a2)}},
			{"bob", []M{row("lt-m", 1, 1, 0, 4, 4, m2), row("lt-b", 1, 1, 0, 2, 2, b1)}},
			{"carol", []M{row("lt-m", 1, 1, 0, 4, 4, m2)}},
		} {
			t.Run("T-115 as "+c.who, func(t *testing.T) {
				res := env.call(t, c.who, "list_threads", nil).ok(t)
				wantEqualJSON(t, "list_threads", res, mustJSON(M{"threads": c.want, "total_threads": len(c.want)}))
				res = env.call(t, c.who, "list_threads", M{"offset": 1}).ok(t)
				wantEqual(t, "offset without limit is ignored", len(arr(t, res, "threads")), len(c.want))
			})
		}
		t.Run("limit and offset page after ordering", func(t *testing.T) {
			res := env.call(t, "alice", "list_threads", M{"limit": 1}).ok(t)
			wantEqualJSON(t, "first page", res, mustJSON(M{"threads": []M{row("lt-m", 3, 2, 0, 3, 5, m3)}, "total_threads": 1}))
			res = env.call(t, "alice", "list_threads", M{"limit": 1, "offset": 1}).ok(t)
			wantEqualJSON(t, "second page", res, mustJSON(M{"threads": []M{row("lt-a", 2, 2, 1, 0, 1, a2)}, "total_threads": 1}))
			res = env.call(t, "alice", "list_threads", M{"limit": 100, "offset": 2}).ok(t)
			wantEqualJSON(t, "past the end", res, `{"threads":[],"total_threads":0}`)
		})
		t.Run("ties on last_entry break by the latest id", func(t *testing.T) {
			at(10)
			env.storeText(t, "dave", "tie-1", "user", "one")
			env.storeText(t, "dave", "tie-2", "user", "two")
			var names []string
			for _, th := range objs(t, arr(t, env.call(t, "dave", "list_threads", nil).ok(t), "threads")) {
				names = append(names, str(t, th, "thread_id"))
			}
			wantSlice(t, "order", names, []string{"tie-2", "tie-1", "lt-m"})
		})
		t.Run("T-115 limit bounds", func(t *testing.T) {
			env.call(t, "alice", "list_threads", M{"limit": 101}).err(t)
			env.call(t, "alice", "list_threads", M{"limit": 0}).err(t)
		})
	})
}

func TestConformanceStatistics(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		env.store(t, "alice", M{"thread_id": "s1", "source": "user", "text": "one", "tags": []string{"x", "y"}})
		env.store(t, "alice", M{"thread_id": "s1", "source": "agent", "text": "two", "tags": []string{"x"}, "images": []M{{"data": pngB64()}, {"data": pngB64()}}})
		env.store(t, "alice", M{"thread_id": "s2", "source": "user", "text": "three", "tags": []string{"z"}, "visibility": "public"})
		env.store(t, "bob", M{"thread_id": "s3", "source": "user", "text": "four", "tags": []string{"x"}})

		for _, c := range []struct{ who, want string }{
			{"alice", `{"total_entries":3,"by_source":{"user":2,"agent":1},"by_content_type":{"text":2,"multimodal":1},` +
				`"total_images":2,"unique_tags":3,"total_threads":2,"avg_entries_per_thread":1.5,` +
				`"most_active_threads":[{"thread_id":"s1","count":2},{"thread_id":"s2","count":1}],` +
				`"top_tags":[{"tag":"x","count":2},{"tag":"y","count":1},{"tag":"z","count":1}]}`},
			{"bob", `{"total_entries":2,"by_source":{"user":2},"by_content_type":{"text":2},` +
				`"total_images":0,"unique_tags":2,"total_threads":2,"avg_entries_per_thread":1,` +
				`"most_active_threads":[{"thread_id":"s2","count":1},{"thread_id":"s3","count":1}],` +
				`"top_tags":[{"tag":"x","count":1},{"tag":"z","count":1}]}`},
		} {
			t.Run("T-116 figures as "+c.who, func(t *testing.T) {
				wantEqualJSON(t, "figures", pick(env.stats(t, c.who), "total_entries", "by_source", "by_content_type",
					"total_images", "unique_tags", "total_threads", "avg_entries_per_thread", "most_active_threads", "top_tags"), c.want)
			})
		}
		t.Run("T-116 deployment-wide fields are the same for everyone", func(t *testing.T) {
			a, b := env.stats(t, "alice"), env.stats(t, "bob")
			wantEqual(t, "database_size_mb", num(t, a, "database_size_mb"), num(t, b, "database_size_mb"))
			if num(t, a, "database_size_mb") < 0 {
				t.Fatalf("database_size_mb negative: %v", a["database_size_mb"])
			}
			wantEqual(t, "backend", str(t, a, "backend"), env.eng.Backend())
			wantEqual(t, "backend for bob", str(t, b, "backend"), env.eng.Backend())
		})
	})
}

// pick keeps the named keys of m.
func pick(m M, keys ...string) M {
	out := M{}
	for _, k := range keys {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	return out
}

func TestConformanceStatisticsTopLists(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		n := 0
		add := func(thread string, tags ...string) {
			n++
			env.store(t, "erin", M{"thread_id": thread, "source": "user", "text": fmt.Sprintf("e%d", n), "tags": tags})
		}
		add("th-a", "k", "a1", "a2")
		add("th-a", "k", "a1")
		add("th-a", "k")
		add("th-b", "b1")
		add("th-b")
		add("th-b")
		add("th-c", "c1", "c2", "c3")
		add("th-c", "c4", "c5", "c6")
		add("th-d", "d1", "d2")
		add("th-e")
		add("th-f")
		add("th-g")
		t.Run("T-132 top lists are capped and ordered", func(t *testing.T) {
			s := env.stats(t, "erin")
			wantEqualJSON(t, "most_active_threads", s["most_active_threads"], `[{"thread_id":"th-a","count":3},`+
				`{"thread_id":"th-b","count":3},{"thread_id":"th-c","count":2},{"thread_id":"th-d","count":1},{"thread_id":"th-e","count":1}]`)
			wantEqualJSON(t, "top_tags", s["top_tags"], `[{"tag":"k","count":3},{"tag":"a1","count":2},{"tag":"a2","count":1},`+
				`{"tag":"b1","count":1},{"tag":"c1","count":1},{"tag":"c2","count":1},{"tag":"c3","count":1},{"tag":"c4","count":1},`+
				`{"tag":"c5","count":1},{"tag":"c6","count":1}]`)
			wantEqual(t, "unique_tags", num(t, s, "unique_tags"), 12)
			wantEqual(t, "total_threads", num(t, s, "total_threads"), 7)
			wantEqual(t, "avg_entries_per_thread", num(t, s, "avg_entries_per_thread"), 1.71)
		})
		t.Run("T-132 a caller who reads nothing sees empty figures", func(t *testing.T) {
			s := env.stats(t, "zed")
			wantEqualJSON(t, "figures", pick(s, "total_entries", "by_source", "by_content_type", "total_images", "unique_tags",
				"total_threads", "avg_entries_per_thread", "most_active_threads", "top_tags"),
				`{"total_entries":0,"by_source":{},"by_content_type":{},"total_images":0,"unique_tags":0,"total_threads":0,`+
					`"avg_entries_per_thread":0,"most_active_threads":[],"top_tags":[]}`)
			for _, section := range []string{"semantic_search", "fts", "summary"} {
				if sec, ok := s[section].(M); ok && hasKey(sec, "coverage_percentage") {
					wantEqual(t, section+".coverage_percentage", num(t, sec, "coverage_percentage"), 0)
				}
			}
		})
	})
}

// toolNames lists the tools principal sees in tools/list.
func toolNames(t *testing.T, env *env, principal string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := env.as(t, principal).ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

func TestConformanceRegistration(t *testing.T) {
	t.Run("every tool in scope is registered by default", func(t *testing.T) {
		forEachStore(t, func(t *testing.T, env *env) {
			names := toolNames(t, env, "alice")
			for _, tool := range scopeTools {
				if !slices.Contains(names, tool) {
					t.Fatalf("tools/list lacks %s: %q", tool, names)
				}
			}
		})
	})
	t.Run("T-127 DISABLED_TOOLS is trimmed and case-insensitive", func(t *testing.T) {
		forEachStore(t, func(t *testing.T, env *env) {
			names := toolNames(t, env, "alice")
			for _, tool := range scopeTools {
				disabled := tool == "delete_context" || tool == "update_context"
				if listed := slices.Contains(names, tool); listed == disabled {
					t.Fatalf("%s: listed=%v, want listed=%v (tools %q)", tool, listed, !disabled, names)
				}
			}
			id := env.storeText(t, "alice", "t127", "user", "survives")
			for _, tool := range []string{"delete_context", "update_context"} {
				if r := env.call(t, "alice", tool, M{"context_ids": []string{id}, "context_id": id, "text": "x"}); !r.failed() {
					t.Fatalf("disabled tool %s answered: %s", tool, r.describe())
				}
			}
			wantEqual(t, "entry untouched", str(t, env.getOne(t, "alice", id), "text_content"), "survives")
		}, withDisabledTools("Delete_Context ", " update_context"))
	})
}

func TestConformanceInstructions(t *testing.T) {
	t.Run("T-129 unset: the built-in instructions", func(t *testing.T) {
		forEachStore(t, func(t *testing.T, env *env) {
			got := env.session(t, "alice").init.Instructions
			wantErrContains(t, got, "MCP Context Server")
		})
	})
	t.Run("T-129 empty: no instructions", func(t *testing.T) {
		forEachStore(t, func(t *testing.T, env *env) {
			wantEqual(t, "instructions", env.session(t, "alice").init.Instructions, "")
		}, withInstructions(""))
	})
	t.Run("T-129 set: used verbatim", func(t *testing.T) {
		forEachStore(t, func(t *testing.T, env *env) {
			wantEqual(t, "instructions", env.session(t, "alice").init.Instructions, "Use the context tools.\nBe brief.")
		}, withInstructions("Use the context tools.\nBe brief."))
	})
}

func TestConformanceLaxInput(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		t.Run("T-131 list and object parameters sent as JSON strings", func(t *testing.T) {
			id := env.store(t, "alice", M{"thread_id": "lax", "source": "user", "text": "lax",
				"tags": `["A", "b"]`, "metadata": `{"k": 1}`, "images": `[{"data": "` + pngB64() + `"}]`})
			e := env.getOne(t, "alice", id)
			wantSlice(t, "tags", strs(t, e, "tags"), []string{"a", "b"})
			wantEqualJSON(t, "metadata", e["metadata"], `{"k":1}`)
			wantEqual(t, "content_type", str(t, e, "content_type"), "multimodal")

			got := env.call(t, "alice", "get_context_by_ids", M{"context_ids": `["` + id + `"]`, "include_images": "false"}).list(t)
			if len(got) != 1 || hasKey(got[0], "images") {
				t.Fatalf("get with JSON-string ids and include_images \"false\": %s", mustJSON(got))
			}
			env.call(t, "alice", "update_context", M{"context_id": id, "metadata_patch": `{"p": 2}`, "tags": `["c"]`}).ok(t)
			e = env.getOne(t, "alice", id)
			wantEqualJSON(t, "patched", e["metadata"], `{"k":1,"p":2}`)
			wantSlice(t, "tags", strs(t, e, "tags"), []string{"c"})

			resp := env.search(t, "alice", M{"thread_id": "lax", "metadata_filters": `[{"key": "p", "operator": "eq", "value": 2}]`})
			wantSlice(t, "search with JSON-string filters", resultIDs(t, resp), []string{id})
		})
		t.Run("T-131 scalars sent as strings are coerced", func(t *testing.T) {
			a := env.store(t, "alice", M{"thread_id": "lax-s", "source": "user", "text": "same", "deduplicate": "false"})
			b := env.store(t, "alice", M{"thread_id": "lax-s", "source": "user", "text": "same", "deduplicate": "false"})
			if a == b {
				t.Fatalf("deduplicate \"false\" merged the entries")
			}
			storeMany(t, env, "alice", "lax-s", 8)
			resp := env.search(t, "alice", M{"thread_id": "lax-s", "limit": "5", "offset": "1", "explain_query": "true"})
			wantEqual(t, "count", num(t, resp, "count"), 5)
			field(t, resp, "stats")
			res := env.call(t, "alice", "list_threads", M{"limit": "1"}).ok(t)
			wantEqual(t, "threads", len(arr(t, res, "threads")), 1)
		})
		t.Run("T-131 batch lists sent as JSON strings", func(t *testing.T) {
			res := env.call(t, "alice", "store_context_batch", M{"atomic": "false",
				"entries": `[{"thread_id": "lax-b", "source": "user", "text": "one"}, {"thread_id": "lax-b", "source": "agent", "text": "two"}]`}).ok(t)
			wantEqual(t, "stored", num(t, res, "succeeded"), 2)
			items := objs(t, arr(t, res, "results"))
			one, two := str(t, items[0], "context_id"), str(t, items[1], "context_id")
			res = env.call(t, "alice", "update_context_batch", M{"updates": `[{"context_id": "` + one + `", "text": "uno"}]`}).ok(t)
			wantEqual(t, "updated", num(t, res, "succeeded"), 1)
			res = env.call(t, "alice", "delete_context", M{"context_ids": `["` + one + `"]`}).ok(t)
			wantEqual(t, "deleted", num(t, res, "deleted_count"), 1)
			res = env.call(t, "alice", "delete_context_batch", M{"thread_ids": `["lax-b"]`, "older_than_days": "1"}).ok(t)
			wantEqual(t, "nothing old enough", num(t, res, "deleted_count"), 0)
			res = env.call(t, "alice", "delete_context_batch", M{"context_ids": `["` + two + `"]`}).ok(t)
			wantEqual(t, "deleted", num(t, res, "deleted_count"), 1)
		})
	})
}
