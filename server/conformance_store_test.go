package server_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Identifiers and prefixes: T-001..T-009 (A.2).

func TestConformanceIdentifiers(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		t.Run("T-001 store returns canonical increasing ids", func(t *testing.T) {
			prev := ""
			for i := 0; i < 20; i++ {
				res := env.call(t, "alice", "store_context", M{
					"thread_id": "t001", "source": "user", "text": fmt.Sprintf("entry %d", i),
				}).ok(t)
				id := str(t, res, "context_id")
				if !canonicalID.MatchString(id) {
					t.Fatalf("context_id %q does not match ^[0-9a-f]{32}$", id)
				}
				if id <= prev {
					t.Fatalf("ids must increase with insertion order: %s after %s", id, prev)
				}
				prev = id
				wantEqual(t, "success", boolean(t, res, "success"), true)
				wantEqual(t, "thread_id", str(t, res, "thread_id"), "t001")
				wantPrefix(t, "message", str(t, res, "message"), "Context stored")
			}
		})

		t.Run("T-002 hyphenated upper-case id with surrounding whitespace", func(t *testing.T) {
			id := env.storeText(t, "alice", "t002", "user", "hyphen form")
			raw := " " + strings.ToUpper(hyphenated(id)) + " "
			got := env.get(t, "alice", raw)
			if len(got) != 1 {
				t.Fatalf("get_context_by_ids(%q): got %d entries, want 1", raw, len(got))
			}
			wantEqual(t, "id", str(t, got[0], "id"), id)
			upd := env.call(t, "alice", "update_context", M{"context_id": raw, "tags": []string{"x"}}).ok(t)
			wantEqual(t, "update_context context_id", str(t, upd, "context_id"), id)
			del := env.call(t, "alice", "delete_context", M{"context_ids": []string{raw}}).ok(t)
			wantEqual(t, "deleted_count", num(t, del, "deleted_count"), 1)
		})
	})
}

func TestConformanceIDPrefixes(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		// storeAs stores with a crafted id and checks the engine used it.
		storeAs := func(t *testing.T, principal, id string, args M) string {
			t.Helper()
			env.ids.push(id)
			got := env.store(t, principal, args)
			if got != id {
				t.Fatalf("Config.NewID seam: stored id %s, want crafted %s", got, id)
			}
			return got
		}

		t.Run("T-003 unique 8-character prefix resolves in every id tool", func(t *testing.T) {
			a := env.storeText(t, "alice", "t003", "user", "prefix target a")
			got := env.get(t, "alice", a[:8])
			if len(got) != 1 || str(t, got[0], "id") != a {
				t.Fatalf("get_context_by_ids([%s]): got %s, want entry %s", a[:8], mustJSON(got), a)
			}
			got = env.get(t, "alice", a[:31])
			if len(got) != 1 || str(t, got[0], "id") != a {
				t.Fatalf("31-character prefix: got %s, want entry %s", mustJSON(got), a)
			}
			upd := env.call(t, "alice", "update_context", M{"context_id": a[:8], "tags": []string{"p"}}).ok(t)
			wantEqual(t, "update_context context_id", str(t, upd, "context_id"), a)

			b := env.storeText(t, "alice", "t003", "agent", "prefix target b")
			ub := env.call(t, "alice", "update_context_batch", M{
				"updates": []M{{"context_id": b[:8], "text": "prefix target b2"}},
			}).ok(t)
			item := objs(t, arr(t, ub, "results"))[0]
			wantEqual(t, "update_context_batch results[0].context_id", str(t, item, "context_id"), b)
			wantEqual(t, "updated text", str(t, env.getOne(t, "alice", b), "text_content"), "prefix target b2")

			del := env.call(t, "alice", "delete_context", M{"context_ids": []string{a[:8]}}).ok(t)
			wantEqual(t, "delete_context deleted_count", num(t, del, "deleted_count"), 1)
			delb := env.call(t, "alice", "delete_context_batch", M{"context_ids": []string{b[:8]}}).ok(t)
			wantEqual(t, "delete_context_batch deleted_count", num(t, delb, "deleted_count"), 1)
			if len(env.get(t, "alice", a, b)) != 0 {
				t.Fatalf("entries deleted by prefix are still readable")
			}
		})

		t.Run("T-004 malformed ids", func(t *testing.T) {
			id := env.storeText(t, "alice", "t004", "user", "kept")
			short := "abcdef1"
			wantShort := "Invalid UUID identifier length (expected 32 hex chars after normalization): 'abcdef1'"
			nonHex := "0123456789abcdef0123456789abcdeg"
			wantNonHex := "Invalid UUID identifier (non-hex character): '" + nonHex + "'"
			for _, c := range []struct {
				tool string
				args func(v string) M
			}{
				{"get_context_by_ids", func(v string) M { return M{"context_ids": []string{v}} }},
				{"delete_context", func(v string) M { return M{"context_ids": []string{v}} }},
				{"delete_context_batch", func(v string) M { return M{"context_ids": []string{v}} }},
			} {
				wantErrContains(t, env.call(t, "alice", c.tool, c.args(short)).err(t), wantShort)
				wantErrContains(t, env.call(t, "alice", c.tool, c.args(nonHex)).err(t), wantNonHex)
			}
			// Eight non-hex characters are no prefix: they fail as a full id.
			wantErrContains(t, env.call(t, "alice", "get_context_by_ids", M{"context_ids": []string{"abcdefgh"}}).err(t),
				"Invalid UUID identifier length (expected 32 hex chars after normalization): 'abcdefgh'")
			// update_context.context_id has min_length 8: a schema rejection.
			env.call(t, "alice", "update_context", M{"context_id": short, "text": "x"}).err(t)
			wantEqual(t, "update_context", env.call(t, "alice", "update_context", M{"context_id": nonHex, "text": "x"}).err(t),
				"Invalid context ID: "+wantNonHex)
			wantEqual(t, "delete_context_batch", env.call(t, "alice", "delete_context_batch", M{"context_ids": []string{short}}).err(t),
				"Invalid context ID: "+wantShort)
			ub := env.call(t, "alice", "update_context_batch", M{
				"updates": []M{{"context_id": nonHex, "text": "x"}}, "atomic": false,
			}).ok(t)
			wantEqual(t, "batch item error", str(t, objs(t, arr(t, ub, "results"))[0], "error"), "Invalid context_id: "+wantNonHex)
			wantEqual(t, "entry untouched", str(t, env.getOne(t, "alice", id), "text_content"), "kept")
		})

		t.Run("T-005 ambiguous prefix in every id tool", func(t *testing.T) {
			x := storeAs(t, "alice", "abcdef01000000000000000000000001", M{"thread_id": "t005", "source": "user", "text": "x"})
			y := storeAs(t, "alice", "abcdef01000000000000000000000002", M{"thread_id": "t005", "source": "agent", "text": "y"})
			for _, p := range []string{"abcdef01", "abcdef010000000000000000000000"} {
				want := "Ambiguous prefix '" + p + "' matches multiple entries"
				wantPrefixErrors(t, env, "alice", p, want)
			}
			if len(env.get(t, "alice", x, y)) != 2 {
				t.Fatalf("a refused ambiguous call changed the entries")
			}
		})

		t.Run("T-006 unmatched prefix in every id tool", func(t *testing.T) {
			env.storeText(t, "alice", "t006", "user", "something")
			wantPrefixErrors(t, env, "alice", "fedcba98", "No context entry matches prefix 'fedcba98'")
		})

		t.Run("T-007 a hidden entry is indistinguishable from an absent one", func(t *testing.T) {
			e := env.storeText(t, "alice", "t007", "user", "alice private")
			hidden, absent := e[:24], "fedcba9876543210fedcba98"
			for _, tool := range []string{"get_context_by_ids", "delete_context", "delete_context_batch"} {
				gotHidden := env.call(t, "bob", tool, M{"context_ids": []string{hidden}}).err(t)
				gotAbsent := env.call(t, "bob", tool, M{"context_ids": []string{absent}}).err(t)
				wantErrContains(t, gotHidden, "No context entry matches prefix '"+hidden+"'")
				wantEqual(t, tool+" message for hidden vs absent prefix", gotHidden, strings.ReplaceAll(gotAbsent, absent, hidden))
			}
			gotHidden := env.call(t, "bob", "update_context", M{"context_id": hidden, "text": "x"}).err(t)
			gotAbsent := env.call(t, "bob", "update_context", M{"context_id": absent, "text": "x"}).err(t)
			wantEqual(t, "update_context message for hidden vs absent prefix", gotHidden, strings.ReplaceAll(gotAbsent, absent, hidden))

			if got := env.get(t, "bob", e); len(got) != 0 {
				t.Fatalf("bob get_context_by_ids([alice private]): got %s, want []", mustJSON(got))
			}
			never := "0123456789abcdef0123456789abcdef"
			wantEqual(t, "update hidden", env.call(t, "bob", "update_context", M{"context_id": e, "text": "x"}).err(t),
				"Context entry with ID "+e+" not found")
			wantEqual(t, "update absent", env.call(t, "bob", "update_context", M{"context_id": never, "text": "x"}).err(t),
				"Context entry with ID "+never+" not found")
			ub := env.call(t, "bob", "update_context_batch", M{"updates": []M{{"context_id": e, "text": "x"}}, "atomic": false}).ok(t)
			wantEqual(t, "update batch hidden", str(t, objs(t, arr(t, ub, "results"))[0], "error"), "Context entry "+e+" not found")
			del := env.call(t, "bob", "delete_context", M{"context_ids": []string{e}}).ok(t)
			wantEqual(t, "bob deleted_count", num(t, del, "deleted_count"), 0)
			wantEqual(t, "alice entry survives", str(t, env.getOne(t, "alice", e), "text_content"), "alice private")
		})

		t.Run("T-008 hidden rows never make a prefix ambiguous", func(t *testing.T) {
			a := storeAs(t, "alice", "cafe0001000000000000000000000001", M{"thread_id": "t008a", "source": "user", "text": "alice A"})
			b := storeAs(t, "bob", "cafe0001000000000000000000000002", M{"thread_id": "t008b", "source": "user", "text": "bob B"})
			wantEqual(t, "bob resolves the prefix", str(t, env.getOne(t, "bob", "cafe0001"), "id"), b)
			wantEqual(t, "alice resolves the prefix", str(t, env.getOne(t, "alice", "cafe0001"), "id"), a)
			upd := env.call(t, "bob", "update_context", M{"context_id": "cafe0001", "tags": []string{"mine"}}).ok(t)
			wantEqual(t, "bob update resolves to B", str(t, upd, "context_id"), b)
			// Once A is public, bob reads both and the prefix becomes ambiguous.
			env.call(t, "alice", "update_context", M{"context_id": a, "visibility": "public"}).ok(t)
			wantErrContains(t, env.call(t, "bob", "get_context_by_ids", M{"context_ids": []string{"cafe0001"}}).err(t),
				"Ambiguous prefix 'cafe0001' matches multiple entries")
		})

		t.Run("T-009 get_context_by_ids orders newest first and omits missing ids", func(t *testing.T) {
			id1 := env.storeText(t, "alice", "t009", "user", "older")
			env.clock.advance(time.Minute)
			id2 := env.storeText(t, "alice", "t009", "agent", "newer")
			got := env.get(t, "alice", id1, "0123456789abcdef0123456789abcdef", id2)
			var ids []string
			for _, e := range got {
				ids = append(ids, str(t, e, "id"))
			}
			wantSlice(t, "order", ids, []string{id2, id1})
			got = env.get(t, "alice", id1, id1, hyphenated(id1), id1[:8])
			if len(got) != 1 {
				t.Fatalf("duplicate ids: got %d entries, want 1", len(got))
			}
			// created_at outranks the id: a newer entry with a smaller id comes first.
			big := storeAs(t, "alice", "f0000000000000000000000000000001", M{"thread_id": "t009b", "source": "user", "text": "big id"})
			env.clock.advance(time.Minute)
			small := storeAs(t, "alice", "0f000000000000000000000000000001", M{"thread_id": "t009b", "source": "agent", "text": "small id"})
			ids = nil
			for _, e := range env.get(t, "alice", big, small) {
				ids = append(ids, str(t, e, "id"))
			}
			wantSlice(t, "get order", ids, []string{small, big})
			wantSlice(t, "search order", env.searchIDs(t, "alice", M{"thread_id": "t009b"}), []string{small, big})
		})
	}, withCraftedIDs())
}

// wantPrefixErrors checks that every id tool refuses prefix p with want.
func wantPrefixErrors(t *testing.T, env *env, principal, p, want string) {
	t.Helper()
	for _, c := range []struct {
		tool string
		args M
	}{
		{"get_context_by_ids", M{"context_ids": []string{p}}},
		{"update_context", M{"context_id": p, "text": "changed"}},
		{"delete_context", M{"context_ids": []string{p}}},
		{"delete_context_batch", M{"context_ids": []string{p}}},
	} {
		got := env.call(t, principal, c.tool, c.args).err(t)
		if !strings.Contains(got, want) {
			t.Fatalf("%s(%s): got %q, want it to contain %q", c.tool, p, got, want)
		}
		if c.tool == "update_context" || c.tool == "delete_context_batch" {
			// A single-id tool and delete_context_batch wrap the resolver's text (A.2, R-211).
			wantEqual(t, c.tool+" message", got, "Invalid context ID: "+want)
		}
	}
	ub := env.call(t, principal, "update_context_batch", M{
		"updates": []M{{"context_id": p, "text": "changed"}}, "atomic": false,
	}).ok(t)
	wantEqual(t, "update_context_batch item error", str(t, objs(t, arr(t, ub, "results"))[0], "error"), "Invalid context_id: "+want)
}

// Store and deduplication: T-010..T-020 (B.1, R-012..R-014).

func TestConformanceStore(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		t.Run("T-010 text and thread are stripped; blank values are refused", func(t *testing.T) {
			res := env.call(t, "alice", "store_context", M{"thread_id": " padded ", "source": "user", "text": "  hello  "}).ok(t)
			wantEqual(t, "response thread_id", str(t, res, "thread_id"), "padded")
			e := env.getOne(t, "alice", str(t, res, "context_id"))
			wantEqual(t, "text_content", str(t, e, "text_content"), "hello")
			wantEqual(t, "thread_id", str(t, e, "thread_id"), "padded")
			wantEqual(t, "source", str(t, e, "source"), "user")
			wantEqual(t, "content_type", str(t, e, "content_type"), "text")
			wantEqual(t, "visibility (default private)", str(t, e, "visibility"), "private")
			wantEqual(t, "is_owner", boolean(t, e, "is_owner"), true)
			wantEqual(t, "created_at", str(t, e, "created_at"), wire(env.clock.Now()))
			wantEqual(t, "updated_at", str(t, e, "updated_at"), wire(env.clock.Now()))
			if v, ok := e["metadata"]; !ok || v != nil {
				t.Fatalf("metadata of an entry stored without metadata: got %s, want null", mustJSON(v))
			}
			wantEqualJSON(t, "tags", field(t, e, "tags"), `[]`)
			for _, k := range []string{"owner", "owner_id", "grants", "granted_by"} {
				if hasKey(e, k) {
					t.Fatalf("entry exposes %q: %s", k, mustJSON(e))
				}
			}

			before := env.total(t, "alice")
			wantEqual(t, "blank text", env.call(t, "alice", "store_context", M{"thread_id": "t010", "source": "user", "text": "  \n\t "}).err(t),
				"text cannot be empty or whitespace")
			wantEqual(t, "blank thread", env.call(t, "alice", "store_context", M{"thread_id": "   ", "source": "user", "text": "x"}).err(t),
				"thread_id cannot be empty or whitespace")
			wantEqual(t, "total after refusals", env.total(t, "alice"), before)
		})

		t.Run("R-010 R-070 validation order", func(t *testing.T) {
			before := env.total(t, "alice")
			bad := []M{{"data": "!!!!"}}
			for _, c := range []struct {
				tool string
				args M
				want string // prefix
			}{
				{"store_context", M{"thread_id": " ", "source": "user", "text": " "}, "thread_id cannot be empty or whitespace"},
				{"store_context", M{"thread_id": "ord", "source": "user", "text": " ", "images": bad}, "text cannot be empty or whitespace"},
				{"store_context", M{"thread_id": "ord", "source": "user", "text": "x", "images": bad, "metadata": M{"a": "\x00"}}, "Image 0 has invalid base64 encoding"},
				{"store_context", M{"thread_id": "ord", "source": "user", "text": "x", "metadata": M{"status": repeat("s", 513), "a": "\x00"}}, "metadata: A string value contains an embedded NUL"},
				{"update_context", M{"context_id": absentID, "text": " ", "metadata": M{}, "metadata_patch": M{}}, "text cannot be empty or contain only whitespace"},
				{"update_context", M{"context_id": absentID, "metadata": M{}, "metadata_patch": M{}}, "Cannot use both metadata and metadata_patch parameters together."},
				{"update_context", M{"context_id": absentID, "images": bad}, "Image 0 has invalid base64 encoding"},
				{"update_context", M{"context_id": absentID, "metadata": M{"status": repeat("s", 513)}}, "metadata field 'status' is indexed and its value is too long"},
				{"update_context", M{"context_id": absentID, "text": "fine"}, "Context entry with ID " + absentID + " not found"},
			} {
				wantPrefix(t, c.tool, env.call(t, "alice", c.tool, c.args).err(t), c.want)
			}
			wantEqual(t, "total", env.total(t, "alice"), before)
		})

		t.Run("T-011 length caps count code points", func(t *testing.T) {
			env.store(t, "alice", M{"thread_id": repeat("é", 256), "source": "user", "text": "256"})
			hundred := env.store(t, "alice", M{"thread_id": "t011", "source": "user", "text": "tags", "tags": tagsN(100)})
			wantEqual(t, "100 tags stored", len(strs(t, env.getOne(t, "alice", hundred), "tags")), 100)
			id := env.store(t, "alice", M{"thread_id": "t011", "source": "agent", "text": "long tag", "tags": []string{repeat("é", 128)}})
			wantSlice(t, "128-character tag", strs(t, env.getOne(t, "alice", id), "tags"), []string{repeat("é", 128)})
			before := env.total(t, "alice")
			for _, args := range []M{
				{"thread_id": repeat("é", 257), "source": "user", "text": "x"},
				{"thread_id": "t011", "source": "user", "text": "x", "tags": tagsN(101)},
				{"thread_id": "t011", "source": "user", "text": "x", "tags": []string{repeat("é", 129)}},
			} {
				env.call(t, "alice", "store_context", args).err(t)
			}
			env.call(t, "alice", "update_context", M{"context_id": id, "tags": []string{repeat("a", 129)}}).err(t)
			env.call(t, "alice", "update_context", M{"context_id": id, "tags": tagsN(101)}).err(t)
			wantEqual(t, "total after refusals", env.total(t, "alice"), before)
			wantSlice(t, "tags after refused update", strs(t, env.getOne(t, "alice", id), "tags"), []string{repeat("é", 128)})
		})

		t.Run("T-012 tags are normalized, deduplicated and sorted", func(t *testing.T) {
			id := env.store(t, "alice", M{"thread_id": "t012", "source": "user", "text": "tags",
				"tags": []string{"Zed", "Alpha", " alpha ", "alpha", "Beta", "  ", "a  b"}})
			wantSlice(t, "tags", strs(t, env.getOne(t, "alice", id), "tags"), []string{"a  b", "alpha", "beta", "zed"})
		})

		t.Run("T-013 identical store merges into the same entry", func(t *testing.T) {
			id1 := env.storeText(t, "alice", "t013", "user", "same text")
			created := wire(env.clock.Now())
			env.clock.advance(time.Minute)
			res := env.call(t, "alice", "store_context", M{"thread_id": "t013", "source": "user", "text": "same text"}).ok(t)
			wantEqual(t, "context_id", str(t, res, "context_id"), id1)
			wantPrefix(t, "message", str(t, res, "message"), "Context updated")
			wantEqual(t, "rows", len(env.threadIDs(t, "alice", "t013")), 1)
			e := env.getOne(t, "alice", id1)
			wantEqual(t, "created_at", str(t, e, "created_at"), created)
			wantEqual(t, "updated_at", str(t, e, "updated_at"), wire(env.clock.Now()))
		})

		t.Run("T-014 merge replaces metadata only when given", func(t *testing.T) {
			id := env.store(t, "alice", M{"thread_id": "t014", "source": "user", "text": "m", "metadata": M{"a": 1}})
			env.store(t, "alice", M{"thread_id": "t014", "source": "user", "text": "m", "metadata": M{"b": 2}})
			wantEqualJSON(t, "metadata after merge with metadata", field(t, env.getOne(t, "alice", id), "metadata"), `{"b":2}`)
			id2 := env.store(t, "alice", M{"thread_id": "t014b", "source": "user", "text": "m", "metadata": M{"a": 1}})
			if got := env.storeText(t, "alice", "t014b", "user", "m"); got != id2 {
				t.Fatalf("second store: got %s, want merge into %s", got, id2)
			}
			wantEqualJSON(t, "metadata after merge without metadata", field(t, env.getOne(t, "alice", id2), "metadata"), `{"a":1}`)
		})

		t.Run("T-015 merge keeps omitted tags and clears on []", func(t *testing.T) {
			id := env.store(t, "alice", M{"thread_id": "t015", "source": "user", "text": "t", "tags": []string{"keep"}})
			env.storeText(t, "alice", "t015", "user", "t")
			wantSlice(t, "tags kept", strs(t, env.getOne(t, "alice", id), "tags"), []string{"keep"})
			env.store(t, "alice", M{"thread_id": "t015", "source": "user", "text": "t", "tags": []string{}})
			wantEqualJSON(t, "tags cleared", field(t, env.getOne(t, "alice", id), "tags"), `[]`)
		})

		t.Run("T-016 an opposite-source turn prevents the merge", func(t *testing.T) {
			a := env.storeText(t, "alice", "t016", "user", "hi")
			b := env.storeText(t, "alice", "t016", "agent", "ok")
			c := env.storeText(t, "alice", "t016", "user", "hi")
			wantSet(t, "entries", env.threadIDs(t, "alice", "t016"), []string{a, b, c})
			if c == a {
				t.Fatalf("third store merged across an agent turn")
			}
		})

		t.Run("T-017 only the latest same-source entry is a candidate", func(t *testing.T) {
			a := env.storeText(t, "alice", "t017", "agent", "A")
			b := env.storeText(t, "alice", "t017", "agent", "B")
			c := env.storeText(t, "alice", "t017", "agent", "A")
			wantSet(t, "entries", env.threadIDs(t, "alice", "t017"), []string{a, b, c})
		})

		t.Run("T-018 deduplicate=false always inserts", func(t *testing.T) {
			args := M{"thread_id": "t018", "source": "user", "text": "dup", "deduplicate": false}
			a, b := env.store(t, "alice", args), env.store(t, "alice", args)
			if a == b {
				t.Fatalf("deduplicate=false merged: both stores returned %s", a)
			}
			wantEqual(t, "rows", len(env.threadIDs(t, "alice", "t018")), 2)
		})

		t.Run("T-019 never merge into another principal's entry", func(t *testing.T) {
			a := env.store(t, "alice", M{"thread_id": "t019", "source": "user", "text": "shared text", "visibility": "public"})
			before := env.getOne(t, "alice", a)
			env.clock.advance(time.Minute)
			b := env.storeText(t, "bob", "t019", "user", "shared text")
			if b == a {
				t.Fatalf("bob's store merged into alice's public entry")
			}
			wantEqual(t, "bob owns the new entry", boolean(t, env.getOne(t, "bob", b), "is_owner"), true)
			wantEqual(t, "alice's entry is not bob's", boolean(t, env.getOne(t, "bob", a), "is_owner"), false)
			wantEqualJSON(t, "alice's entry unchanged", env.getOne(t, "alice", a), mustJSON(before))
			if env.readable(t, "alice", b) {
				t.Fatalf("bob's new entry must be private to bob")
			}
		})

		t.Run("T-020 batch entry merges into one stored earlier in the batch", func(t *testing.T) {
			x := M{"thread_id": "t020", "source": "agent", "text": "X"}
			res := env.call(t, "alice", "store_context_batch", M{"entries": []M{
				{"thread_id": "t020", "source": "agent", "text": "X", "deduplicate": false}, x,
			}}).ok(t)
			items := objs(t, arr(t, res, "results"))
			if len(items) != 2 {
				t.Fatalf("results: got %d, want 2", len(items))
			}
			wantEqual(t, "same context_id", str(t, items[1], "context_id"), str(t, items[0], "context_id"))
			wantEqual(t, "rows", len(env.threadIDs(t, "alice", "t020")), 1)
		})

		t.Run("dedup never changes owner or visibility", func(t *testing.T) {
			id := env.storeText(t, "alice", "dedup-vis", "user", "v")
			got := env.store(t, "alice", M{"thread_id": "dedup-vis", "source": "user", "text": "v", "visibility": "public"})
			wantEqual(t, "merged", got, id)
			wantEqual(t, "visibility", str(t, env.getOne(t, "alice", id), "visibility"), "private")
			if env.readable(t, "bob", id) {
				t.Fatalf("a deduplicating store made the entry public")
			}
		})

		t.Run("hidden opposite-source entries do not mark a turn", func(t *testing.T) {
			a := env.storeText(t, "alice", "dedup-hidden", "user", "hi")
			env.storeText(t, "bob", "dedup-hidden", "agent", "bob private reply")
			wantEqual(t, "merged across a hidden turn", env.storeText(t, "alice", "dedup-hidden", "user", "hi"), a)
		})

		t.Run("the candidate is the latest readable entry", func(t *testing.T) {
			a := env.storeText(t, "alice", "dedup-cand", "user", "A")
			env.storeText(t, "bob", "dedup-cand", "user", "bob hidden")
			wantEqual(t, "hidden newer entry is no candidate", env.storeText(t, "alice", "dedup-cand", "user", "A"), a)
			env.store(t, "bob", M{"thread_id": "dedup-cand", "source": "user", "text": "bob public", "visibility": "public"})
			if got := env.storeText(t, "alice", "dedup-cand", "user", "A"); got == a {
				t.Fatalf("merged although the latest readable candidate is bob's public entry")
			}
		})

		t.Run("visibility public is readable by others", func(t *testing.T) {
			priv := env.storeText(t, "alice", "vis", "user", "private one")
			pub := env.store(t, "alice", M{"thread_id": "vis", "source": "agent", "text": "public one", "visibility": "public"})
			if env.readable(t, "bob", priv) {
				t.Fatalf("bob reads alice's private entry")
			}
			e := env.getOne(t, "bob", pub)
			wantEqual(t, "visibility", str(t, e, "visibility"), "public")
			wantEqual(t, "is_owner", boolean(t, e, "is_owner"), false)
		})
	})
}
