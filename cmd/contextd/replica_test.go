package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/contextd/contextd/persist/postgres/pgtest"
)

// replicaEnv is the environment of a contextd process on the test
// server's database, in schema.
func replicaEnv(t *testing.T, url, schema string) []string {
	return []string{"HOME=" + t.TempDir(), "STORAGE_BACKEND=postgresql",
		"POSTGRESQL_CONNECTION_STRING=" + url, "POSTGRESQL_SCHEMA=" + schema, "POSTGRESQL_POOL_MAX=6"}
}

// storeOn stores text through p and returns the acknowledged id.
func storeOn(ctx context.Context, p *proc, thread, text string) (string, error) {
	res, err := p.call(ctx, "store_context", map[string]any{"thread_id": thread, "source": "agent", "text": text, "deduplicate": false})
	if err != nil {
		return "", err
	}
	if res.IsError {
		return "", fmt.Errorf("store_context: %s", resultText(res))
	}
	sc, _ := res.StructuredContent.(map[string]any)
	id, _ := sc["context_id"].(string)
	if id == "" {
		return "", fmt.Errorf("store_context returned no id: %s", resultText(res))
	}
	return id, nil
}

// seesAll reports the ids p cannot read (get_context_by_ids) and, through
// full-text search of the in-process index that follows the change log,
// the words it cannot find.
func seesAll(t *testing.T, ctx context.Context, p *proc, ids []string, word string, hits int) {
	t.Helper()
	for i := 0; i < len(ids); i += 50 {
		batch := ids[i:min(i+50, len(ids))]
		list := make([]any, len(batch))
		for j, id := range batch {
			list[j] = id
		}
		res, err := p.call(ctx, "get_context_by_ids", map[string]any{"context_ids": list})
		if err != nil || res.IsError {
			t.Fatalf("get_context_by_ids: %v %s", err, resultText(res))
		}
		if n := strings.Count(resultText(res), `"id"`); n != len(batch) {
			t.Fatalf("replica reads %d of %d acknowledged entries (batch %d)", n, len(batch), i/50)
		}
	}
	if word == "" {
		return
	}
	res, err := p.call(ctx, "fts_search_context", map[string]any{"query": word, "limit": 100})
	if err != nil || res.IsError {
		t.Fatalf("fts_search_context: %v %s", err, resultText(res))
	}
	sc, _ := res.StructuredContent.(map[string]any)
	if n, _ := sc["count"].(float64); int(n) != hits {
		t.Fatalf("full-text search for %q through a replica: %v hits, want %d (%s)", word, sc["count"], hits, resultText(res))
	}
}

// TestTwoReplicas: two contextd processes on one PostgreSQL database.
// Writes alternate between them and every read through either sees every
// acknowledged write (by id, and in the in-process full-text index each
// builds from the change log). Then one is killed while it writes: every
// write it acknowledged is readable through the other, and the other
// keeps serving.
func TestTwoReplicas(t *testing.T) {
	t.Parallel()
	url, schema := pgtest.Schema(t)
	ctx := context.Background()
	a := start(t, replicaEnv(t, url, schema)...)
	b := start(t, replicaEnv(t, url, schema)...)
	procs := []*proc{a, b}
	// The start-up line names the PostgreSQL database, not the SQLite
	// file DB_PATH would name.
	if line := a.stderr.String(); !strings.Contains(line, "serving MCP on stdio; database postgresql://") ||
		!strings.Contains(line, "(schema "+schema+")") || strings.Contains(line, ".db") {
		t.Errorf("start-up line: %q", line)
	}
	var ids []string
	for i := 0; i < 20; i++ {
		id, err := storeOn(ctx, procs[i%2], "replicas", fmt.Sprintf("alternating write %d of zanzibar", i))
		if err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		ids = append(ids, id)
		other := procs[(i+1)%2]
		seesAll(t, ctx, other, ids, "zanzibar", len(ids))
		seesAll(t, ctx, procs[i%2], ids[len(ids)-1:], "", 0)
	}

	// Kill a while it writes from three goroutines.
	got := killWhileWriting(t, a, 3, 150, func(ctx context.Context, w, i int) (string, error) {
		return storeOn(ctx, a, fmt.Sprintf("crash-%d", w), fmt.Sprintf("write %d of writer %d about quokkas", i, w))
	})
	// Every acknowledged write is there (a write in flight at the kill
	// may also have committed without its answer arriving).
	seesAll(t, ctx, b, got, "", 0)
	res, err := b.call(ctx, "search_context", map[string]any{"thread_id": "crash-0", "limit": 1})
	if err != nil || res.IsError {
		t.Fatalf("search after the kill: %v %s", err, resultText(res))
	}
	if _, err := storeOn(ctx, b, "replicas", "the survivor still writes"); err != nil {
		t.Fatalf("surviving replica: %v", err)
	}
}
