package server_test

// With PostgreSQL down, tool calls say the database is
// unavailable (in fixed words) instead of "an unexpected error".

import (
	"strings"
	"testing"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/model/hashembed"
	"github.com/contextd/contextd/persist/postgres/pgtest"
)

func TestPostgreSQLDownSaysUnavailable(t *testing.T) {
	raw, schema := pgtest.Schema(t)
	proxy, url := pgtest.NewProxy(t, raw)
	// The knowledge harness's engine, on PostgreSQL through the proxy.
	e := &kEnv{t: t, emb: hashembed.New(64), pgURL: url, pgSchema: schema}
	e.open()
	call := func(tool string, args map[string]any) (string, bool) {
		t.Helper()
		got := e.call("alice", tool, args)
		return strings.TrimPrefix(got, "error: "), strings.HasPrefix(got, "error: ")
	}
	if got, isErr := call("store_context", map[string]any{"thread_id": "t", "source": "user", "text": "before the outage"}); isErr {
		t.Fatalf("store_context while up: %s", got)
	}
	if got, isErr := call("container_create", map[string]any{"name": "docs"}); isErr || !strings.HasPrefix(got, "Container 'docs' created.") {
		t.Fatalf("container_create while up: %s", got)
	}

	proxy.Down()
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"store_context", map[string]any{"thread_id": "t", "source": "user", "text": "during the outage"}},
		{"update_context", map[string]any{"context_id": "00000000000000000000000000000001", "text": "x"}},
		{"search_context", map[string]any{"thread_id": "t"}},
		{"container_create", map[string]any{"name": "more"}},
		{"upload_file", map[string]any{"containerId": "docs", "fileName": "a.txt", "textContent": "hello"}},
		{"list_files", map[string]any{"containerId": "docs"}},
	} {
		got, isErr := call(tc.tool, tc.args)
		if !isErr || !strings.HasSuffix(got, ": "+cerrors.UnavailableText) {
			t.Errorf("%s with the database down: isError %v, %q; want the unavailable text", tc.tool, isErr, got)
		}
		for _, leak := range []string{proxy.Addr(), "dial", "EOF", "pgconn", "unexpected error"} {
			if strings.Contains(got, leak) {
				t.Errorf("%s: %q carries %q", tc.tool, got, leak)
			}
		}
	}
	got, _ := call("store_context_batch", map[string]any{"entries": []any{map[string]any{"thread_id": "t", "source": "user", "text": "batched"}}})
	if !strings.Contains(got, cerrors.UnavailableText) {
		t.Errorf("store_context_batch with the database down: %q", got)
	}
}
