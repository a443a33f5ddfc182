package server_test

import (
	"fmt"
	"slices"
	"testing"
)

// store_context_batch and update_context_batch: T-078..T-085 (B.19, B.20).

func wantBatchItem(t *testing.T, item M, index int, success bool) {
	t.Helper()
	wantEqual(t, "index", num(t, item, "index"), float64(index))
	wantEqual(t, fmt.Sprintf("results[%d].success", index), boolean(t, item, "success"), success)
	if success {
		if v := field(t, item, "error"); v != nil {
			t.Fatalf("results[%d].error: got %s, want null", index, mustJSON(v))
		}
		if !canonicalID.MatchString(str(t, item, "context_id")) {
			t.Fatalf("results[%d].context_id not canonical: %s", index, mustJSON(item))
		}
	} else if _, ok := field(t, item, "error").(string); !ok {
		t.Fatalf("results[%d].error: got %s, want a message", index, mustJSON(item["error"]))
	}
}

func TestConformanceStoreBatch(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		entry := func(text string) M { return M{"thread_id": "batch", "source": "user", "text": text} }

		t.Run("T-078 atomic validation failure stores nothing", func(t *testing.T) {
			before := env.total(t, "alice")
			got := env.call(t, "alice", "store_context_batch", M{"entries": []M{entry("a0"), {"thread_id": "batch", "source": "user"}}}).err(t)
			wantEqual(t, "message", got, "Validation failed for 1 entries. First error at index 1: Missing required field: text")
			got = env.call(t, "alice", "store_context_batch", M{"atomic": true, "entries": []M{
				entry("a1"), {"thread_id": "batch", "source": "user"}, {"source": "user", "text": "x"},
			}}).err(t)
			wantEqual(t, "message", got, "Validation failed for 2 entries. First error at index 1: Missing required field: text")
			wantEqual(t, "total", env.total(t, "alice"), before)
		})

		t.Run("T-079 non-atomic stores the valid entries", func(t *testing.T) {
			before := env.total(t, "alice")
			res := env.call(t, "alice", "store_context_batch", M{"atomic": false, "entries": []M{
				entry("n0"), {"thread_id": "batch", "source": "user"},
			}}).ok(t)
			wantEqual(t, "success", boolean(t, res, "success"), false)
			wantEqual(t, "total", num(t, res, "total"), 2)
			wantEqual(t, "succeeded", num(t, res, "succeeded"), 1)
			wantEqual(t, "failed", num(t, res, "failed"), 1)
			wantPrefix(t, "message", str(t, res, "message"), "Stored 1/2 entries successfully")
			items := objs(t, arr(t, res, "results"))
			wantBatchItem(t, items[0], 0, true)
			wantBatchItem(t, items[1], 1, false)
			wantEqualJSON(t, "failed item", items[1], `{"index":1,"success":false,"context_id":null,"error":"Missing required field: text"}`)
			wantEqual(t, "stored", env.total(t, "alice"), before+1)
			wantEqual(t, "stored text", str(t, env.getOne(t, "alice", str(t, items[0], "context_id")), "text_content"), "n0")
		})

		t.Run("all entries invalid", func(t *testing.T) {
			res := env.call(t, "alice", "store_context_batch", M{"atomic": false, "entries": []M{
				{"thread_id": "batch"}, {"text": "x"},
			}}).ok(t)
			wantEqual(t, "success", boolean(t, res, "success"), false)
			wantEqual(t, "succeeded", num(t, res, "succeeded"), 0)
			wantEqual(t, "message", str(t, res, "message"), "All entries failed validation")
		})

		t.Run("a valid batch stores every field", func(t *testing.T) {
			res := env.call(t, "alice", "store_context_batch", M{"entries": []M{
				{"thread_id": "batch-ok", "source": "agent", "text": " first ", "tags": []string{"B", "a"}, "metadata": M{"k": 1}},
				{"thread_id": "batch-ok", "source": "user", "text": "second", "visibility": "public", "images": []M{{"data": pngB64()}}},
				{"thread_id": "batch-ok", "source": "user", "text": "third", "owner_id": "bob"}, // extra keys are ignored
			}}).ok(t)
			wantEqual(t, "success", boolean(t, res, "success"), true)
			wantEqual(t, "succeeded", num(t, res, "succeeded"), 3)
			wantEqual(t, "failed", num(t, res, "failed"), 0)
			wantPrefix(t, "message", str(t, res, "message"), "Stored 3/3 entries successfully")
			items := objs(t, arr(t, res, "results"))
			for i, it := range items {
				wantBatchItem(t, it, i, true)
				if hasKey(it, "updated_fields") {
					t.Fatalf("store batch result carries updated_fields: %s", mustJSON(it))
				}
			}
			first := env.getOne(t, "alice", str(t, items[0], "context_id"))
			wantEqual(t, "text stripped", str(t, first, "text_content"), "first")
			wantSlice(t, "tags", strs(t, first, "tags"), []string{"a", "b"})
			wantEqualJSON(t, "metadata", first["metadata"], `{"k":1}`)
			second := env.getOne(t, "bob", str(t, items[1], "context_id"))
			wantEqual(t, "content_type", str(t, second, "content_type"), "multimodal")
			third := str(t, items[2], "context_id")
			wantEqual(t, "owner_id ignored: alice owns it", boolean(t, env.getOne(t, "alice", third), "is_owner"), true)
			wantEqual(t, "owner_id ignored: bob cannot read it", env.readable(t, "bob", third), false)
		})

		t.Run("T-080 per-entry validation messages", func(t *testing.T) {
			with := func(k string, v any) M {
				e := M{"thread_id": "batch-v", "source": "user", "text": "valid " + k + " " + mustJSON(v)}
				e[k] = v
				return e
			}
			without := func(k string) M {
				e := M{"thread_id": "batch-v", "source": "user", "text": "x"}
				delete(e, k)
				return e
			}
			img := func(im M) M { return with("images", []M{im}) }
			eleven := make([]M, 11)
			for i := range eleven {
				eleven[i] = M{"data": pngB64()}
			}
			cases := []struct {
				entry M
				want  string // "" = accepted
			}{
				{without("thread_id"), "Missing required field: thread_id"},
				{M{"source": "user"}, "Missing required field: thread_id"}, // first failure wins
				{M{"thread_id": "batch-v", "source": "user", "text": 5, "tags": "abc"}, "text must be a string"},
				{M{"thread_id": "batch-v", "source": "user", "text": "x", "tags": tagsN(101), "metadata": M{"status": repeat("x", 513)}}, "Too many tags: 101 provided, maximum is 100 per entry"},
				{without("source"), `Missing or invalid source (must be "user" or "agent")`},
				{with("source", "system"), `Missing or invalid source (must be "user" or "agent")`},
				{without("text"), "Missing required field: text"},
				{with("thread_id", 5), "thread_id must be a string"},
				{with("text", 5), "text must be a string"},
				{with("thread_id", "   "), "thread_id cannot be empty or whitespace"},
				{with("text", " \n "), "text cannot be empty or whitespace"},
				{with("thread_id", repeat("é", 257)), "thread_id is too long: 257 characters, maximum is 256 characters"},
				{with("text", "a\x00b"), "text" + nulTail},
				{with("images", "x"), "images must be a list of objects"},
				{with("images", []string{"x"}), "images must be a list of objects"},
				{with("images", eleven), "Too many images: 11 provided, maximum is 10 per entry"},
				{img(M{"mime_type": "image/png"}), `Image 0 is missing required "data" field`},
				{img(M{"data": 5}), `Image 0 has a non-string "data" field`},
				{img(M{"data": "  "}), `Image 0 has empty "data" field`},
				{img(M{"data": pngB64(), "mime_type": 5}), `Image 0 has a non-string "mime_type" field`},
				{img(M{"data": pngB64(), "mime_type": "image/\x00png"}), "Image 0 mime_type" + nulTail},
				{img(M{"data": pngB64(), "metadata": 5}), "Image 0 metadata must be a JSON-encoded string (got int)"},
				{img(M{"data": pngB64(), "metadata": M{"a": 1}}), "Image 0 metadata must be a JSON-encoded string (got dict)"},
				{img(M{"data": pngB64(), "metadata": "a\x00"}), "Image 0 metadata" + nulTail},
				{img(M{"data": "!!!!"}), "Image 0 has invalid base64 encoding"},
				{img(M{"data": "data:image/png;base64,"}), `Image 0 "data" decodes to zero bytes (not valid base64 image content)`},
				{with("metadata", "x"), "metadata must be a JSON object"},
				{with("metadata", []int{1}), "metadata must be a JSON object"},
				{with("metadata", M{"status": repeat("x", 513)}), "metadata field 'status' is indexed and its value is too long: 513 characters, maximum is 512 characters"},
				{with("tags", "abc"), "tags must be a list of strings"},
				{with("tags", []int{1}), "tags must be a list of strings"},
				{with("tags", tagsN(101)), "Too many tags: 101 provided, maximum is 100 per entry"},
				{with("tags", []string{"ok", repeat("x", 129)}), "Tag 1 is too long: 129 characters, maximum is 128 characters per tag"},
				{with("visibility", "shared"), "visibility must be one of 'private', 'public'"},
				{with("deduplicate", "maybe"), "deduplicate must be a boolean"},
				{with("deduplicate", "off"), ""}, {with("deduplicate", "false"), ""}, {with("deduplicate", "no"), ""},
				{with("deduplicate", "0"), ""}, {with("deduplicate", 0), ""}, {with("deduplicate", "on"), ""},
				{with("deduplicate", "yes"), ""}, {with("deduplicate", "1"), ""}, {with("deduplicate", 1), ""},
				{with("deduplicate", true), ""}, {with("deduplicate", "true"), ""},
			}
			entries := make([]M, len(cases))
			accepted := 0
			for i, c := range cases {
				entries[i] = c.entry
				if c.want == "" {
					accepted++
				}
			}
			before := env.total(t, "alice")
			res := env.call(t, "alice", "store_context_batch", M{"atomic": false, "entries": entries}).ok(t)
			items := objs(t, arr(t, res, "results"))
			if len(items) != len(cases) {
				t.Fatalf("results: got %d, want %d", len(items), len(cases))
			}
			for i, c := range cases {
				wantBatchItem(t, items[i], i, c.want == "")
				if c.want != "" {
					wantEqual(t, fmt.Sprintf("entry %d %s", i, mustJSON(c.entry)), str(t, items[i], "error"), c.want)
				}
			}
			wantEqual(t, "succeeded", num(t, res, "succeeded"), float64(accepted))
			wantEqual(t, "stored", env.total(t, "alice"), before+accepted)
		})

		t.Run("T-085 at most 100 entries", func(t *testing.T) {
			before := env.total(t, "alice")
			mk := func(n int) []M {
				out := make([]M, n)
				for i := range out {
					out[i] = M{"thread_id": "batch-cap", "source": "user", "text": fmt.Sprintf("cap %d", i)}
				}
				return out
			}
			env.call(t, "alice", "store_context_batch", M{"entries": mk(101)}).err(t)
			wantEqual(t, "nothing stored", env.total(t, "alice"), before)
			res := env.call(t, "alice", "store_context_batch", M{"entries": mk(100)}).ok(t)
			wantEqual(t, "succeeded", num(t, res, "succeeded"), 100)
			wantEqual(t, "stored", env.total(t, "alice"), before+100)
		})
	})
}

func TestConformanceUpdateBatch(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		a := env.storeText(t, "alice", "ub", "user", "a")
		b := env.storeText(t, "alice", "ub", "agent", "b")
		pub := env.store(t, "alice", M{"thread_id": "ub", "source": "user", "text": "alice public", "visibility": "public"})
		texts := func(t *testing.T) string {
			t.Helper()
			var out []string
			for _, id := range []string{a, b, pub} {
				out = append(out, str(t, env.getOne(t, "alice", id), "text_content"))
			}
			return fmt.Sprint(out)
		}
		orig := texts(t)

		t.Run("T-081 atomic: an absent id fails the whole batch", func(t *testing.T) {
			got := env.call(t, "alice", "update_context_batch", M{"updates": []M{
				{"context_id": a, "text": "a2"}, {"context_id": b, "text": "b2"}, {"context_id": absentID, "text": "x"},
			}}).err(t)
			wantEqual(t, "message", got, "Context entry "+absentID+" not found at index 2")
			wantEqual(t, "nothing applied", texts(t), orig)
			got = env.call(t, "bob", "update_context_batch", M{"updates": []M{{"context_id": a, "text": "x"}}}).err(t)
			wantEqual(t, "hidden id", got, "Context entry "+a+" not found at index 0")
		})

		t.Run("T-082 a readable entry the caller may not modify", func(t *testing.T) {
			got := env.call(t, "bob", "update_context_batch", M{"updates": []M{{"context_id": pub, "text": "bob"}}}).err(t)
			wantEqual(t, "atomic", got, "Not authorized to modify context entry "+pub+" at index 0")
			res := env.call(t, "bob", "update_context_batch", M{"atomic": false, "updates": []M{
				{"context_id": pub, "text": "bob"}, {"context_id": pub, "visibility": "private"},
			}}).ok(t)
			for _, it := range objs(t, arr(t, res, "results")) {
				wantEqual(t, "non-atomic", str(t, it, "error"), "Not authorized to modify context entry "+pub)
			}
			wantEqual(t, "nothing applied", texts(t), orig)
		})
		t.Run("T-082 read grant", func(t *testing.T) {
			env.call(t, "alice", "share_context", M{"context_id": a, "principal_type": "user", "principal_id": "carol", "permission": "read"}).ok(t)
			got := env.call(t, "carol", "update_context_batch", M{"updates": []M{{"context_id": a, "text": "carol"}}}).err(t)
			wantEqual(t, "atomic", got, "Not authorized to modify context entry "+a+" at index 0")
			res := env.call(t, "carol", "update_context_batch", M{"atomic": false, "updates": []M{{"context_id": a, "text": "carol"}}}).ok(t)
			wantEqual(t, "non-atomic", str(t, objs(t, arr(t, res, "results"))[0], "error"), "Not authorized to modify context entry "+a)
			env.call(t, "alice", "share_context", M{"context_id": b, "principal_type": "user", "principal_id": "carol", "permission": "write"}).ok(t)
			got = env.call(t, "carol", "update_context_batch", M{"updates": []M{{"context_id": b, "visibility": "public"}}}).err(t)
			wantEqual(t, "write grantee publishes", got, "Only the owner may change the visibility of context "+b+" (index 0)")
			wantEqual(t, "nothing applied", texts(t), orig)
		})

		t.Run("atomic per-item validation failure", func(t *testing.T) {
			got := env.call(t, "alice", "update_context_batch", M{"updates": []M{
				{"context_id": a, "text": "fine"}, {"context_id": b, "metadata": M{"x": 1}, "metadata_patch": M{"y": 1}},
			}}).err(t)
			wantEqual(t, "message", got, "Validation failed for 1 entries. First error at context_id "+b+
				": Cannot use both metadata and metadata_patch. Use one or the other.")
			wantEqual(t, "nothing applied", texts(t), orig)
		})

		t.Run("T-083 the same id twice in one atomic batch", func(t *testing.T) {
			res := env.call(t, "alice", "update_context_batch", M{"updates": []M{
				{"context_id": b, "visibility": "public"}, {"context_id": b, "text": "b twice"},
			}}).ok(t)
			wantEqual(t, "succeeded", num(t, res, "succeeded"), 2)
			wantEqual(t, "success", boolean(t, res, "success"), true)
			wantPrefix(t, "message", str(t, res, "message"), "Updated 2/2 entries successfully")
			e := env.getOne(t, "bob", b)
			wantEqual(t, "text", str(t, e, "text_content"), "b twice")
			items := objs(t, arr(t, res, "results"))
			wantEqual(t, "results[0].context_id", str(t, items[0], "context_id"), b)
			if !slices.Contains(strs(t, items[1], "updated_fields"), "text_content") {
				t.Fatalf("results[1].updated_fields: got %q, want text_content", strs(t, items[1], "updated_fields"))
			}
			env.call(t, "alice", "update_context_batch", M{"updates": []M{{"context_id": b, "text": "b", "visibility": "private"}}}).ok(t)
		})

		t.Run("T-084 non-atomic unresolvable prefix", func(t *testing.T) {
			res := env.call(t, "alice", "update_context_batch", M{"atomic": false, "updates": []M{
				{"context_id": "fedcba98", "text": "x"}, {"context_id": a, "tags": []string{"ok"}},
			}}).ok(t)
			items := objs(t, arr(t, res, "results"))
			wantPrefix(t, "error", str(t, items[0], "error"), "Invalid context_id: No context entry matches prefix")
			wantBatchItem(t, items[1], 1, true)
			wantEqual(t, "success", boolean(t, res, "success"), false)
			wantPrefix(t, "message", str(t, res, "message"), "Updated 1/2 entries successfully")
		})

		t.Run("per-item validation messages", func(t *testing.T) {
			item := func(k string, v any) M { return M{"context_id": a, k: v} }
			idx := "metadata field 'status' is indexed and its value is too long: 513 characters, maximum is 512 characters"
			cases := []struct {
				upd  M
				want string
			}{
				{M{"text": "x"}, "Missing required field: context_id"},
				{M{"context_id": "", "text": "x"}, "context_id must be a non-empty string"},
				{M{"context_id": 5, "text": "x"}, "context_id must be a non-empty string"},
				{M{"context_id": "abcdef1", "text": "x"}, "Invalid context_id: Invalid UUID identifier length (expected 32 hex chars after normalization): 'abcdef1'"},
				{M{"context_id": a, "metadata": M{}, "metadata_patch": M{}}, "Cannot use both metadata and metadata_patch. Use one or the other."},
				{item("text", 5), "text must be a string"},
				{item("text", "   "), "text cannot be empty or whitespace"},
				{M{"context_id": a}, "At least one field must be provided for update"},
				{item("metadata", "x"), "metadata must be a JSON object"},
				{item("metadata_patch", "x"), "metadata_patch must be a JSON object"},
				{item("tags", "abc"), "tags must be a list of strings"},
				{item("tags", tagsN(101)), "Too many tags: 101 provided, maximum is 100 per entry"},
				{item("tags", []string{repeat("x", 129)}), "Tag 0 is too long: 129 characters, maximum is 128 characters per tag"},
				{item("images", "x"), "images must be a list of objects"},
				{item("images", []M{{"data": "!!!!"}}), "Image 0 has invalid base64 encoding"},
				{item("metadata", M{"status": repeat("x", 513)}), idx},
				{item("metadata_patch", M{"status": repeat("x", 513)}), idx},
				{item("visibility", "shared"), "visibility must be one of 'private', 'public'"},
				{item("text", "a\x00"), "text" + nulTail},
				{item("tags", []string{"valid"}), ""},
			}
			updates := make([]M, len(cases))
			for i, c := range cases {
				updates[i] = c.upd
			}
			res := env.call(t, "alice", "update_context_batch", M{"atomic": false, "updates": updates}).ok(t)
			items := objs(t, arr(t, res, "results"))
			if len(items) != len(cases) {
				t.Fatalf("results: got %d, want %d", len(items), len(cases))
			}
			for i, c := range cases {
				it := items[i]
				wantEqual(t, "index", num(t, it, "index"), float64(i))
				if c.want == "" {
					wantEqual(t, "success", boolean(t, it, "success"), true)
					wantSlice(t, "updated_fields", strs(t, it, "updated_fields"), []string{"tags"})
					if field(t, it, "error") != nil {
						t.Fatalf("results[%d].error: got %s, want null", i, mustJSON(it["error"]))
					}
					continue
				}
				wantEqual(t, "success", boolean(t, it, "success"), false)
				wantEqual(t, fmt.Sprintf("results[%d].error for %s", i, mustJSON(c.upd)), str(t, it, "error"), c.want)
				if v := field(t, it, "updated_fields"); v != nil {
					t.Fatalf("results[%d].updated_fields: got %s, want null", i, mustJSON(v))
				}
			}
			wantPrefix(t, "message", str(t, res, "message"), fmt.Sprintf("Updated 1/%d entries successfully", len(cases)))
			wantEqual(t, "failed", num(t, res, "failed"), float64(len(cases)-1))
		})

		t.Run("all updates failed", func(t *testing.T) {
			res := env.call(t, "alice", "update_context_batch", M{"atomic": false, "updates": []M{{"text": "x"}, {"context_id": ""}}}).ok(t)
			wantEqual(t, "message", str(t, res, "message"), "All updates failed validation")
			wantEqual(t, "success", boolean(t, res, "success"), false)
			res = env.call(t, "alice", "update_context_batch", M{"atomic": false, "updates": []M{{"text": "x"}, {"context_id": absentID, "text": "x"}}}).ok(t)
			wantEqual(t, "message", str(t, res, "message"), "All updates failed validation or entry not found")
		})
	})
}
