package server_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/server"
)

// Knowledge in the context tools. Containers and documents are
// entries of thread "knowledge" and "knowledge/<container id>":
//   - the aggregate views (list_threads, get_statistics with its coverage
//     figures, the search tools without thread_id) leave them out, and a
//     search naming a knowledge thread finds them like any entry;
//   - a pending upload's base64 (the record's "blob") is never part of an
//     entry as a tool returns it.

// blobMarker is the base64 of a pending upload: no tool output may hold it.
var blobMarker = base64.StdEncoding.EncodeToString([]byte("%PDF-1.4 pending upload bytes that only the knowledge service reads"))

// storeKnowledgeDoc writes a document entry of thread as the knowledge
// service writes a binary upload before its ingestion: its text the file
// name, its record with the blob. It goes to the store directly, as the
// knowledge service's writes do: no vectors, no context tool.
func (e *env) storeKnowledgeDoc(t *testing.T, owner, thread, id string) {
	t.Helper()
	meta, err := json.Marshal(M{"knowledge": M{"kind": "document", "name": "scan.pdf", "container": "x",
		"path": "/scan.pdf", "status": "Failed", "blob": blobMarker}})
	if err != nil {
		t.Fatal(err)
	}
	now := e.clock.Now()
	ent := &persist.Entry{ID: id, ThreadID: thread, Source: "agent", ContentType: "text", Text: "scan.pdf",
		Metadata: meta, Version: 1, Owner: owner, Visibility: "private", CreatedAt: now, UpdatedAt: now, Tags: []string{}}
	if err := e.st.Write(context.Background(), func(tx persist.Tx) error { return tx.Insert(context.Background(), ent, nil) }); err != nil {
		t.Fatalf("insert knowledge document: %v", err)
	}
}

// noBlob fails when a tool's output holds the pending upload's base64.
func noBlob(t *testing.T, r result) result {
	t.Helper()
	if r.failed() {
		t.Fatalf("%s: %s", r.tool, r.describe())
	}
	raw, _ := json.Marshal(r.res)
	if strings.Contains(string(raw), blobMarker) {
		t.Fatalf("%s returns the pending upload's base64: %s", r.tool, raw)
	}
	return r
}

// withKnowledgeTools serves the knowledge tools beside the context tools.
func withKnowledgeTools() envOption {
	return func(s *envSettings) { s.opts.Tools = append(server.ContextTools(), server.KnowledgeTools()...) }
}

// TestKnowledgeOutOfAggregateViews runs on every store kind with an
// embedder (semantic and hybrid search, semantic coverage) and on every
// store kind without one (PostgreSQL's native full text has no pgvector
// on the test script's server).
func TestKnowledgeOutOfAggregateViews(t *testing.T) {
	t.Run("embedder", func(t *testing.T) {
		forEachStoreEmbed(t, func(t *testing.T, env *env, _ *switchEmbedder) { knowledgeViews(t, env, true) }, withKnowledgeTools())
	})
	t.Run("full text", func(t *testing.T) {
		forEachStore(t, func(t *testing.T, env *env) { knowledgeViews(t, env, false) }, withKnowledgeTools())
	})
}

func knowledgeViews(t *testing.T, env *env, vectors bool) {
	{
		var notes []string
		for _, text := range []string{"zebra crossing survey", "zebra stripes in the quarterly report"} {
			notes = append(notes, env.storeText(t, "alice", "notes", "user", text))
			env.clock.advance(1e9)
		}
		// A memory entry's own "knowledge.blob" is its metadata like any.
		own := env.store(t, "alice", M{"thread_id": "notes", "source": "user", "text": "the zebra herd moved north",
			"metadata": M{"knowledge": M{"blob": "own"}}})
		notes = append(notes, own)
		// Two knowledge entries through the knowledge tools, one pending
		// binary upload as the knowledge service stores it.
		created := env.call(t, "alice", "container_create", M{"name": "docs"})
		if created.failed() {
			t.Fatalf("container_create: %s", created.describe())
		}
		m := regexp.MustCompile(`ID: ([0-9a-f-]{36})`).FindStringSubmatch(created.text())
		if m == nil {
			t.Fatalf("container_create: no ID in %q", created.text())
		}
		docThread := persist.KnowledgeThreadPrefix + strings.ReplaceAll(m[1], "-", "")
		if up := env.call(t, "alice", "upload_file", M{"containerId": "docs", "fileName": "guide.md",
			"textContent": "# Guide\n\nThe zebra guide of the knowledge container."}); up.failed() {
			t.Fatalf("upload_file: %s", up.describe())
		}
		const pendingID = "0190aaaabbbbccccddddeeeeffff0001"
		pendingThread := persist.KnowledgeThreadPrefix + "x"
		env.storeKnowledgeDoc(t, "alice", pendingThread, pendingID)

		// list_threads: the memory thread only.
		threads := noBlob(t, env.call(t, "alice", "list_threads", nil)).ok(t)
		var names []string
		for _, th := range objs(t, arr(t, threads, "threads")) {
			names = append(names, str(t, th, "thread_id"))
		}
		if !slices.Equal(names, []string{"notes"}) {
			t.Errorf("list_threads: %v, want [notes]", names)
		}

		// get_statistics: every count and coverage over the three notes.
		st := noBlob(t, env.call(t, "alice", "get_statistics", nil)).ok(t)
		if n := num(t, st, "total_entries"); n != 3 {
			t.Errorf("total_entries %v, want 3", n)
		}
		if n := num(t, st, "total_threads"); n != 1 {
			t.Errorf("total_threads %v, want 1", n)
		}
		for _, th := range objs(t, arr(t, st, "most_active_threads")) {
			if persist.IsKnowledgeThread(str(t, th, "thread_id")) {
				t.Errorf("most_active_threads holds %v", th)
			}
		}
		if n := num(t, obj(t, st, "by_source"), "user"); n != 3 || len(obj(t, st, "by_source")) != 1 {
			t.Errorf("by_source %v, want {user: 3}", obj(t, st, "by_source"))
		}
		if sem := obj(t, st, "semantic_search"); vectors {
			if c := num(t, sem, "coverage_percentage"); c != 100 {
				t.Errorf("semantic_search.coverage_percentage %v, want 100 (%v)", c, sem)
			}
		}
		fts := obj(t, st, "fts")
		if c := num(t, fts, "coverage_percentage"); c != 100 {
			t.Errorf("fts.coverage_percentage %v, want 100 (%v)", c, fts)
		}
		if n := num(t, fts, "indexed_entries"); n != 3 {
			t.Errorf("fts.indexed_entries %v, want 3", n)
		}

		// The search tools without thread_id: the notes only.
		ids := func(r result) []string {
			var out []string
			for _, it := range objs(t, arr(t, noBlob(t, r).ok(t), "results")) {
				if _, ok := it["context_id"]; ok { // grep_context
					out = append(out, str(t, it, "context_id"))
					continue
				}
				out = append(out, str(t, it, "id"))
			}
			slices.Sort(out)
			return out
		}
		want := slices.Sorted(slices.Values(notes))
		tools := []struct {
			tool string
			args M
		}{
			{"search_context", M{}},
			{"fts_search_context", M{"query": "zebra"}},
			{"grep_context", M{"pattern": "zebra"}},
		}
		if vectors {
			tools = append(tools, []struct {
				tool string
				args M
			}{{"semantic_search_context", M{"query": "zebra"}}, {"hybrid_search_context", M{"query": "zebra"}}}...)
		}
		for _, tc := range tools {
			if got := ids(env.call(t, "alice", tc.tool, tc.args)); !slices.Equal(got, want) {
				t.Errorf("%s %v without thread_id: %v, want the notes %v", tc.tool, tc.args, got, want)
			}
		}

		// Naming a knowledge thread finds its entries like any thread's.
		for thread, n := range map[string]int{persist.KnowledgeThread: 1, docThread: 1, pendingThread: 1} {
			if got := ids(env.call(t, "alice", "search_context", M{"thread_id": thread})); len(got) != n {
				t.Errorf("search_context thread %s: %d results, want %d", thread, len(got), n)
			}
		}
		if got := ids(env.call(t, "alice", "fts_search_context", M{"query": "zebra", "thread_id": docThread})); len(got) != 1 {
			t.Errorf("fts_search_context in %s: %v, want the document", docThread, got)
		}

		// The pending upload's entry by id and by search: its record
		// without the blob.
		got := noBlob(t, env.call(t, "alice", "get_context_by_ids", M{"context_ids": []string{pendingID}})).list(t)
		if len(got) != 1 {
			t.Fatalf("get_context_by_ids: %d entries", len(got))
		}
		rec := obj(t, obj(t, got[0], "metadata"), "knowledge")
		if _, ok := rec["blob"]; ok || rec["kind"] != "document" || rec["name"] != "scan.pdf" {
			t.Errorf("metadata.knowledge %v: want the record without blob", rec)
		}
		noBlob(t, env.call(t, "alice", "search_context", M{"thread_id": pendingThread,
			"metadata_filters": []any{M{"key": "knowledge.kind", "operator": "eq", "value": "document"}}}))
		// A metadata filter sees no blob in a knowledge thread, on every
		// path (catalog or SQL), so it cannot probe the bytes; elsewhere
		// knowledge.blob is ordinary metadata.
		for _, tc := range []struct {
			thread string
			cond   M
			want   int
		}{
			{pendingThread, M{"key": "knowledge.blob", "operator": "exists"}, 0},
			{pendingThread, M{"key": "knowledge.blob", "operator": "starts_with", "value": blobMarker[:6]}, 0},
			{pendingThread, M{"key": "knowledge.blob", "operator": "not_exists"}, 1},
			{pendingThread, M{"key": "knowledge.status", "operator": "eq", "value": "Failed"}, 1},
			{"notes", M{"key": "knowledge.blob", "operator": "eq", "value": "own"}, 1},
		} {
			r := env.call(t, "alice", "search_context", M{"thread_id": tc.thread, "metadata_filters": []any{tc.cond}})
			if got := ids(r); len(got) != tc.want {
				t.Errorf("search_context %s %v: %v, want %d", tc.thread, tc.cond, got, tc.want)
			}
			r = env.call(t, "alice", "fts_search_context", M{"query": "scan zebra", "thread_id": tc.thread, "metadata_filters": []any{tc.cond}})
			if r.failed() {
				t.Errorf("fts_search_context %v: %s", tc.cond, r.describe())
			}
		}
		if m := obj(t, env.getOne(t, "alice", own), "metadata"); obj(t, m, "knowledge")["blob"] != "own" {
			t.Errorf("a memory entry's metadata lost knowledge.blob: %v", m)
		}
		if vectors {
			noBlob(t, env.call(t, "alice", "hybrid_search_context", M{"query": "scan", "thread_id": pendingThread}))
		}
		noBlob(t, env.call(t, "alice", "grep_context", M{"pattern": "scan", "thread_id": pendingThread}))
	}
}
