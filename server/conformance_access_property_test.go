package server_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/internal/lab/loadtest"
	"github.com/contextd/contextd/internal/testtier"
	"github.com/contextd/contextd/model/builtin"
)

// TestAccessProperty generates principals with groups, a few hundred
// entries with random owners, visibilities and read/write grants, and then
// checks through the MCP tools that every read tool shows each principal
// exactly what the C.1 predicates allow: hidden == absent in every result,
// count, page, prefix and statistic. Every registered read tool must have a
// probe here, so a new tool cannot join the catalog unchecked.

const (
	propSeed       = 20261202
	propEntries    = 300
	propThreads    = 10
	propPrincipals = 7
	propGroups     = 4
)

type propEntry struct {
	id, owner, thread, vis string
	userGrants             map[string]string // user -> "read" | "write"
	groupGrants            map[string]string
	rows                   map[string]bool // "type/id/permission" as stored
}

// oracle is the C.1 model the tools are checked against.
type oracle struct {
	entries []*propEntry
	byID    map[string]*propEntry
}

func (o *oracle) readable(p contextd.Principal, e *propEntry) bool {
	if e.owner == p.ID || e.vis == "public" || e.userGrants[p.ID] != "" {
		return true
	}
	for _, g := range p.Groups {
		if e.groupGrants[g] != "" {
			return true
		}
	}
	return false
}

func (o *oracle) writable(p contextd.Principal, e *propEntry) bool {
	if e.owner == p.ID || e.userGrants[p.ID] == "write" {
		return true
	}
	for _, g := range p.Groups {
		if e.groupGrants[g] == "write" {
			return true
		}
	}
	return false
}

func (o *oracle) visible(p contextd.Principal, thread string) []string {
	var out []string
	for _, e := range o.entries {
		if (thread == "" || e.thread == thread) && o.readable(p, e) {
			out = append(out, e.id)
		}
	}
	sort.Strings(out)
	return out
}

// collectIDs gathers every entry id a response mentions under "id" or
// "context_id", at any depth.
func collectIDs(v any, into map[string]bool) { loadtest.CollectIDs(v, into) }

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestAccessProperty(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		rng := rand.New(rand.NewPCG(propSeed, 1))
		groups := make([]string, propGroups)
		for i := range groups {
			groups[i] = fmt.Sprintf("g%d", i)
		}
		principals := make([]contextd.Principal, propPrincipals)
		for i := range principals {
			p := contextd.Principal{ID: fmt.Sprintf("p%d", i)}
			for _, g := range groups {
				if rng.IntN(3) == 0 {
					p.Groups = append(p.Groups, g)
				}
			}
			principals[i] = p
		}
		// Ids come in pairs sharing their first 10 hex characters, so a
		// 10-character prefix is ambiguous, unique or unmatched depending
		// on what the caller may read.
		for k := 0; k < propEntries/2; k++ {
			pre := fmt.Sprintf("%010x", 0x1000000000+k*7919)
			env.ids.push(pre+fmt.Sprintf("%022x", 2*k), pre+fmt.Sprintf("%022x", 2*k+1))
		}
		o := &oracle{byID: map[string]*propEntry{}}
		ctx := context.Background()
		for i := 0; i < propEntries; i++ {
			owner := principals[rng.IntN(len(principals))]
			e := &propEntry{owner: owner.ID, thread: fmt.Sprintf("th%d", rng.IntN(propThreads)), vis: "private",
				userGrants: map[string]string{}, groupGrants: map[string]string{}, rows: map[string]bool{}}
			if rng.IntN(5) == 0 {
				e.vis = "public"
			}
			env.clock.advance(time.Second)
			res, err := env.eng.Store(contextd.WithPrincipal(ctx, owner), contextd.StoreRequest{
				ThreadID: e.thread, Source: []string{"user", "agent"}[rng.IntN(2)], Visibility: e.vis,
				Text: fmt.Sprintf("alpha entry %d of %s\n## Section\nbody line %d", i, e.thread, i), Tags: []string{fmt.Sprintf("tag%d", rng.IntN(5))},
				Deduplicate: new(bool),
			})
			if err != nil {
				t.Fatalf("store %d: %v", i, err)
			}
			e.id = res.ContextID
			for n := rng.IntN(4); n > 0; n-- {
				perm := []string{"read", "write"}[rng.IntN(2)]
				req := contextd.ShareRequest{ContextID: e.id, Permission: perm}
				if rng.IntN(2) == 0 {
					req.PrincipalType, req.PrincipalID = "group", groups[rng.IntN(len(groups))]
				} else {
					req.PrincipalType, req.PrincipalID = "user", principals[rng.IntN(len(principals))].ID
					if req.PrincipalID == owner.ID {
						continue
					}
				}
				if _, err := env.eng.Share(contextd.WithPrincipal(ctx, owner), req); err != nil {
					t.Fatalf("share: %v", err)
				}
				e.rows[req.PrincipalType+"/"+req.PrincipalID+"/"+perm] = true
				m := e.userGrants
				if req.PrincipalType == "group" {
					m = e.groupGrants
				}
				if m[req.PrincipalID] != "write" { // write implies read
					m[req.PrincipalID] = perm
				}
			}
			o.entries = append(o.entries, e)
			o.byID[e.id] = e
		}

		listed, err := env.as(t, principals[0].ID).ListTools(ctx, mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		checks := 0
		entryStride := propEntries / testtier.Share(t, propEntries)
		probed := map[string]bool{}
		check := func(tool string, ok bool, format string, args ...any) {
			t.Helper()
			checks++
			probed[tool] = true
			if !ok {
				t.Fatalf("%s: "+format, append([]any{tool}, args...)...)
			}
		}
		has := func(tool string) bool {
			for _, tl := range listed.Tools {
				if tl.Name == tool {
					return true
				}
			}
			return false
		}

		for pi, p := range principals {
			visible := o.visible(p, "")
			// get_context_by_ids in batches of 100.
			for start := 0; start < len(o.entries); start += 100 {
				var ids []string
				for _, e := range o.entries[start:min(start+100, len(o.entries))] {
					ids = append(ids, e.id)
				}
				got := map[string]bool{}
				for _, m := range env.callAs(t, p, "get_context_by_ids", M{"context_ids": ids}).list(t) {
					got[str(t, m, "id")] = true
					e := o.byID[str(t, m, "id")]
					check("get_context_by_ids", e != nil && boolean(t, m, "is_owner") == (e.owner == p.ID) && str(t, m, "visibility") == e.vis,
						"%s: is_owner/visibility of %s", p.ID, str(t, m, "id"))
				}
				for _, id := range ids {
					check("get_context_by_ids", got[id] == o.readable(p, o.byID[id]), "%s: entry %s returned=%v", p.ID, id, got[id])
				}
			}
			// search_context: per thread, and one paged walk over all.
			for th := 0; th < propThreads; th++ {
				thread := fmt.Sprintf("th%d", th)
				resp := env.callAs(t, p, "search_context", M{"thread_id": thread, "limit": 100}).ok(t)
				got := resultIDs(t, resp)
				sort.Strings(got)
				want := o.visible(p, thread)
				check("search_context", slices.Equal(got, want) && int(num(t, resp, "count")) == len(want),
					"%s thread %s: got %d ids, want %d", p.ID, thread, len(got), len(want))
				checks += len(want)
			}
			var paged []string
			for off := 0; ; off += 37 {
				ids := resultIDs(t, env.callAs(t, p, "search_context", M{"limit": 37, "offset": off}).ok(t))
				paged = append(paged, ids...)
				if len(ids) < 37 {
					break
				}
			}
			sort.Strings(paged)
			check("search_context", slices.Equal(paged, visible), "%s: paged walk found %d entries, want %d", p.ID, len(paged), len(visible))
			// list_threads and get_statistics count only readable entries.
			lt := env.callAs(t, p, "list_threads", nil).ok(t)
			threads := map[string]int{}
			for _, th := range objs(t, arr(t, lt, "threads")) {
				threads[str(t, th, "thread_id")] = int(num(t, th, "entry_count"))
			}
			for th := 0; th < propThreads; th++ {
				thread := fmt.Sprintf("th%d", th)
				check("list_threads", threads[thread] == len(o.visible(p, thread)), "%s thread %s: entry_count %d, want %d",
					p.ID, thread, threads[thread], len(o.visible(p, thread)))
			}
			nonEmpty := 0
			for th := 0; th < propThreads; th++ {
				if len(o.visible(p, fmt.Sprintf("th%d", th))) > 0 {
					nonEmpty++
				}
			}
			stats := env.callAs(t, p, "get_statistics", nil).ok(t)
			check("get_statistics", int(num(t, stats, "total_entries")) == len(visible) && int(num(t, stats, "total_threads")) == nonEmpty,
				"%s: total_entries %v total_threads %v, want %d and %d", p.ID, stats["total_entries"], stats["total_threads"], len(visible), nonEmpty)

			// Every entry for every principal in the long tier; in the
			// quick tier and under -race every 4th, starting at the
			// principal's own offset, so that each entry is still probed
			// by one or two principals (testtier.Share). These ~10,000
			// sequential calls per kind took 75 s under -race and 8 s of
			// CPU per kind in the quick tier; all 300 entries are still
			// probed for every principal by the list, search and count
			// checks.
			for i := pi % entryStride; i < len(o.entries); i += entryStride {
				e := o.entries[i]
				read, write, own := o.readable(p, e), o.writable(p, e), e.owner == p.ID
				// Prefix resolution: the pair shares 10 characters.
				pair := o.entries[i^1]
				pre := e.id[:10]
				nRead := 0
				for _, x := range []*propEntry{e, pair} {
					if o.readable(p, x) {
						nRead++
					}
				}
				r := env.callAs(t, p, "get_context_by_ids", M{"context_ids": []string{pre}})
				switch nRead {
				case 0:
					check("prefix", r.failed() && strings.Contains(r.text(), "No context entry matches prefix"), "%s %s: %s", p.ID, pre, r.describe())
				case 1:
					check("prefix", !r.failed() && len(r.list(t)) == 1, "%s %s: %s", p.ID, pre, r.describe())
				default:
					check("prefix", r.failed() && strings.Contains(r.text(), "Ambiguous prefix"), "%s %s: %s", p.ID, pre, r.describe())
				}
				// update_context by full id: WRITE predicate and hidden == absent.
				r = env.callAs(t, p, "update_context", M{"context_id": e.id, "metadata_patch": M{"touched_by": p.ID}})
				switch {
				case !read:
					check("update_context", r.failed() && r.text() == "Context entry with ID "+e.id+" not found", "%s %s: %s", p.ID, e.id, r.describe())
				case !write:
					check("update_context", r.failed() && r.text() == "Not authorized to modify context entry with ID "+e.id, "%s %s: %s", p.ID, e.id, r.describe())
				default:
					check("update_context", !r.failed(), "%s %s: %s", p.ID, e.id, r.describe())
				}
				// list_context_grants: OWNER predicate.
				r = env.callAs(t, p, "list_context_grants", M{"context_id": e.id})
				switch {
				case !read:
					check("list_context_grants", r.failed() && r.text() == "Context entry with ID "+e.id+" not found", "%s %s: %s", p.ID, e.id, r.describe())
				case !own:
					check("list_context_grants", r.failed() && strings.HasPrefix(r.text(), "Not authorized to list"), "%s %s: %s", p.ID, e.id, r.describe())
				default:
					check("list_context_grants", !r.failed() && int(num(t, r.ok(t), "count")) == len(e.rows),
						"%s %s: %s", p.ID, e.id, r.describe())
				}
				// delete_context by a non-owner: refused when readable, skipped when hidden.
				if !own {
					r = env.callAs(t, p, "delete_context", M{"context_ids": []string{e.id}})
					if read {
						check("delete_context", r.failed() && r.text() == "Not authorized to delete context entries: "+e.id, "%s %s: %s", p.ID, e.id, r.describe())
					} else {
						check("delete_context", !r.failed() && num(t, r.ok(t), "deleted_count") == 0, "%s %s: %s", p.ID, e.id, r.describe())
					}
				}
				// Navigation tools, when registered.
				for _, nav := range []struct {
					tool string
					args M
				}{{"navigate_context", M{}}, {"read_context_range", M{"start_char": 0, "end_char": 5}}} {
					if !has(nav.tool) {
						continue
					}
					nav.args["context_id"] = e.id
					r = env.callAs(t, p, nav.tool, nav.args)
					if read {
						m := r.ok(t)
						check(nav.tool, boolean(t, m, "is_owner") == own && str(t, m, "visibility") == e.vis, "%s %s: %s", p.ID, e.id, r.describe())
					} else {
						check(nav.tool, r.failed() && r.text() == "Context entry not found: "+e.id, "%s %s: %s", p.ID, e.id, r.describe())
					}
				}
			}
			// Query tools, when registered: per thread, exactly the readable entries.
			for th := 0; th < propThreads; th++ {
				thread := fmt.Sprintf("th%d", th)
				want := o.visible(p, thread)
				for _, q := range []struct {
					tool  string
					args  M
					exact bool
				}{
					{"grep_context", M{"pattern": "alpha", "thread_id": thread, "max_matches": 10000}, true},
					// Hidden entries never consume the scan budget: a budget of
					// exactly the readable count still finds every one.
					{"grep_context", M{"pattern": "alpha", "thread_id": thread, "max_matches": 10000, "max_entries_scanned": max(1, len(want))}, true},
					{"fts_search_context", M{"query": "alpha", "thread_id": thread, "limit": 100}, true},
					// A thread holds fewer than 100 entries, so the ranked
					// searches return every readable one of it.
					{"semantic_search_context", M{"query": "alpha", "thread_id": thread, "limit": 100}, true},
					{"hybrid_search_context", M{"query": "alpha", "thread_id": thread, "limit": 100}, true},
				} {
					if !has(q.tool) {
						continue
					}
					r := env.callAs(t, p, q.tool, q.args)
					if r.failed() && strings.Contains(strings.ToLower(r.text()), "not available") {
						probed[q.tool] = true
						continue
					}
					ids := map[string]bool{}
					collectIDs(r.structured(t), ids)
					got := sortedKeys(ids)
					for _, id := range got {
						check(q.tool, o.byID[id] != nil && o.readable(p, o.byID[id]) && o.byID[id].thread == thread, "%s: leaked %s", p.ID, id)
					}
					if q.exact {
						check(q.tool, slices.Equal(got, want), "%s thread %s: got %d ids, want %d", p.ID, thread, len(got), len(want))
					}
				}
			}
		}
		for _, tl := range listed.Tools {
			if tl.Annotations.ReadOnlyHint != nil && *tl.Annotations.ReadOnlyHint && !probed[tl.Name] && !unprobedReadTools[tl.Name] {
				t.Errorf("read tool %s has no access probe in TestAccessProperty", tl.Name)
			}
		}
		if want := testtier.Share(t, 10000); checks < want {
			t.Fatalf("only %d checks ran, want at least %d", checks, want)
		}
		t.Logf("%d access checks over %d entries and %d principals; tools probed: %s", checks, len(o.entries), len(principals),
			strings.Join(sortedKeys(probed), ", "))
	}, withCraftedIDs(), withEmbedder(&builtin.Embedder{}), withParallelKinds())
}

// unprobedReadTools are read tools whose results carry no other
// principal's entries by construction (they list only the caller's own).
var unprobedReadTools = map[string]bool{"plan_context_sync": true, "list_ingest_state": true}
