package server_test

import (
	"encoding/json"
	"testing"
)

// Malformed arguments: wrong types, unknown parameters, unknown enum
// values, NUL bytes, oversize lists, invalid base64 and dates. Each call
// must come back as an isError tool result with a message, change nothing,
// and leave the session serving the next call (B.0 ).

func idsN(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = absentID
	}
	return out
}

func updatesN(id string, n int) []M {
	out := make([]M, n)
	for i := range out {
		out[i] = M{"context_id": id, "tags": []string{"x"}}
	}
	return out
}

func entriesN(n int) []M {
	out := make([]M, n)
	for i := range out {
		out[i] = M{"thread_id": "mal", "source": "user", "text": "e"}
	}
	return out
}

func TestConformanceMalformedArguments(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		e := env.store(t, "alice", M{"thread_id": "mal", "source": "user", "text": "target",
			"tags": []string{"keep"}, "metadata": M{"status": "active"}})
		pub := env.store(t, "alice", M{"thread_id": "mal", "source": "agent", "text": "public", "visibility": "public"})
		cases := malformedCases(e)
		snapshot := func(t *testing.T) string {
			t.Helper()
			return mustJSON(M{"total": env.total(t, "alice"), "entries": env.get(t, "alice", e, pub)})
		}
		before := snapshot(t)
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				msg := env.call(t, "alice", c.tool, c.args).err(t)
				if c.want != "" {
					wantErrContains(t, msg, c.want)
				}
				// Nothing changed, and the session still serves valid calls.
				wantEqual(t, "state after the refused call", snapshot(t), before)
			})
		}
		t.Run("a valid write still works afterwards", func(t *testing.T) {
			env.store(t, "alice", M{"thread_id": "mal-after", "source": "user", "text": "after"})
		})
	})
}

// malformedCase is one refused call: the tool, its arguments and a
// substring of the message ("" = any message).
type malformedCase struct {
	name string
	tool string
	args M
	want string
}

// malformedCases are calls every tool must refuse with a message and
// without a change; e is an existing entry. FuzzToolArguments starts from
// them too.
func malformedCases(e string) []malformedCase {
	valid := M{"thread_id": "mal", "source": "user", "text": "new"}
	with := func(base M, k string, v any) M {
		out := M{}
		for key, val := range base {
			out[key] = val
		}
		if v == nil {
			delete(out, k)
		} else {
			out[k] = v
		}
		return out
	}
	return []malformedCase{
		// store_context
		{"store: missing text", "store_context", with(valid, "text", nil), ""},
		{"store: missing thread_id", "store_context", with(valid, "thread_id", nil), ""},
		{"store: missing source", "store_context", with(valid, "source", nil), ""},
		{"store: unknown source", "store_context", with(valid, "source", "system"), ""},
		{"store: empty text", "store_context", with(valid, "text", ""), ""},
		{"store: text as number", "store_context", with(valid, "text", 123), ""},
		{"store: thread_id as number", "store_context", with(valid, "thread_id", 7), ""},
		{"store: tags as number", "store_context", with(valid, "tags", 5), ""},
		{"store: tags with a number", "store_context", with(valid, "tags", []any{"a", 1}), ""},
		{"store: metadata as list", "store_context", with(valid, "metadata", []int{1, 2}), ""},
		{"store: metadata as JSON list text", "store_context", with(valid, "metadata", "[1]"), ""},
		{"store: metadata as plain text", "store_context", with(valid, "metadata", "x"), ""},
		{"store: images as object", "store_context", with(valid, "images", M{"data": pngB64()}), ""},
		{"store: image metadata as object", "store_context", with(valid, "images", []M{{"data": pngB64(), "metadata": M{"a": 1}}}), ""},
		{"store: invalid base64", "store_context", with(valid, "images", []M{{"data": "@@@@"}}), "Image 0 has invalid base64 encoding"},
		{"store: 11 images", "store_context", with(valid, "images", make11()), ""},
		{"store: unknown visibility", "store_context", with(valid, "visibility", "shared"), ""},
		{"store: deduplicate not a boolean", "store_context", with(valid, "deduplicate", "maybe"), ""},
		{"store: unknown parameter", "store_context", with(valid, "foo", 1), ""},
		{"store: owner_id parameter", "store_context", with(valid, "owner_id", "bob"), ""},
		{"store: NUL in text", "store_context", with(valid, "text", "a\x00"), "text" + nulTail},
		{"store: 101 tags", "store_context", with(valid, "tags", tagsN(101)), ""},
		{"store: 257-character thread", "store_context", with(valid, "thread_id", repeat("t", 257)), ""},
		// search_context
		{"search: limit not a number", "search_context", M{"limit": "abc"}, ""},
		{"search: limit 0", "search_context", M{"limit": 0}, ""},
		{"search: negative offset", "search_context", M{"offset": -1}, ""},
		{"search: offset above 1,000,000", "search_context", M{"offset": 1000001}, ""},
		{"search: unknown source", "search_context", M{"source": "system"}, ""},
		{"search: unknown content_type", "search_context", M{"content_type": "video"}, ""},
		{"search: tags as number", "search_context", M{"tags": 5}, ""},
		{"search: include_images not a boolean", "search_context", M{"include_images": "maybe"}, ""},
		{"search: empty thread_id", "search_context", M{"thread_id": ""}, ""},
		{"search: NUL in thread_id", "search_context", M{"thread_id": "a\x00"}, "thread_id" + nulTail},
		{"search: NUL in tags", "search_context", M{"tags": []string{"a\x00"}}, "tags" + nulTail},
		{"search: invalid start_date", "search_context", M{"start_date": "29-11-2025"}, "Invalid start_date format"},
		{"search: impossible end_date", "search_context", M{"end_date": "2025-13-45"}, "Invalid end_date format"},
		{"search: unknown parameter", "search_context", M{"query": "x"}, ""},
		// get_context_by_ids
		{"get: missing ids", "get_context_by_ids", M{}, ""},
		{"get: empty ids", "get_context_by_ids", M{"context_ids": []string{}}, ""},
		{"get: 101 ids", "get_context_by_ids", M{"context_ids": idsN(101)}, ""},
		{"get: ids as plain text", "get_context_by_ids", M{"context_ids": "notjson"}, ""},
		{"get: id as number", "get_context_by_ids", M{"context_ids": []any{5}}, ""},
		{"get: include_images not a boolean", "get_context_by_ids", M{"context_ids": []string{e}, "include_images": "maybe"}, ""},
		{"get: unknown parameter", "get_context_by_ids", M{"context_ids": []string{e}, "limit": 1}, ""},
		// update_context
		{"update: missing context_id", "update_context", M{"text": "x"}, ""},
		{"update: 7-character id", "update_context", M{"context_id": e[:7], "text": "x"}, ""},
		{"update: empty text", "update_context", M{"context_id": e, "text": ""}, ""},
		{"update: text as number", "update_context", M{"context_id": e, "text": 5}, ""},
		{"update: tags as number", "update_context", M{"context_id": e, "tags": 5}, ""},
		{"update: metadata as list", "update_context", M{"context_id": e, "metadata": []int{1}}, ""},
		{"update: metadata_patch as text", "update_context", M{"context_id": e, "metadata_patch": "x"}, ""},
		{"update: unknown visibility", "update_context", M{"context_id": e, "visibility": "shared"}, ""},
		{"update: invalid base64", "update_context", M{"context_id": e, "images": []M{{"data": "@@@@"}}}, "Image 0 has invalid base64 encoding"},
		{"update: thread_id is immutable", "update_context", M{"context_id": e, "thread_id": "other"}, ""},
		{"update: source is immutable", "update_context", M{"context_id": e, "source": "agent", "text": "x"}, ""},
		{"update: NUL in tags", "update_context", M{"context_id": e, "tags": []string{"a\x00"}}, "tags" + nulTail},
		{"update: 101 tags", "update_context", M{"context_id": e, "tags": tagsN(101)}, ""},
		// delete_context
		{"delete: 101 ids", "delete_context", M{"context_ids": idsN(101)}, ""},
		{"delete: id as number", "delete_context", M{"context_ids": []any{5}}, ""},
		{"delete: empty thread_id", "delete_context", M{"thread_id": ""}, ""},
		{"delete: thread_id as number", "delete_context", M{"thread_id": 5}, ""},
		{"delete: unknown parameter", "delete_context", M{"thread_ids": []string{"mal"}}, ""},
		// delete_context_batch
		{"delete batch: older_than_days 0", "delete_context_batch", M{"thread_ids": []string{"mal"}, "older_than_days": 0}, ""},
		{"delete batch: negative older_than_days", "delete_context_batch", M{"thread_ids": []string{"mal"}, "older_than_days": -1}, ""},
		{"delete batch: older_than_days not a number", "delete_context_batch", M{"thread_ids": []string{"mal"}, "older_than_days": "abc"}, ""},
		{"delete batch: unknown source", "delete_context_batch", M{"thread_ids": []string{"mal"}, "source": "system"}, ""},
		{"delete batch: 101 thread_ids", "delete_context_batch", M{"thread_ids": repeatList("mal", 101)}, ""},
		{"delete batch: 101 context_ids", "delete_context_batch", M{"context_ids": idsN(101)}, ""},
		{"delete batch: unknown parameter", "delete_context_batch", M{"thread_id": "mal"}, ""},
		// list_threads and get_statistics
		{"list_threads: limit 101", "list_threads", M{"limit": 101}, ""},
		{"list_threads: limit 0", "list_threads", M{"limit": 0}, ""},
		{"list_threads: negative offset", "list_threads", M{"limit": 5, "offset": -1}, ""},
		{"list_threads: limit not a number", "list_threads", M{"limit": "abc"}, ""},
		{"list_threads: unknown parameter", "list_threads", M{"thread_id": "mal"}, ""},
		{"get_statistics: unknown parameter", "get_statistics", M{"thread_id": "mal"}, ""},
		// store_context_batch
		{"store batch: missing entries", "store_context_batch", M{}, ""},
		{"store batch: no entries", "store_context_batch", M{"entries": []M{}}, ""},
		{"store batch: entries as plain text", "store_context_batch", M{"entries": "notjson"}, ""},
		{"store batch: 101 entries", "store_context_batch", M{"entries": entriesN(101)}, ""},
		{"store batch: atomic not a boolean", "store_context_batch", M{"entries": entriesN(1), "atomic": "maybe"}, ""},
		{"store batch: unknown parameter", "store_context_batch", M{"entries": entriesN(1), "dry_run": true}, ""},
		// update_context_batch
		{"update batch: missing updates", "update_context_batch", M{}, ""},
		{"update batch: no updates", "update_context_batch", M{"updates": []M{}}, ""},
		{"update batch: 101 updates", "update_context_batch", M{"updates": updatesN(e, 101)}, ""},
		{"update batch: atomic not a boolean", "update_context_batch", M{"updates": updatesN(e, 1), "atomic": "maybe"}, ""},
		{"update batch: unknown parameter", "update_context_batch", M{"updates": updatesN(e, 1), "dry_run": true}, ""},
	}
}

func make11() []M {
	out := make([]M, 11)
	for i := range out {
		out[i] = M{"data": pngB64()}
	}
	return out
}

func repeatList(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func TestConformanceUnpairedSurrogate(t *testing.T) {
	// Go's JSON decoder maps a lone surrogate to U+FFFD, so the
	// server reads the raw arguments of such a call itself (rawtext.go) and
	// refuses it with the reference text.
	forEachStore(t, func(t *testing.T, env *env) {
		before := env.total(t, "alice")
		r := env.call(t, "alice", "store_context", M{"thread_id": "sur", "source": "user",
			"text": json.RawMessage(`"lone \ud800 surrogate"`)})
		wantErrContains(t, r.err(t), "an unpaired UTF-16 surrogate (a code point that cannot be encoded as UTF-8)")
		wantEqual(t, "nothing stored", env.total(t, "alice"), before)
	})
}

func TestConformanceUnexpectedFailures(t *testing.T) {
	// a failure that is not the caller's fault is reported with the
	// tool's prefix. Closing the store under the engine provokes one.
	forEachStore(t, func(t *testing.T, env *env) {
		id := env.storeText(t, "alice", "fail", "user", "x")
		env.session(t, "alice") // connect before the store goes away
		if err := env.st.Close(); err != nil {
			t.Fatalf("close store: %v", err)
		}
		for _, c := range []struct {
			tool   string
			args   M
			prefix string
		}{
			{"store_context", M{"thread_id": "fail", "source": "agent", "text": "y"}, "Failed to store context"},
			{"search_context", M{"thread_id": "fail"}, "Failed to search context"},
			{"get_context_by_ids", M{"context_ids": []string{id}}, "Failed to fetch context entries"},
			{"delete_context", M{"context_ids": []string{id}}, "Failed to delete context"},
			{"update_context", M{"context_id": id, "text": "z"}, "Failed to update context"},
			{"list_threads", nil, "Failed to list threads"},
			{"get_statistics", nil, "Failed to get statistics"},
			{"store_context_batch", M{"entries": entriesN(1)}, "Batch store failed"},
			{"update_context_batch", M{"updates": updatesN(id, 1)}, "Batch update failed"},
			{"delete_context_batch", M{"thread_ids": []string{"fail"}}, "Batch delete failed"},
			{"fts_search_context", M{"query": "x"}, "FTS search failed"},
			{"grep_context", M{"pattern": "x"}, "Failed to grep context"},
			{"navigate_context", M{"context_id": id}, "Failed to navigate context"},
			{"read_context_range", M{"context_id": id, "start_char": 0}, "Failed to read context range"},
		} {
			wantPrefix(t, c.tool, env.call(t, "alice", c.tool, c.args).err(t), c.prefix)
		}
	})
}
