package server_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd"
)

// search_context: paging and clamping, truncation, tags, structured
// validation errors, caps, read-back fields and dates: T-029..T-035,
// T-048..T-051, T-117 (B.2, C.3, C.5).

// storeMany stores n entries of thread as principal through
// store_context_batch and returns their ids in insertion order.
func storeMany(t *testing.T, env *env, principal, thread string, n int) []string {
	t.Helper()
	var ids []string
	for start := 0; start < n; start += 100 {
		var entries []M
		for i := start; i < min(n, start+100); i++ {
			entries = append(entries, M{"thread_id": thread, "source": "user", "text": fmt.Sprintf("%s entry %d", thread, i)})
		}
		res := env.call(t, principal, "store_context_batch", M{"entries": entries}).ok(t)
		for _, it := range objs(t, arr(t, res, "results")) {
			ids = append(ids, str(t, it, "context_id"))
		}
	}
	return ids
}

func newestFirst(ids []string) []string {
	out := slices.Clone(ids)
	slices.Reverse(out)
	return out
}

func TestConformanceSearchPaging(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		all := newestFirst(storeMany(t, env, "alice", "page", 105))

		t.Run("T-029 default limit 30, newest first", func(t *testing.T) {
			resp := env.search(t, "alice", M{"thread_id": "page"})
			wantSlice(t, "ids", resultIDs(t, resp), all[:30])
			wantEqual(t, "count", num(t, resp, "count"), 30)
			if hasKey(resp, "clamped_limit") || hasKey(resp, "stats") || hasKey(resp, "error") {
				t.Fatalf("unexpected keys in a plain response: %s", mustJSON(resp))
			}
		})
		t.Run("T-029 limit above 100 is clamped and reported", func(t *testing.T) {
			resp := env.search(t, "alice", M{"thread_id": "page", "limit": 150})
			wantSlice(t, "ids", resultIDs(t, resp), all[:100])
			wantEqualJSON(t, "clamped_limit", field(t, resp, "clamped_limit"), `{"requested":150,"applied":100}`)
			if resp := env.search(t, "alice", M{"thread_id": "page", "limit": 100}); hasKey(resp, "clamped_limit") {
				t.Fatalf("limit=100 must not report clamped_limit")
			}
		})
		t.Run("T-029 limit below 1 is rejected", func(t *testing.T) {
			env.call(t, "alice", "search_context", M{"limit": 0}).err(t)
			env.call(t, "alice", "search_context", M{"limit": -3}).err(t)
		})
		t.Run("T-030 offsets", func(t *testing.T) {
			resp := env.search(t, "alice", M{"thread_id": "page", "limit": 10, "offset": 100})
			wantSlice(t, "tail page", resultIDs(t, resp), all[100:])
			resp = env.search(t, "alice", M{"thread_id": "page", "offset": 1000})
			wantEqualJSON(t, "beyond the data", M{"results": resp["results"], "count": resp["count"]}, `{"results":[],"count":0}`)
			var pages []string
			for off := 0; off < 21; off += 7 {
				pages = append(pages, resultIDs(t, env.search(t, "alice", M{"thread_id": "page", "limit": 7, "offset": off}))...)
			}
			wantSlice(t, "concatenated pages", pages, all[:21])
		})
	})
}

func TestConformanceSearchResults(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		long := env.storeText(t, "alice", "trunc", "user", repeat("a", 400))
		exact := env.storeText(t, "alice", "trunc", "agent", repeat("b", 300))
		spaced := env.storeText(t, "alice", "trunc", "user", repeat("c", 250)+" "+repeat("d", 149))
		early := env.storeText(t, "alice", "trunc", "agent", repeat("e", 100)+" "+repeat("f", 299))
		runes := env.storeText(t, "alice", "trunc", "user", repeat("é", 301))

		t.Run("T-031 truncation at 300 code points", func(t *testing.T) {
			byID := map[string]M{}
			for _, r := range objs(t, arr(t, env.search(t, "alice", M{"thread_id": "trunc"}), "results")) {
				byID[str(t, r, "id")] = r
			}
			for _, c := range []struct {
				id, text string
				trunc    bool
			}{
				{long, repeat("a", 300) + "...", true},
				{exact, repeat("b", 300), false},
				{spaced, repeat("c", 250) + "...", true},
				{early, repeat("e", 100) + " " + repeat("f", 199) + "...", true},
				{runes, repeat("é", 300) + "...", true},
			} {
				r, ok := byID[c.id]
				if !ok {
					t.Fatalf("entry %s missing from the search", c.id)
				}
				wantEqual(t, "text_content", str(t, r, "text_content"), c.text)
				wantEqual(t, "is_text_content_truncated", boolean(t, r, "is_text_content_truncated"), c.trunc)
			}
			wantEqual(t, "get returns the full text", str(t, env.getOne(t, "alice", long), "text_content"), repeat("a", 400))
		})

		t.Run("T-032 T-117 result fields", func(t *testing.T) {
			pub := env.store(t, "alice", M{"thread_id": "fields", "source": "agent", "text": "public", "visibility": "public",
				"metadata": M{"k": "v"}, "tags": []string{"T"}})
			for _, who := range []string{"alice", "bob"} {
				results := objs(t, arr(t, env.search(t, who, M{"thread_id": "fields"}), "results"))
				if len(results) != 1 || str(t, results[0], "id") != pub {
					t.Fatalf("%s: got %s, want the public entry", who, mustJSON(results))
				}
				r := results[0]
				for _, k := range []string{"id", "thread_id", "source", "content_type", "text_content", "metadata", "summary",
					"created_at", "updated_at", "tags", "is_text_content_truncated", "visibility", "is_owner"} {
					field(t, r, k)
				}
				for _, k := range []string{"owner", "owner_id", "grants", "granted_by", "images"} {
					if hasKey(r, k) {
						t.Fatalf("search result carries %q: %s", k, mustJSON(r))
					}
				}
				wantEqual(t, "summary", str(t, r, "summary"), "")
				wantEqual(t, "visibility", str(t, r, "visibility"), "public")
				wantEqual(t, "is_owner as "+who, boolean(t, r, "is_owner"), who == "alice")
				wantEqualJSON(t, "metadata", r["metadata"], `{"k":"v"}`)
				wantSlice(t, "tags", strs(t, r, "tags"), []string{"t"})
				if !wireTime.MatchString(str(t, r, "created_at")) || !wireTime.MatchString(str(t, r, "updated_at")) {
					t.Fatalf("timestamps not YYYY-MM-DDTHH:MM:SSZ: %s", mustJSON(r))
				}
			}
		})

		t.Run("source, content_type and include_images", func(t *testing.T) {
			img := env.store(t, "alice", M{"thread_id": "kinds", "source": "agent", "text": "img", "images": []M{{"data": pngB64()}}})
			txt := env.storeText(t, "alice", "kinds", "user", "txt")
			wantSlice(t, "source=agent", env.searchIDs(t, "alice", M{"thread_id": "kinds", "source": "agent"}), []string{img})
			wantSlice(t, "source=user", env.searchIDs(t, "alice", M{"thread_id": "kinds", "source": "user"}), []string{txt})
			wantSlice(t, "content_type=multimodal", env.searchIDs(t, "alice", M{"thread_id": "kinds", "content_type": "multimodal"}), []string{img})
			wantSlice(t, "content_type=text", env.searchIDs(t, "alice", M{"thread_id": "kinds", "content_type": "text"}), []string{txt})
			for _, r := range objs(t, arr(t, env.search(t, "alice", M{"thread_id": "kinds", "include_images": true}), "results")) {
				if str(t, r, "id") == img {
					images := objs(t, arr(t, r, "images"))
					wantEqual(t, "image data", str(t, images[0], "data"), pngB64())
				} else if hasKey(r, "images") {
					t.Fatalf("text entry with images key: %s", mustJSON(r))
				}
			}
		})

		t.Run("hidden entries never count nor take a page slot", func(t *testing.T) {
			b1 := env.store(t, "bob", M{"thread_id": "mixed", "source": "user", "text": "bob 1", "visibility": "public"})
			b2 := env.store(t, "bob", M{"thread_id": "mixed", "source": "agent", "text": "bob 2", "visibility": "public"})
			for i := 0; i < 3; i++ {
				env.storeText(t, "alice", "mixed", "user", fmt.Sprintf("alice private %d", i))
			}
			resp := env.search(t, "carol", M{"thread_id": "mixed", "limit": 2})
			wantSlice(t, "carol's first page", resultIDs(t, resp), []string{b2, b1})
			wantEqual(t, "count", num(t, resp, "count"), 2)
			resp = env.search(t, "carol", M{"thread_id": "mixed", "offset": 2})
			wantEqual(t, "carol's second page", num(t, resp, "count"), 0)
			resp = env.search(t, "carol", M{"thread_id": "mixed", "explain_query": true})
			wantEqual(t, "rows_returned", num(t, obj(t, resp, "stats"), "rows_returned"), 2)
			wantEqual(t, "alice sees all", len(env.threadIDs(t, "alice", "mixed")), 5)
		})
	})
}

// searchIDs runs search_context and returns the result ids.
func (e *env) searchIDs(t *testing.T, principal string, args M) []string {
	t.Helper()
	return resultIDs(t, e.search(t, principal, args))
}

func TestConformanceSearchValidation(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		py := env.store(t, "alice", M{"thread_id": "tags", "source": "user", "text": "py", "tags": []string{"python"}})
		gol := env.store(t, "alice", M{"thread_id": "tags", "source": "agent", "text": "go", "tags": []string{"go", "x"}})
		env.store(t, "alice", M{"thread_id": "tags", "source": "user", "text": "none"})

		t.Run("T-033 tag filter is normalized and ORed", func(t *testing.T) {
			wantSlice(t, "PYTHON", env.searchIDs(t, "alice", M{"thread_id": "tags", "tags": []string{"PYTHON"}}), []string{py})
			wantSet(t, "python or go", env.searchIDs(t, "alice", M{"thread_id": "tags", "tags": []string{" Python ", "GO"}}), []string{py, gol})
		})
		t.Run("T-033 blank tag filter is a structured validation error", func(t *testing.T) {
			resp := env.search(t, "alice", M{"tags": []string{"  "}})
			wantEqualJSON(t, "response", resp,
				`{"results":[],"count":0,"error":"Metadata filter validation failed","validation_errors":["Tag filter requires at least one non-blank tag"]}`)
		})
		t.Run("T-034 invalid filters are reported together, not as a tool error", func(t *testing.T) {
			bad := []M{
				{"key": "status", "operator": "regex", "value": "x"},
				{"key": "items.0", "operator": "eq", "value": "x"},
				{"key": "p", "operator": "gt", "value": true},
			}
			resp := env.search(t, "alice", M{"metadata_filters": bad})
			wantEqual(t, "error", str(t, resp, "error"), "Metadata filter validation failed")
			wantEqual(t, "validation_errors", len(arr(t, resp, "validation_errors")), 3)
			wantEqual(t, "count", num(t, resp, "count"), 0)
			wantEqual(t, "results", len(arr(t, resp, "results")), 0)
			resp = env.search(t, "alice", M{"metadata_filters": bad, "explain_query": true})
			wantEqualJSON(t, "zeroed stats", field(t, resp, "stats"), mustJSON(M{
				"execution_time_ms": 0.0, "filters_applied": 0, "rows_returned": 0, "backend": env.eng.Backend(), "query_plan": nil,
			}))
		})
		t.Run("explain_query statistics of a valid search", func(t *testing.T) {
			resp := env.search(t, "alice", M{"thread_id": "tags", "source": "user", "tags": []string{"python", "go"},
				"metadata": M{"k": "v"}, "metadata_filters": []M{{"key": "k", "operator": "exists"}}, "explain_query": true})
			stats := obj(t, resp, "stats")
			for _, k := range []string{"execution_time_ms", "filters_applied", "rows_returned", "backend", "query_plan"} {
				field(t, stats, k)
			}
			wantEqual(t, "filters_applied", num(t, stats, "filters_applied"), 5)
			wantEqual(t, "rows_returned", num(t, stats, "rows_returned"), num(t, resp, "count"))
			wantEqual(t, "backend", str(t, stats, "backend"), env.eng.Backend())
		})

		many := func(n int, f func(i int) M) []M {
			out := make([]M, n)
			for i := range out {
				out[i] = f(i)
			}
			return out
		}
		keys := M{}
		for i := 0; i < 101; i++ {
			keys[fmt.Sprintf("k%d", i)] = i
		}
		caps := []struct {
			name string
			args M
			req  contextd.SearchRequest
			want string
		}{
			{"T-035 101 metadata filters", M{"metadata_filters": many(101, func(i int) M { return M{"key": "k", "operator": "exists"} })},
				contextd.SearchRequest{SearchFilter: contextd.SearchFilter{MetadataFilters: many(101, func(i int) M { return M{"key": "k", "operator": "exists"} })}},
				"Too many metadata filters: 101 exceeds the maximum of 100. Narrow the query to at most 100 filters."},
			{"101 filter tags", M{"tags": tagsN(101)},
				contextd.SearchRequest{SearchFilter: contextd.SearchFilter{Tags: tagsN(101)}},
				"Too many tags in filter: 101 exceeds the maximum of 100. Narrow the filter to at most 100 tags."},
			{"101 metadata keys", M{"metadata": keys},
				contextd.SearchRequest{SearchFilter: contextd.SearchFilter{Metadata: keys}},
				"Too many metadata keys in filter: 101 exceeds the maximum of 100. Narrow the filter to at most 100 keys."},
		}
		for _, c := range caps {
			t.Run(c.name, func(t *testing.T) {
				// Through MCP a schema may refuse first (any isError); when the
				// body sees it, the structured shape carries the exact text.
				if r := env.call(t, "alice", "search_context", c.args); !r.failed() {
					resp := r.ok(t)
					wantEqual(t, "error", str(t, resp, "error"), c.want)
					wantSlice(t, "validation_errors", strs(t, resp, "validation_errors"), []string{c.want})
				}
				resp, err := env.eng.Search(asPrincipal("alice"), c.req)
				if err != nil {
					t.Fatalf("engine Search: %v", err)
				}
				wantEqual(t, "engine error", resp.Error, c.want)
				wantSlice(t, "engine validation_errors", resp.ValidationErrors, []string{c.want})
				wantEqual(t, "engine count", resp.Count, 0)
			})
		}
		t.Run("100 filters, tags and keys are accepted", func(t *testing.T) {
			keys100 := M{}
			for i := 0; i < 100; i++ {
				keys100[fmt.Sprintf("k%d", i)] = i
			}
			for _, args := range []M{
				{"metadata_filters": many(100, func(i int) M { return M{"key": "k", "operator": "exists"} })},
				{"tags": tagsN(100)}, {"metadata": keys100},
			} {
				if resp := env.search(t, "alice", args); hasKey(resp, "error") {
					t.Fatalf("unexpected error %s", mustJSON(resp))
				}
			}
		})
	})
}

func TestConformanceSearchDates(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		at := func(s string) time.Time {
			tm, err := time.Parse(time.RFC3339, s)
			if err != nil {
				t.Fatal(err)
			}
			return tm
		}
		names := map[string]string{}
		for name, ts := range map[string]string{
			"D1": "2025-11-28T12:00:00Z", "D2": "2025-11-29T08:00:00Z",
			"D3": "2025-11-29T23:59:59Z", "D4": "2025-11-30T00:00:00Z",
		} {
			env.clock.set(at(ts))
			id := env.storeText(t, "alice", "dates", "user", "entry "+name)
			names[id] = name
			wantEqual(t, name+" created_at", str(t, env.getOne(t, "alice", id), "created_at"), ts)
		}
		for _, c := range []struct{ start, end, want string }{
			{"", "2025-11-29", "D1 D2 D3"}, // T-048: date-only end_date covers the whole day
			{"2025-11-29", "2025-11-29", "D2 D3"},
			{"2025-11-30", "", "D4"},
			{"2025-11-29T10:00:00+02:00", "", "D2 D3 D4"}, // T-051: == 08:00:00Z
			{"2025-11-29T10:00:01+02:00", "", "D3 D4"},
			{"2025-11-29T13:30:00+05:30", "", "D2 D3 D4"},
			{"2025-11-29T08:00:00", "", "D2 D3 D4"}, // naive = UTC
			{"2025-11-29T08:00:01", "", "D3 D4"},
			{"2025-11-29T08:00:00Z", "2025-11-29T08:00:00Z", "D2"}, // equal bounds, inclusive
			{"", "2025-11-29T08:00:00Z", "D1 D2"},
			{"2025-11-29T08:00:00.500000Z", "", "D3 D4"},
			{"2025-11-29 08:00:00", "", "D2 D3 D4"},
			{"", "20251129", "D1 D2 D3"},   // compact date, still date-only
			{"", "2025-W48-6", "D1 D2 D3"}, // ISO week date of 2025-11-29
			{"2025-11-29T08", "", "D2 D3 D4"},
		} {
			t.Run(fmt.Sprintf("start=%q end=%q", c.start, c.end), func(t *testing.T) {
				args := M{"thread_id": "dates"}
				if c.start != "" {
					args["start_date"] = c.start
				}
				if c.end != "" {
					args["end_date"] = c.end
				}
				var got []string
				for _, id := range env.searchIDs(t, "alice", args) {
					got = append(got, names[id])
				}
				slices.Sort(got)
				wantEqual(t, "matched", fmt.Sprint(got), fmt.Sprint(strings.Fields(c.want)))
			})
		}
		subMinute := `Invalid start_date format: "2025-11-29T10:00:00+05:30:15". A timezone offset with sub-minute precision ` +
			`(seconds or a fractional part) is not supported: SQLite evaluates it to NULL (silently matching zero rows) while ` +
			`PostgreSQL accepts it, so it is rejected for cross-backend parity. Use a whole-minute offset (e.g. "+05:30").`
		for _, c := range []struct {
			name string
			args M
			want string
		}{
			{"T-049 reversed range", M{"start_date": "2025-11-30", "end_date": "2025-11-29"},
				"Invalid date range: start_date (2025-11-30) is after end_date (2025-11-29T23:59:59.999999)"},
			{"T-050 unparseable start_date", M{"start_date": "29-11-2025"},
				`Invalid start_date format: "29-11-2025". Use ISO 8601 format (e.g., "2025-11-29" or "2025-11-29T10:00:00")`},
			{"unparseable end_date", M{"end_date": "garbage"},
				`Invalid end_date format: "garbage". Use ISO 8601 format (e.g., "2025-11-29" or "2025-11-29T10:00:00")`},
			{"empty end_date", M{"end_date": ""},
				`Invalid end_date format: "". Use ISO 8601 format (e.g., "2025-11-29" or "2025-11-29T10:00:00")`},
			{"T-051 sub-minute offset", M{"start_date": "2025-11-29T10:00:00+05:30:15"}, subMinute},
		} {
			t.Run(c.name, func(t *testing.T) {
				wantEqual(t, "message", env.call(t, "alice", "search_context", c.args).err(t), c.want)
			})
		}
		t.Run("reversed datetime range", func(t *testing.T) {
			got := env.call(t, "alice", "search_context", M{"start_date": "2025-11-29T12:00:00Z", "end_date": "2025-11-29T10:00:00Z"}).err(t)
			wantPrefix(t, "message", got, "Invalid date range: start_date (")
		})
	})
}
