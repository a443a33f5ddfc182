package server_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"
)

// delete_context, delete_context_batch, update_context and the RFC 7396
// patch: T-047, T-063..T-077, T-114 (B.4, B.7, B.21, C.2.5).

const absentID = "0123456789abcdef0123456789abcdef"

func TestConformanceDelete(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		t.Run("T-063 exactly one of context_ids and thread_id", func(t *testing.T) {
			id := env.storeText(t, "alice", "t063", "user", "keep me")
			wantEqual(t, "both", env.call(t, "alice", "delete_context", M{"context_ids": []string{id}, "thread_id": "t063"}).err(t),
				"context_ids and thread_id are mutually exclusive: provide exactly one. To delete specific entries within a thread, "+
					"use delete_context_batch, which combines its criteria.")
			wantEqual(t, "neither", env.call(t, "alice", "delete_context", M{}).err(t), "Must provide either context_ids or thread_id")
			if !env.readable(t, "alice", id) {
				t.Fatalf("a refused delete removed the entry")
			}
		})

		t.Run("T-064 delete by ids and by thread", func(t *testing.T) {
			a := env.storeText(t, "alice", "t064a", "user", "a")
			res := env.call(t, "alice", "delete_context", M{"context_ids": []string{a, absentID}}).ok(t)
			wantEqualJSON(t, "response", res, `{"success":true,"deleted_count":1,"message":"Successfully deleted 1 context entries"}`)
			env.store(t, "alice", M{"thread_id": "t064", "source": "user", "text": "one", "tags": []string{"only-here", "common"}})
			env.store(t, "alice", M{"thread_id": "t064", "source": "agent", "text": "two", "images": []M{{"data": pngB64()}}})
			env.store(t, "alice", M{"thread_id": "t064-keep", "source": "user", "text": "three", "tags": []string{"common"}})
			before := env.stats(t, "alice")
			res = env.call(t, "alice", "delete_context", M{"thread_id": "t064"}).ok(t)
			wantEqual(t, "deleted_count", num(t, res, "deleted_count"), 2)
			after := env.stats(t, "alice")
			wantEqual(t, "unique_tags", num(t, after, "unique_tags"), num(t, before, "unique_tags")-1)
			wantEqual(t, "total_images", num(t, after, "total_images"), num(t, before, "total_images")-1)
			wantEqual(t, "total_entries", num(t, after, "total_entries"), num(t, before, "total_entries")-2)
			wantEqual(t, "thread emptied", len(env.threadIDs(t, "alice", "t064")), 0)
		})

		t.Run("T-065 delete_context_batch criteria that cannot stand alone", func(t *testing.T) {
			env.storeText(t, "alice", "t065", "user", "survivor")
			before := env.total(t, "alice")
			for _, c := range []struct {
				args M
				want string
			}{
				{M{}, "At least one deletion criterion must be provided: context_ids, thread_ids, source, or older_than_days"},
				{M{"source": "user"}, "source filter must be combined with another criterion (context_ids, thread_ids, or older_than_days)"},
				{M{"older_than_days": 5}, "older_than_days must be combined with another criterion (context_ids, thread_ids, or source)"},
			} {
				wantEqual(t, mustJSON(c.args), env.call(t, "alice", "delete_context_batch", c.args).err(t), c.want)
			}
			wantEqual(t, "total", env.total(t, "alice"), before)
		})

		t.Run("T-065 criteria combine with AND", func(t *testing.T) {
			u := env.storeText(t, "alice", "t065s", "user", "u")
			a := env.storeText(t, "alice", "t065s", "agent", "a")
			o := env.storeText(t, "alice", "t065s-other", "user", "o")
			res := env.call(t, "alice", "delete_context_batch", M{"thread_ids": []string{"t065s"}, "source": "user"}).ok(t)
			wantEqual(t, "deleted_count", num(t, res, "deleted_count"), 1)
			wantEqual(t, "user entry gone", env.readable(t, "alice", u), false)
			wantEqual(t, "agent entry kept", env.readable(t, "alice", a), true)
			wantEqual(t, "other thread kept", env.readable(t, "alice", o), true)

			x := env.storeText(t, "alice", "t065x", "user", "x")
			y := env.storeText(t, "alice", "t065y", "user", "y")
			res = env.call(t, "alice", "delete_context_batch", M{"context_ids": []string{x, y}, "thread_ids": []string{"t065x"}}).ok(t)
			wantEqual(t, "deleted_count", num(t, res, "deleted_count"), 1)
			wantEqual(t, "id outside the thread kept", env.readable(t, "alice", y), true)
		})

		t.Run("T-066 criteria_used and older_than_days", func(t *testing.T) {
			i1 := env.storeText(t, "alice", "t066", "agent", "old 1")
			i2 := env.storeText(t, "alice", "t066", "agent", "old 2")
			env.clock.advance(6 * 24 * time.Hour)
			res := env.call(t, "alice", "delete_context_batch", M{
				"context_ids": []string{i1, i2}, "thread_ids": []string{"t066"}, "source": "agent", "older_than_days": 5,
			}).ok(t)
			wantEqualJSON(t, "response", res, `{"success":true,"deleted_count":2,"message":"Successfully deleted 2 context entries",`+
				`"criteria_used":["context_ids: 2 IDs","thread_ids: 1 threads","source: agent","older_than_days: 5"]}`)
		})

		t.Run("older_than_days counts whole days strictly", func(t *testing.T) {
			old := env.storeText(t, "alice", "t066b", "user", "aging")
			env.clock.advance(5 * 24 * time.Hour)
			args := M{"thread_ids": []string{"t066b"}, "older_than_days": 5}
			wantEqual(t, "exactly 5 days old", num(t, env.call(t, "alice", "delete_context_batch", args).ok(t), "deleted_count"), 0)
			env.clock.advance(time.Second)
			wantEqual(t, "older than 5 days", num(t, env.call(t, "alice", "delete_context_batch", args).ok(t), "deleted_count"), 1)
			wantEqual(t, "gone", env.readable(t, "alice", old), false)
		})

		t.Run("T-067 only the owner deletes a public entry", func(t *testing.T) {
			pub := env.store(t, "alice", M{"thread_id": "t067", "source": "user", "text": "public", "visibility": "public"})
			for _, tool := range []string{"delete_context", "delete_context_batch"} {
				wantEqual(t, tool, env.call(t, "bob", tool, M{"context_ids": []string{pub}}).err(t),
					"Not authorized to delete context entries: "+pub)
			}
			wantEqual(t, "survives", env.readable(t, "alice", pub), true)
		})

		t.Run("T-068 a refused id deletes nothing", func(t *testing.T) {
			own := env.storeText(t, "bob", "t068", "user", "bob own")
			p1 := env.store(t, "alice", M{"thread_id": "t068", "source": "user", "text": "p1", "visibility": "public"})
			p2 := env.store(t, "alice", M{"thread_id": "t068", "source": "agent", "text": "p2", "visibility": "public"})
			for _, tool := range []string{"delete_context", "delete_context_batch"} {
				wantEqual(t, tool, env.call(t, "bob", tool, M{"context_ids": []string{own, p2, p1}}).err(t),
					"Not authorized to delete context entries: "+p2+", "+p1)
			}
			wantEqual(t, "bob's own entry survives", env.readable(t, "bob", own), true)
			res := env.call(t, "bob", "delete_context_batch", M{"context_ids": []string{p1}, "thread_ids": []string{"elsewhere"}}).ok(t)
			wantEqual(t, "named entry outside the other criteria is not matched", num(t, res, "deleted_count"), 0)
		})

		t.Run("T-069 hidden entries are skipped; thread deletes touch only own entries", func(t *testing.T) {
			priv := env.storeText(t, "alice", "t069", "user", "alice private")
			pub := env.store(t, "alice", M{"thread_id": "t069", "source": "agent", "text": "alice public", "visibility": "public"})
			own := env.storeText(t, "bob", "t069", "user", "bob own")
			res := env.call(t, "bob", "delete_context", M{"context_ids": []string{priv}}).ok(t)
			wantEqual(t, "hidden id", num(t, res, "deleted_count"), 0)
			mine := env.storeText(t, "bob", "t069-own", "user", "bob other")
			res = env.call(t, "bob", "delete_context", M{"context_ids": []string{priv, mine}}).ok(t)
			wantEqual(t, "own id beside a hidden one", num(t, res, "deleted_count"), 1)
			res = env.call(t, "bob", "delete_context_batch", M{"context_ids": []string{priv}}).ok(t)
			wantEqual(t, "hidden id (batch)", num(t, res, "deleted_count"), 0)
			res = env.call(t, "bob", "delete_context", M{"thread_id": "t069"}).ok(t)
			wantEqual(t, "thread delete", num(t, res, "deleted_count"), 1)
			res = env.call(t, "bob", "delete_context_batch", M{"thread_ids": []string{"t069"}}).ok(t)
			wantEqual(t, "thread delete (batch)", num(t, res, "deleted_count"), 0)
			wantEqual(t, "bob's entry gone", env.readable(t, "bob", own), false)
			wantEqual(t, "alice's entries survive", len(env.get(t, "alice", priv, pub)), 2)
		})
	})
}

func TestConformanceUpdate(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		t.Run("T-070 argument rules", func(t *testing.T) {
			id := env.store(t, "alice", M{"thread_id": "t070", "source": "user", "text": "orig", "metadata": M{"a": 1}})
			wantEqual(t, "no fields", env.call(t, "alice", "update_context", M{"context_id": id}).err(t),
				"At least one field must be provided for update")
			wantEqual(t, "both metadata forms", env.call(t, "alice", "update_context", M{"context_id": id, "metadata": M{"b": 1}, "metadata_patch": M{"c": 1}}).err(t),
				"Cannot use both metadata and metadata_patch parameters together. Use metadata for full replacement or metadata_patch for partial updates.")
			wantEqual(t, "blank text", env.call(t, "alice", "update_context", M{"context_id": id, "text": "   "}).err(t),
				"text cannot be empty or contain only whitespace")
			e := env.getOne(t, "alice", id)
			wantEqual(t, "text", str(t, e, "text_content"), "orig")
			wantEqualJSON(t, "metadata", e["metadata"], `{"a":1}`)
		})

		t.Run("T-071 tags-only update advances updated_at", func(t *testing.T) {
			id := env.storeText(t, "alice", "t071", "user", "tags only")
			created := wire(env.clock.Now())
			env.clock.advance(2 * time.Second)
			res := env.call(t, "alice", "update_context", M{"context_id": id, "tags": []string{"New", "x"}}).ok(t)
			fields := strs(t, res, "updated_fields")
			if !slices.Contains(fields, "tags") || slices.Contains(fields, "content_type") {
				t.Fatalf("updated_fields: got %q, want tags and no content_type", fields)
			}
			wantEqual(t, "success", boolean(t, res, "success"), true)
			wantEqual(t, "context_id", str(t, res, "context_id"), id)
			wantPrefix(t, "message", str(t, res, "message"), fmt.Sprintf("Successfully updated %d field(s)", len(fields)))
			e := env.getOne(t, "alice", id)
			wantSlice(t, "tags", strs(t, e, "tags"), []string{"new", "x"})
			wantEqual(t, "created_at", str(t, e, "created_at"), created)
			wantEqual(t, "updated_at", str(t, e, "updated_at"), wire(env.clock.Now()))
		})

		t.Run("T-072 images recompute content_type", func(t *testing.T) {
			id := env.store(t, "alice", M{"thread_id": "t072", "source": "user", "text": "pic", "images": []M{{"data": pngB64()}}})
			res := env.call(t, "alice", "update_context", M{"context_id": id, "images": []M{}}).ok(t)
			fields := strs(t, res, "updated_fields")
			if !slices.Contains(fields, "images") || !slices.Contains(fields, "content_type") {
				t.Fatalf("updated_fields: got %q, want images and content_type", fields)
			}
			e := env.getOne(t, "alice", id)
			wantEqual(t, "content_type", str(t, e, "content_type"), "text")
			if hasKey(e, "images") {
				t.Fatalf("images key after images=[]: %s", mustJSON(e))
			}
			env.call(t, "alice", "update_context", M{"context_id": id, "images": []M{{"data": pngB64()}, {"data": pngB64()}}}).ok(t)
			e = env.getOne(t, "alice", id)
			wantEqual(t, "content_type", str(t, e, "content_type"), "multimodal")
			wantEqual(t, "images", len(arr(t, e, "images")), 2)
		})

		t.Run("T-073 a text update changes what deduplication matches", func(t *testing.T) {
			for _, c := range []struct {
				thread, again string
				merges        bool
			}{{"t073-old", "old text", false}, {"t073-new", "new text", true}} {
				id := env.storeText(t, "alice", c.thread, "user", "old text")
				res := env.call(t, "alice", "update_context", M{"context_id": id, "text": "new text"}).ok(t)
				if !slices.Contains(strs(t, res, "updated_fields"), "text_content") {
					t.Fatalf("updated_fields: got %q, want text_content", strs(t, res, "updated_fields"))
				}
				wantEqual(t, c.thread+": merged", env.storeText(t, "alice", c.thread, "user", c.again) == id, c.merges)
			}
		})

		t.Run("T-074 absent id", func(t *testing.T) {
			wantEqual(t, "message", env.call(t, "alice", "update_context", M{"context_id": absentID, "text": "x"}).err(t),
				"Context entry with ID "+absentID+" not found")
		})

		t.Run("T-075 a readable entry the caller may not modify", func(t *testing.T) {
			pub := env.store(t, "alice", M{"thread_id": "t075", "source": "user", "text": "alice public", "visibility": "public"})
			want := "Not authorized to modify context entry with ID " + pub
			for _, args := range []M{
				{"metadata_patch": M{"x": 1}}, {"text": "bob was here"}, {"tags": []string{"b"}}, {"visibility": "private"},
			} {
				args["context_id"] = pub
				wantEqual(t, mustJSON(args), env.call(t, "bob", "update_context", args).err(t), want)
			}
			e := env.getOne(t, "alice", pub)
			wantEqual(t, "text", str(t, e, "text_content"), "alice public")
			wantEqual(t, "visibility", str(t, e, "visibility"), "public")
		})
		t.Run("T-075 read and write grants", func(t *testing.T) {
			id := env.storeText(t, "alice", "t075g", "user", "alice private")
			env.call(t, "alice", "share_context", M{"context_id": id, "principal_type": "user", "principal_id": "carol", "permission": "read"}).ok(t)
			for _, args := range []M{{"text": "carol was here"}, {"visibility": "public"}} {
				args["context_id"] = id
				wantEqual(t, "read grantee "+mustJSON(args), env.call(t, "carol", "update_context", args).err(t),
					"Not authorized to modify context entry with ID "+id)
			}
			env.call(t, "alice", "share_context", M{"context_id": id, "principal_type": "user", "principal_id": "carol", "permission": "write"}).ok(t)
			env.call(t, "carol", "update_context", M{"context_id": id, "text": "carol edits"}).ok(t)
			wantEqual(t, "text", str(t, env.getOne(t, "alice", id), "text_content"), "carol edits")
			wantEqual(t, "visibility", env.call(t, "carol", "update_context", M{"context_id": id, "visibility": "public"}).err(t),
				"Only the owner may change the visibility of context "+id)
			wantEqual(t, "still private", str(t, env.getOne(t, "alice", id), "visibility"), "private")
		})

		t.Run("T-076 the owner publishes and unpublishes", func(t *testing.T) {
			id := env.storeText(t, "alice", "t076", "user", "soon public")
			res := env.call(t, "alice", "update_context", M{"context_id": id, "visibility": "public"}).ok(t)
			if !slices.Contains(strs(t, res, "updated_fields"), "visibility") {
				t.Fatalf("updated_fields: got %q, want visibility", strs(t, res, "updated_fields"))
			}
			e := env.getOne(t, "bob", id)
			wantEqual(t, "visibility", str(t, e, "visibility"), "public")
			wantEqual(t, "is_owner", boolean(t, e, "is_owner"), false)
			env.call(t, "alice", "update_context", M{"context_id": id, "visibility": "private"}).ok(t)
			wantEqual(t, "bob after unpublish", env.readable(t, "bob", id), false)
		})

		t.Run("metadata full replacement", func(t *testing.T) {
			id := env.store(t, "alice", M{"thread_id": "meta", "source": "user", "text": "m", "metadata": M{"a": 1, "b": 2}})
			res := env.call(t, "alice", "update_context", M{"context_id": id, "metadata": M{"c": 3}}).ok(t)
			if !slices.Contains(strs(t, res, "updated_fields"), "metadata") {
				t.Fatalf("updated_fields: got %q, want metadata", strs(t, res, "updated_fields"))
			}
			wantEqualJSON(t, "replaced", env.getOne(t, "alice", id)["metadata"], `{"c":3}`)
			env.call(t, "alice", "update_context", M{"context_id": id, "metadata": M{}}).ok(t)
			if m := env.getOne(t, "alice", id)["metadata"]; m != nil && len(m.(M)) != 0 {
				t.Fatalf("metadata {} must clear: got %s", mustJSON(m))
			}
		})
	})
}

func TestConformanceMetadataPatch(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		for _, c := range []struct {
			name        string
			start       any // nil: stored without metadata
			patch, want string
		}{
			{"T-047 null deletes", M{"status": "x", "draft": true, "p": 1}, `{"status":"done","draft":null}`, `{"status":"done","p":1}`},
			{"T-047 nested null deletes", M{"a": M{"b": 1, "c": 2}}, `{"a":{"b":null}}`, `{"a":{"c":2}}`},
			{"T-047 arrays are replaced", M{"list": []int{1, 2}}, `{"list":[3]}`, `{"list":[3]}`},
			{"T-047 patch on null metadata", nil, `{"n":1}`, `{"n":1}`},
			{"nested null in a new object is dropped", M{}, `{"a":{"b":null}}`, `{"a":{}}`},
			{"an object replaces a scalar", M{"s": "str"}, `{"s":{"x":1}}`, `{"s":{"x":1}}`},
			{"unrelated nulls stay", M{"z": nil}, `{"k":1}`, `{"z":null,"k":1}`},
		} {
			t.Run(c.name, func(t *testing.T) {
				args := M{"thread_id": "patch", "source": "user", "text": c.name}
				if c.start != nil {
					args["metadata"] = c.start
				}
				id := env.store(t, "alice", args)
				var patch M
				if err := json.Unmarshal([]byte(c.patch), &patch); err != nil {
					t.Fatal(err)
				}
				env.call(t, "alice", "update_context", M{"context_id": id, "metadata_patch": patch}).ok(t)
				wantEqualJSON(t, "metadata", env.getOne(t, "alice", id)["metadata"], c.want)
			})
		}
		t.Run("an empty patch counts as an update", func(t *testing.T) {
			id := env.store(t, "alice", M{"thread_id": "patch", "source": "agent", "text": "empty patch", "metadata": M{"a": 1}})
			env.clock.advance(3 * time.Second)
			res := env.call(t, "alice", "update_context", M{"context_id": id, "metadata_patch": M{}}).ok(t)
			if !slices.Contains(strs(t, res, "updated_fields"), "metadata") {
				t.Fatalf("updated_fields: got %q, want metadata", strs(t, res, "updated_fields"))
			}
			e := env.getOne(t, "alice", id)
			wantEqualJSON(t, "metadata", e["metadata"], `{"a":1}`)
			wantEqual(t, "updated_at", str(t, e, "updated_at"), wire(env.clock.Now()))
		})
	})
}

func TestConformancePublishRole(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		before := env.total(t, "alice")
		wantEqual(t, "store_context", env.call(t, "alice", "store_context", M{"thread_id": "t077", "source": "user", "text": "pub", "visibility": "public"}).err(t),
			"Setting visibility 'public' requires the 'publisher' role (ACCESS_CONTROL_PUBLISH_ROLE), which the caller does not have")
		res := env.call(t, "alice", "store_context_batch", M{"atomic": false, "entries": []M{
			{"thread_id": "t077", "source": "user", "text": "pub", "visibility": "public"},
		}}).ok(t)
		wantErrContains(t, str(t, objs(t, arr(t, res, "results"))[0], "error"), "publisher")
		wantEqual(t, "nothing stored", env.total(t, "alice"), before)
		id := env.storeText(t, "alice", "t077", "user", "private is fine")
		wantErrContains(t, env.call(t, "alice", "update_context", M{"context_id": id, "visibility": "public"}).err(t), "publisher")
		res = env.call(t, "alice", "update_context_batch", M{"atomic": false, "updates": []M{{"context_id": id, "visibility": "public"}}}).ok(t)
		wantErrContains(t, str(t, objs(t, arr(t, res, "results"))[0], "error"), "publisher")
		wantEqual(t, "still private", str(t, env.getOne(t, "alice", id), "visibility"), "private")
		env.call(t, "alice", "update_context", M{"context_id": id, "visibility": "private", "text": "private update"}).ok(t)
	}, withPublishRole("publisher"))
}

func TestConformanceAnonymousReadOnly(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		pub := env.store(t, "alice", M{"thread_id": "t114", "source": "user", "text": "public", "visibility": "public"})
		priv := env.storeText(t, "alice", "t114", "agent", "private")
		before := env.total(t, "alice")
		for _, c := range []struct {
			tool string
			args M
		}{
			{"store_context", M{}},
			{"store_context", M{"thread_id": "t114", "source": "user", "text": "anon"}},
			{"store_context_batch", M{"entries": "not a list"}},
			{"update_context", M{"context_id": "x"}},
			{"update_context", M{"context_id": pub, "text": "anon"}},
			{"update_context_batch", M{}},
			{"delete_context", M{"context_ids": []string{pub}, "thread_id": "t114"}},
			{"delete_context_batch", M{}},
			{"delete_context_batch", M{"context_ids": []string{pub}}},
		} {
			wantEqual(t, c.tool+" "+mustJSON(c.args), env.call(t, "anon", c.tool, c.args).err(t),
				"The anonymous principal is read-only: "+c.tool+" is not permitted")
		}
		wantEqual(t, "nothing changed", env.total(t, "alice"), before)
		wantEqual(t, "anon reads public entries", len(env.get(t, "anon", pub, priv)), 1)
		wantSlice(t, "anon searches public entries", env.searchIDs(t, "anon", M{"thread_id": "t114"}), []string{pub})
	}, withAnonymousPrincipal("anon"))
}
