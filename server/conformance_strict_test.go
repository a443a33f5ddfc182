package server_test

// Strict input: text no backend can store, metadata
// nested or sized past the limits, date bounds that agree with rendered
// timestamps, blank queries and the joined hybrid message. Every refusal
// carries its exact text and leaves the store unchanged.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/server"
	"github.com/contextd/contextd/server/auth"
)

// surrogateTail is the reference text (A.5, R-421) for a string holding
// an unpaired UTF-16 surrogate or other text that is not UTF-8.
const surrogateTail = ": A string value contains an unpaired UTF-16 surrogate (a code point that cannot be encoded as UTF-8): " +
	"PostgreSQL cannot store it, so the same entry would store on SQLite but fail on PostgreSQL. Remove it before storing."

// rawJSON is an argument sent as these exact bytes: a Go string holding
// invalid UTF-8 would be repaired by the client's encoder before sending.
func rawJSON(s string) json.RawMessage { return json.RawMessage(s) }

func TestStrictA1UnstorableText(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		e := env.store(t, "alice", M{"thread_id": "u", "source": "user", "text": "target", "metadata": M{"k": "v"}})
		lone, bytes := rawJSON(`"bad \ud800 surrogate"`), rawJSON("\"bad \xff\xfe\xc3 bytes\"")
		store := func(k string, v any) M {
			m := M{"thread_id": "u", "source": "user", "text": "x"}
			m[k] = v
			return m
		}
		cases := []struct {
			name, tool string
			args       M
			want       string
		}{
			{"text lone surrogate", "store_context", store("text", lone), "text" + surrogateTail},
			{"text low surrogate alone", "store_context", store("text", rawJSON(`"\udc00x"`)), "text" + surrogateTail},
			{"text reversed pair", "store_context", store("text", rawJSON(`"\ude00\ud83d"`)), "text" + surrogateTail},
			{"text raw FF FE C3", "store_context", store("text", bytes), "text" + surrogateTail},
			{"thread_id", "store_context", store("thread_id", lone), "thread_id" + surrogateTail},
			{"tags", "store_context", store("tags", rawJSON(`["ok","\ud800"]`)), "tags" + surrogateTail},
			{"metadata value", "store_context", store("metadata", rawJSON(`{"a":{"b":["\udbff"]}}`)), "metadata" + surrogateTail},
			{"metadata key", "store_context", store("metadata", rawJSON(`{"\ud800":1}`)),
				"metadata: A metadata key contains an unpaired UTF-16 surrogate (a code point that cannot be encoded as UTF-8): " +
					"PostgreSQL cannot store it, so the same entry would store on SQLite but fail on PostgreSQL. Remove it before storing."},
			{"metadata as JSON text", "store_context", store("metadata", `{"k":"\ud800"}`), "metadata" + surrogateTail},
			{"update text", "update_context", M{"context_id": e, "text": bytes}, "text" + surrogateTail},
			{"update metadata_patch", "update_context", M{"context_id": e, "metadata_patch": rawJSON(`{"k":"\ud800"}`)}, "metadata_patch" + surrogateTail},
			{"share principal", "share_context", M{"context_id": e, "principal_id": lone, "principal_type": "user", "permission": "read"}, "principal_id" + surrogateTail},
		}
		before := mustJSON(M{"total": env.total(t, "alice"), "entry": env.get(t, "alice", e)})
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				wantEqual(t, "message", env.call(t, "alice", c.tool, c.args).err(t), c.want)
				wantEqual(t, "state", mustJSON(M{"total": env.total(t, "alice"), "entry": env.get(t, "alice", e)}), before)
			})
		}
		t.Run("batch entry", func(t *testing.T) {
			res := env.call(t, "alice", "store_context_batch", M{"atomic": false, "entries": []any{
				M{"thread_id": "u", "source": "user", "text": lone},
				M{"thread_id": "u", "source": "user", "text": "fine"},
			}}).ok(t)
			items := objs(t, arr(t, res, "results"))
			wantEqual(t, "entry 0", str(t, items[0], "error"), "text"+surrogateTail)
			wantEqual(t, "entry 1 stored", boolean(t, items[1], "success"), true)
		})
		t.Run("fts query", func(t *testing.T) {
			resp := env.fts(t, "alice", M{"query": lone})
			wantEqual(t, "error", str(t, resp, "error"), "FTS query validation failed")
			wantSlice(t, "validation_errors", strs(t, resp, "validation_errors"),
				[]string{"Query contains a lone surrogate or invalid UTF-8, which full-text search cannot parse"})
		})
		t.Run("valid pairs and U+FFFD itself are text", func(t *testing.T) {
			id := env.store(t, "alice", M{"thread_id": "u", "source": "user", "text": rawJSON(`"smile \ud83d\ude00 \ufffd \u00e9"`)})
			wantEqual(t, "stored text", str(t, env.getOne(t, "alice", id), "text_content"), "smile 😀 \ufffd é")
		})
	})
}

// nest builds n levels of objects: {"a":{"a":...{"a":1}}}.
func nest(n int) M {
	var v any = 1
	for range n {
		v = M{"a": v}
	}
	return v.(M)
}

func TestStrictA5MetadataShape(t *testing.T) {
	const tooDeep = "is nested too deeply: at most 64 levels of objects and arrays are allowed"
	forEachStore(t, func(t *testing.T, env *env) {
		e := env.store(t, "alice", M{"thread_id": "shape", "source": "user", "text": "target",
			"metadata": M{"a": repeat("a", 600_000)}})
		env.store(t, "alice", M{"thread_id": "shape", "source": "user", "text": "deepest allowed", "metadata": nest(64)})
		env.store(t, "alice", M{"thread_id": "shape", "source": "user", "text": "arrays count", "metadata": M{"l": [][]any{{nest(61)}}}})
		store := func(md any) M { return M{"thread_id": "shape", "source": "user", "text": "x", "metadata": md} }
		cases := []struct {
			name, tool string
			args       M
			want       string
		}{
			{"store 65 levels", "store_context", store(nest(65)), "metadata " + tooDeep},
			{"store past SQLite's 1000", "store_context", store(nest(1500)), "metadata " + tooDeep},
			{"store arrays", "store_context", store(M{"l": [][]any{{nest(62)}}}), "metadata " + tooDeep},
			{"store 1 MiB and more", "store_context", store(M{"big": repeat("x", 1<<20)}),
				"metadata is too large: 1048586 bytes as JSON, maximum is 1048576 bytes"},
			{"update metadata", "update_context", M{"context_id": e, "metadata": nest(1001)}, "metadata " + tooDeep},
			{"update metadata_patch", "update_context", M{"context_id": e, "metadata_patch": nest(65)}, "metadata_patch " + tooDeep},
			{"patch growing past the size", "update_context", M{"context_id": e, "metadata_patch": M{"b": repeat("b", 600_000)}},
				"metadata after applying metadata_patch is too large: 1200015 bytes as JSON, maximum is 1048576 bytes"},
		}
		snapshot := func() string {
			return mustJSON(M{"total": env.total(t, "alice"), "entry": env.get(t, "alice", e)})
		}
		before := snapshot()
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				msg := env.call(t, "alice", c.tool, c.args).err(t)
				wantEqual(t, "message", msg, c.want)
				wantEqual(t, "state", snapshot(), before)
			})
		}
		t.Run("batches", func(t *testing.T) {
			res := env.call(t, "alice", "store_context_batch", M{"atomic": true, "entries": []M{
				{"thread_id": "shape", "source": "user", "text": "ok"}, store(nest(1001)),
			}})
			if !res.failed() {
				items := objs(t, arr(t, res.ok(t), "results"))
				wantEqual(t, "store batch entry 1", str(t, items[1], "error"), "metadata "+tooDeep)
			} else {
				wantErrContains(t, res.err(t), "metadata "+tooDeep)
			}
			res = env.call(t, "alice", "update_context_batch", M{"atomic": false, "updates": []M{
				{"context_id": e, "metadata_patch": nest(1001)}, {"context_id": e, "metadata": nest(70)},
			}})
			items := objs(t, arr(t, res.ok(t), "results"))
			wantEqual(t, "update batch item 0", str(t, items[0], "error"), "metadata_patch "+tooDeep)
			wantEqual(t, "update batch item 1", str(t, items[1], "error"), "metadata "+tooDeep)
			wantEqual(t, "state", snapshot(), before)
		})
	}, withParallelKinds())
}

// TestStrictCreatedAtBounds: an entry's own rendered created_at, used as
// both bounds, finds it, although it is stored to the microsecond and
// shown to the second.
func TestStrictCreatedAtBounds(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		env.clock.set(epoch.Add(987654 * time.Microsecond))
		id := env.storeText(t, "alice", "when", "user", "clockwork lantern")
		env.clock.advance(time.Second)
		later := env.storeText(t, "alice", "when", "user", "clockwork lantern again")
		created := str(t, env.getOne(t, "alice", id), "created_at")
		wantEqual(t, "rendered", created, "2025-11-20T09:00:00Z")
		bounds := M{"start_date": created, "end_date": created}
		wantSlice(t, "search_context", resultIDs(t, env.search(t, "alice", bounds)), []string{id})
		bounds["query"] = "clockwork"
		wantSlice(t, "fts_search_context", resultIDs(t, env.fts(t, "alice", bounds)), []string{id})
		// Without the offset suffix, with an offset, and the next second.
		wantSlice(t, "naive end", resultIDs(t, env.search(t, "alice", M{"end_date": "2025-11-20T09:00:00"})), []string{id})
		wantSlice(t, "offset end", resultIDs(t, env.search(t, "alice", M{"end_date": "2025-11-20T10:00:00+01:00"})), []string{id})
		wantSlice(t, "next second", resultIDs(t, env.search(t, "alice", M{"start_date": "2025-11-20T09:00:01Z", "end_date": "2025-11-20T09:00:01Z"})), []string{later})
		// A fraction is exact: it stops before the entry's microsecond.
		wantSlice(t, "fraction", resultIDs(t, env.search(t, "alice", M{"end_date": "2025-11-20T09:00:00.5Z"})), []string{})
	})
}

// TestStrictBlankQuery: a whitespace-only query answers the same in all
// three ranked searches: no results, no error, no embedding call; the
// filters are still validated first.
func TestStrictBlankQuery(t *testing.T) {
	forEachStoreEmbed(t, func(t *testing.T, env *env, em *switchEmbedder) {
		env.storeAll(t, "alice", hybridEntries())
		for _, tool := range []string{"fts_search_context", "semantic_search_context", "hybrid_search_context"} {
			for _, q := range []string{" ", "   ", "\t\n ", "\u3000"} {
				t.Run(fmt.Sprintf("%s %q", tool, q), func(t *testing.T) {
					calls := em.calls.Load()
					resp := env.call(t, "alice", tool, M{"query": q}).ok(t)
					wantEqual(t, "count", num(t, resp, "count"), 0)
					wantEqual(t, "results", len(arr(t, resp, "results")), 0)
					wantEqual(t, "query echoed", str(t, resp, "query"), q)
					if hasKey(resp, "error") || hasKey(resp, "warnings") {
						t.Fatalf("a blank query is not an error: %s", mustJSON(resp))
					}
					if tool == "hybrid_search_context" {
						wantEqual(t, "search_modes_used", len(arr(t, resp, "search_modes_used")), 0)
					}
					wantEqual(t, "embedding calls", em.calls.Load(), calls)
				})
			}
			t.Run(tool+" validates filters first", func(t *testing.T) {
				resp := env.call(t, "alice", tool, M{"query": "  ", "metadata_filters": []M{{"key": "status", "operator": "nope"}}}).ok(t)
				if !strings.Contains(str(t, resp, "error"), "Metadata filter validation failed") {
					t.Fatalf("filter error not reported: %s", mustJSON(resp))
				}
			})
		}
	})
}

// TestStrictHybridJoinedMessage: the legs' messages are joined
// with ". " without doubling a message's own period.
func TestStrictHybridJoinedMessage(t *testing.T) {
	keys := M{}
	for i := range 101 {
		keys[fmt.Sprintf("k%03d", i)] = "v"
	}
	const cap = "Too many metadata keys in filter: 101 exceeds the maximum of 100. Narrow the filter to at most 100 keys."
	forEachStoreEmbed(t, func(t *testing.T, env *env, _ *switchEmbedder) {
		resp := env.hybrid(t, "alice", M{"query": "lantern", "metadata": keys})
		wantEqual(t, "error", str(t, resp, "error"),
			"All available search modes failed. FTS: Too many metadata keys in filter: 101 exceeds the maximum of 100. "+
				"Narrow the filter to at most 100 keys. Semantic: "+cap)
		wantSlice(t, "validation_errors", strs(t, resp, "validation_errors"), []string{cap})
	})
}

// TestStrictUnparsableCallOverHTTP: a tools/call whose params Go cannot
// decode (a number no float64 holds) is answered with our JSON-RPC error
// text, never with the decoder's ("json: cannot unmarshal ... float64"),
// and the next call is served.
func TestStrictUnparsableCallOverHTTP(t *testing.T) {
	env := newHTTPEnv(t, auth.Config{}, contextd.Config{})
	post := func(body string) string {
		req, _ := http.NewRequest("POST", env.url+server.MCPPath, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return strings.TrimSuffix(string(b), "\n") // mcp-go's encoder ends each message with one
	}
	for _, args := range []string{`{"limit":1e400}`, `{"metadata":{"x":-1e999}}`} {
		got := post(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search_context","arguments":` + args + `}}`)
		want := `{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"Invalid request: its params could not be read: ` +
			`a value has the wrong type, or a number is outside the range of a 64-bit float (such as 1e400)"}}`
		wantEqual(t, args, got, want)
	}
	c := mustDial(t, env.url, "")
	c.ok("get_statistics", nil)
}
