package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/persist"
)

// share_context, unshare_context, list_context_grants and the access
// configuration around them: T-105..T-114 (B.16-B.18, C.1, A.8).

// callAs invokes tool as the full principal p (groups and roles included),
// the way a verified JWT would reach the handler.
func (e *env) callAs(t *testing.T, p contextd.Principal, tool string, args M) result {
	t.Helper()
	c := e.as(t, p.ID)
	if args == nil {
		args = M{}
	}
	ctx, cancel := context.WithTimeout(contextd.WithPrincipal(context.Background(), p), 60*time.Second)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	return result{tool: tool, res: res, callErr: err}
}

// share calls share_context as principal and fails on an error.
func (e *env) share(t *testing.T, principal, id, ptype, pid, perm string) M {
	t.Helper()
	return e.call(t, principal, "share_context", M{"context_id": id, "principal_type": ptype, "principal_id": pid, "permission": perm}).ok(t)
}

func TestConformanceShare(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		t.Run("T-105 share read, idempotent", func(t *testing.T) {
			id := env.storeText(t, "alice", "t105", "user", "alice private")
			if env.readable(t, "bob", id) {
				t.Fatalf("bob reads alice's private entry before any grant")
			}
			res := env.share(t, "alice", id[:12], "user", "bob", "read")
			wantEqualJSON(t, "response", res, `{"success":true,"context_id":"`+id+`","principal_type":"user","principal_id":"bob","permission":"read","created":true,"message":"Granted read on context entry `+id+` to user bob"}`)
			res = env.share(t, "alice", id, "user", "bob", "read")
			wantEqual(t, "created again", boolean(t, res, "created"), false)
			wantEqual(t, "message again", str(t, res, "message"), "user bob already holds read on context entry "+id)
			e := env.getOne(t, "bob", id)
			wantEqual(t, "bob is_owner", boolean(t, e, "is_owner"), false)
			wantEqual(t, "bob visibility", str(t, e, "visibility"), "private")
			if env.readable(t, "carol", id) {
				t.Fatalf("carol reads an entry shared with bob only")
			}
			wantEqual(t, "bob prefix", len(env.get(t, "bob", id[:10])), 1)
		})

		t.Run("T-106 owner self-grant refused, owner's group allowed", func(t *testing.T) {
			id := env.storeText(t, "alice", "t106", "user", "x")
			wantEqual(t, "self", env.call(t, "alice", "share_context", M{"context_id": id, "principal_type": "user", "principal_id": "alice", "permission": "read"}).err(t),
				"Cannot share context entry with ID "+id+" with its owner")
			env.share(t, "alice", id, "group", "alice", "write")
		})

		t.Run("T-107 non-owners", func(t *testing.T) {
			id := env.storeText(t, "alice", "t107", "user", "x")
			env.share(t, "alice", id, "user", "bob", "read")
			env.share(t, "alice", id, "user", "bob", "write")
			for _, c := range []struct{ tool, verb string }{
				{"share_context", "Not authorized to share context entry with ID "},
				{"unshare_context", "Not authorized to unshare context entry with ID "},
			} {
				got := env.call(t, "bob", c.tool, M{"context_id": id, "principal_type": "user", "principal_id": "carol", "permission": "read"}).err(t)
				wantEqual(t, c.tool+" by write grantee", got, c.verb+id)
				got = env.call(t, "carol", c.tool, M{"context_id": id, "principal_type": "user", "principal_id": "dave", "permission": "read"}).err(t)
				wantEqual(t, c.tool+" on invisible entry", got, "Context entry with ID "+id+" not found")
			}
			wantEqual(t, "list by grantee", env.call(t, "bob", "list_context_grants", M{"context_id": id}).err(t),
				"Not authorized to list the grants of context entry with ID "+id)
			wantEqual(t, "list invisible", env.call(t, "carol", "list_context_grants", M{"context_id": id}).err(t),
				"Context entry with ID "+id+" not found")
			wantEqual(t, "absent", env.call(t, "alice", "list_context_grants", M{"context_id": absentID}).err(t),
				"Context entry with ID "+absentID+" not found")
			// A prefix resolves only over readable entries.
			wantPrefix(t, "carol prefix", env.call(t, "carol", "list_context_grants", M{"context_id": id[:9]}).err(t),
				"Invalid context ID: No context entry matches prefix")
			pub := env.store(t, "alice", M{"thread_id": "t107", "source": "agent", "text": "pub", "visibility": "public"})
			wantEqual(t, "public non-owner", env.call(t, "carol", "share_context", M{"context_id": pub, "principal_type": "user", "principal_id": "dave", "permission": "read"}).err(t),
				"Not authorized to share context entry with ID "+pub)
		})

		t.Run("T-108 principal_id validation", func(t *testing.T) {
			id := env.storeText(t, "alice", "t108", "user", "x")
			for _, c := range []struct{ pid, want string }{
				{" bob", "principal_id cannot have leading or trailing whitespace"},
				{"bob\n", "principal_id cannot have leading or trailing whitespace"},
				{"", "principal_id cannot be empty or whitespace"},
				{"   ", "principal_id cannot be empty or whitespace"},
				{repeat("b", 257), "principal_id exceeds 256 characters"},
			} {
				for _, tool := range []string{"share_context", "unshare_context"} {
					got := env.call(t, "alice", tool, M{"context_id": id, "principal_type": "user", "principal_id": c.pid, "permission": "read"}).err(t)
					wantEqual(t, tool+" "+mustJSON(c.pid), got, c.want)
				}
			}
			wantPrefix(t, "NUL", env.call(t, "alice", "share_context", M{"context_id": id, "principal_type": "user", "principal_id": "b\x00b", "permission": "read"}).err(t),
				"principal_id: ")
			env.share(t, "alice", id, "user", repeat("é", 256), "read")
			env.share(t, "alice", id, "group", "Team X", "read") // inner spaces and case are verbatim
			g := objs(t, arr(t, env.call(t, "alice", "list_context_grants", M{"context_id": id}).ok(t), "grants"))
			wantEqual(t, "grants", len(g), 2)
		})

		t.Run("T-110 unshare one grant", func(t *testing.T) {
			id := env.storeText(t, "alice", "t110", "user", "x")
			env.share(t, "alice", id, "user", "bob", "read")
			env.share(t, "alice", id, "user", "bob", "write")
			res := env.call(t, "alice", "unshare_context", M{"context_id": id, "principal_type": "user", "principal_id": "bob", "permission": "read"}).ok(t)
			wantEqualJSON(t, "response", res, `{"success":true,"context_id":"`+id+`","principal_type":"user","principal_id":"bob","permission":"read","removed":true,"remaining_permissions":["write"],"message":"Removed read on context entry `+id+` from user bob"}`)
			if !env.readable(t, "bob", id) {
				t.Fatalf("a write grant must still allow reading")
			}
			res = env.call(t, "alice", "unshare_context", M{"context_id": id, "principal_type": "user", "principal_id": "bob", "permission": "read"}).ok(t)
			wantEqual(t, "removed", boolean(t, res, "removed"), false)
			wantEqual(t, "message", str(t, res, "message"), "No read grant on context entry "+id+" for user bob")
			res = env.call(t, "alice", "unshare_context", M{"context_id": id, "principal_type": "user", "principal_id": "bob", "permission": "write"}).ok(t)
			wantEqualJSON(t, "remaining", res["remaining_permissions"], `[]`)
			if env.readable(t, "bob", id) {
				t.Fatalf("bob reads after every grant is gone")
			}
		})

		t.Run("T-111 list grants sorted", func(t *testing.T) {
			id := env.storeText(t, "alice", "t111", "user", "x")
			env.share(t, "alice", id, "user", "zed", "read")
			env.share(t, "alice", id, "group", "team", "write")
			env.share(t, "alice", id, "user", "bob", "write")
			env.share(t, "alice", id, "user", "bob", "read")
			res := env.call(t, "alice", "list_context_grants", M{"context_id": hyphenated(id)}).ok(t)
			wantEqual(t, "context_id", str(t, res, "context_id"), id)
			wantEqual(t, "count", num(t, res, "count"), 4)
			var got []string
			for _, g := range objs(t, arr(t, res, "grants")) {
				got = append(got, str(t, g, "principal_type")+"/"+str(t, g, "principal_id")+"/"+str(t, g, "permission"))
				wantEqual(t, "granted_by", str(t, g, "granted_by"), "alice")
				wantEqual(t, "created_at", str(t, g, "created_at"), wire(env.clock.Now()))
			}
			wantSlice(t, "order", got, []string{"group/team/write", "user/bob/read", "user/bob/write", "user/zed/read"})
			empty := env.storeText(t, "alice", "t111b", "user", "y")
			wantEqualJSON(t, "no grants", env.call(t, "alice", "list_context_grants", M{"context_id": empty}).ok(t),
				`{"context_id":"`+empty+`","grants":[],"count":0}`)
		})

		t.Run("T-112 grants leave updated_at and version alone; delete removes them", func(t *testing.T) {
			id := env.storeText(t, "alice", "t112", "user", "x")
			before := env.getOne(t, "alice", id)
			env.clock.advance(time.Hour)
			env.share(t, "alice", id, "user", "bob", "write")
			after := env.getOne(t, "alice", id)
			wantEqual(t, "updated_at", str(t, after, "updated_at"), str(t, before, "updated_at"))
			env.call(t, "bob", "update_context", M{"context_id": id, "text": "bob edits"}).ok(t)
			wantEqual(t, "text", str(t, env.getOne(t, "alice", id), "text_content"), "bob edits")
			grants, err := env.st.Grants(context.Background(), id)
			if err != nil || len(grants) != 1 {
				t.Fatalf("grants before delete: %v %v", grants, err)
			}
			env.call(t, "alice", "delete_context", M{"context_ids": []string{id}}).ok(t)
			grants, err = env.st.Grants(context.Background(), id)
			if err != nil || len(grants) != 0 {
				t.Fatalf("grants after delete: got %v (%v), want none", grants, err)
			}
		})

		t.Run("write grant edits but never publishes, deletes or shares", func(t *testing.T) {
			id := env.storeText(t, "alice", "wg", "user", "x")
			env.share(t, "alice", id, "user", "bob", "write")
			env.call(t, "bob", "update_context", M{"context_id": id, "metadata_patch": M{"k": 1}, "tags": []string{"b"}}).ok(t)
			wantEqual(t, "publish", env.call(t, "bob", "update_context", M{"context_id": id, "visibility": "public"}).err(t),
				"Only the owner may change the visibility of context "+id)
			wantEqual(t, "delete", env.call(t, "bob", "delete_context", M{"context_ids": []string{id}}).err(t),
				"Not authorized to delete context entries: "+id)
			wantEqual(t, "still there", env.readable(t, "alice", id), true)
		})
	})
}

func TestConformanceShareGroups(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		alice := contextd.Principal{ID: "alice", Groups: []string{"team-x", "team-x"}}
		bob := contextd.Principal{ID: "bob", Groups: []string{"team-x"}}
		carol := contextd.Principal{ID: "carol"}
		t.Run("T-113 author_groups", func(t *testing.T) {
			id := str(t, env.callAs(t, alice, "store_context", M{"thread_id": "t113", "source": "user", "text": "team note"}).ok(t), "context_id")
			if len(env.callAs(t, bob, "get_context_by_ids", M{"context_ids": []string{id}}).list(t)) != 1 {
				t.Fatalf("bob (team-x) cannot read alice's author-group entry")
			}
			if len(env.callAs(t, carol, "get_context_by_ids", M{"context_ids": []string{id}}).list(t)) != 0 {
				t.Fatalf("carol (no groups) reads alice's author-group entry")
			}
			g := objs(t, arr(t, env.callAs(t, alice, "list_context_grants", M{"context_id": id}).ok(t), "grants"))
			wantEqual(t, "grants", len(g), 1)
			wantEqual(t, "grant", str(t, g[0], "principal_type")+" "+str(t, g[0], "principal_id")+" "+str(t, g[0], "permission")+" "+str(t, g[0], "granted_by"),
				"group team-x read alice")
			res := env.callAs(t, alice, "share_context", M{"context_id": id, "principal_type": "group", "principal_id": "team-x", "permission": "read"}).ok(t)
			wantEqual(t, "author group grant already held", boolean(t, res, "created"), false)
			// A merge into the same entry writes no further grant.
			again := str(t, env.callAs(t, alice, "store_context", M{"thread_id": "t113", "source": "user", "text": "team note"}).ok(t), "context_id")
			wantEqual(t, "merged", again, id)
			wantEqual(t, "count", num(t, env.callAs(t, alice, "list_context_grants", M{"context_id": id}).ok(t), "count"), 1)
		})
		t.Run("group write grant", func(t *testing.T) {
			id := env.storeText(t, "carol", "grp", "user", "carol's")
			env.share(t, "carol", id, "group", "team-x", "write")
			env.callAs(t, bob, "update_context", M{"context_id": id, "text": "bob via group"}).ok(t)
			wantEqual(t, "bob without groups", env.call(t, "bob", "update_context", M{"context_id": id, "text": "no"}).err(t),
				"Context entry with ID "+id+" not found")
		})
	}, withConfig(func(c *contextd.Config) { c.DefaultGroupGrants = "author_groups" }))
}

func TestConformanceShareAnonymous(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		id := env.storeText(t, "alice", "anon", "user", "x")
		t.Run("T-109 user grant to the anonymous principal", func(t *testing.T) {
			got := env.call(t, "alice", "share_context", M{"context_id": "not-even-an-id", "principal_type": "user", "principal_id": "anon", "permission": "read"}).err(t)
			wantEqual(t, "message", got, "Cannot share context entry with ID not-even-an-id with the anonymous principal; set its visibility to 'public' to publish it")
			env.share(t, "alice", id, "group", "anon", "read") // a group of that name is not the principal
		})
		t.Run("T-114 anonymous principal is read-only before argument checks", func(t *testing.T) {
			for _, tool := range []string{"store_context", "store_context_batch", "update_context", "update_context_batch",
				"delete_context", "delete_context_batch", "share_context", "unshare_context"} {
				got := env.call(t, "anon", tool, M{"bogus": true}).err(t)
				wantEqual(t, tool, got, "The anonymous principal is read-only: "+tool+" is not permitted")
			}
			env.call(t, "anon", "list_context_grants", M{"context_id": id}).err(t) // a read tool: not found, not read-only
			wantEqual(t, "anon list", env.call(t, "anon", "list_context_grants", M{"context_id": id}).err(t), "Context entry with ID "+id+" not found")
		})
		t.Run("the owner can remove a grant naming the anonymous principal", func(t *testing.T) {
			err := env.st.Write(context.Background(), func(tx persist.Tx) error {
				_, err := tx.Grant(context.Background(), id, persist.Grant{PrincipalType: "user", PrincipalID: "anon", Permission: "read", GrantedBy: "import", CreatedAt: epoch})
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if !env.readable(t, "anon", id) {
				t.Fatalf("anon cannot read through its imported grant")
			}
			res := env.call(t, "alice", "unshare_context", M{"context_id": id, "principal_type": "user", "principal_id": "anon", "permission": "read"}).ok(t)
			wantEqual(t, "removed", boolean(t, res, "removed"), true)
		})
	}, withAnonymousPrincipal("anon"))
}

func TestConformanceDefaultVisibilityAndPublishRole(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		id := env.storeText(t, "alice", "dv", "user", "public by default")
		e := env.getOne(t, "bob", id)
		wantEqual(t, "visibility", str(t, e, "visibility"), "public")
		wantEqual(t, "is_owner", boolean(t, e, "is_owner"), false)
	}, withConfig(func(c *contextd.Config) { c.DefaultVisibility = "public" }))

	forEachStore(t, func(t *testing.T, env *env) {
		// The default visibility is public, so a caller without the role
		// cannot store without asking for private explicitly.
		msg := env.call(t, "alice", "store_context", M{"thread_id": "pr", "source": "user", "text": "x"}).err(t)
		wantEqual(t, "no role", msg, "Setting visibility 'public' requires the 'publisher' role (ACCESS_CONTROL_PUBLISH_ROLE), which the caller does not have")
		id := env.store(t, "alice", M{"thread_id": "pr", "source": "user", "text": "x", "visibility": "private"})
		wantEqual(t, "bob", env.readable(t, "bob", id), false)
		editor := contextd.Principal{ID: "alice", Roles: []string{"publisher"}}
		env.callAs(t, editor, "update_context", M{"context_id": id, "visibility": "public"}).ok(t)
		wantEqual(t, "bob after publish", env.readable(t, "bob", id), true)
		pub := str(t, env.callAs(t, editor, "store_context", M{"thread_id": "pr", "source": "agent", "text": "y"}).ok(t), "context_id")
		wantEqual(t, "default public with role", str(t, env.getOne(t, "bob", pub), "visibility"), "public")
	}, withConfig(func(c *contextd.Config) { c.DefaultVisibility = "public" }), withPublishRole("publisher"))
}

// TestConformanceDedupAccess: deduplication sees only readable entries, for
// the candidate and for the interleaving turn (R-303, C.6).
func TestConformanceDedupAccess(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		a := env.storeText(t, "alice", "dd", "user", "same text")
		b := env.storeText(t, "bob", "dd", "user", "same text")
		if a == b {
			t.Fatalf("bob merged into alice's hidden entry")
		}
		// A readable candidate owned by someone else is never merged into.
		env.share(t, "bob", b, "user", "alice", "write")
		env.clock.advance(time.Second)
		c := env.storeText(t, "alice", "dd", "user", "same text")
		if c == a || c == b {
			t.Fatalf("alice merged into bob's entry (%s): want a new entry", c)
		}
		// A hidden opposite-source turn does not break bob's merge...
		y := env.storeText(t, "bob", "dd2", "user", "y")
		env.clock.advance(time.Second)
		z := env.storeText(t, "alice", "dd2", "agent", "z")
		env.clock.advance(time.Second)
		wantEqual(t, "hidden turn", env.storeText(t, "bob", "dd2", "user", "y"), y)
		// ...a readable one does.
		env.share(t, "alice", z, "user", "bob", "read")
		env.clock.advance(time.Second)
		if again := env.storeText(t, "bob", "dd2", "user", "y"); again == y {
			t.Fatalf("a readable opposite-source turn did not prevent the merge")
		}
	})
}
