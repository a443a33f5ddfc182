package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/internal/fakeapi"
	"github.com/contextd/contextd/internal/testtier"
	"github.com/contextd/contextd/model/builtin"
)

// TestFaultKillDuringMigration injects SIGKILL into `contextd migrate
// reembed` half-way (a slow embedding provider, 5 ms a text, and the kill
// once half the texts were sent). Checked afterwards: the interrupted
// migration left the old model recorded (the server still refuses the new
// one rather than serving mixed vectors), a second run completes, and
// then every entry is present once with exactly one set of chunks (no
// duplicate chunk rows) and the server answers semantic search with the
// new model.
func TestFaultKillDuringMigration(t *testing.T) {
	t.Parallel()
	const n = 300
	dir := t.TempDir()
	db := filepath.Join(dir, "ctx.db")
	ctx := contextd.WithPrincipal(context.Background(), contextd.Principal{ID: "local"})
	eng, err := contextd.Open(ctx, contextd.Config{DBPath: db, Embedding: contextd.EmbeddingConfig{Embedder: &builtin.Embedder{}}})
	if err != nil {
		t.Fatal(err)
	}
	no := false
	for i := 0; i < n; i += 100 {
		req := contextd.StoreBatchRequest{}
		for j := i; j < i+100; j++ {
			req.Entries = append(req.Entries, contextd.StoreBatchItem{StoreRequest: contextd.StoreRequest{
				ThreadID: "mig", Source: "agent", Text: fmt.Sprintf("entry %d about migrations and vectors", j), Deduplicate: &no}})
		}
		if _, err := eng.StoreBatch(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	eng.Close()

	fast := fakeOllama(t, 8)
	slowSrv := fakeapi.New(t, fakeapi.Config{Path: "/api/embed", Delay: 5 * time.Millisecond, Handler: ollamaHandler(8)})
	env := func(url string) []string {
		return []string{"HOME=" + dir, "DB_PATH=" + db, "EMBEDDING_PROVIDER=ollama", "EMBEDDING_MODEL=fake-embed",
			"EMBEDDING_DIM=8", "OLLAMA_HOST=" + url, "ENABLE_SUMMARY_GENERATION=false"}
	}
	cmd := exec.Command(binary, "migrate", "reembed")
	cmd.Env = env(slowSrv.URL)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill once the provider has been sent half the texts (it was a fixed
	// 0.8 s, which a loaded machine can stretch past the whole migration
	// or cut before its first batch).
	testtier.WaitFor(t, time.Minute, "half the texts sent to the provider", func() bool {
		sent := 0
		for _, r := range slowSrv.Requests() {
			var body struct {
				Input []string `json:"input"`
			}
			if r.JSON(&body) == nil {
				sent += len(body.Input)
			}
		}
		return sent >= n/2
	})
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if strings.Contains(stderr.String(), "entries embedded with") {
		t.Fatalf("the migration finished before the kill (stderr %q); the test needs a slower provider", stderr.String())
	}
	// The new model is not recorded: the server refuses it (exit 78).
	serve := exec.Command(binary)
	serve.Env = env(fast.URL)
	serve.Stdin = strings.NewReader("")
	if err := serve.Run(); err == nil {
		t.Fatal("the server started with the new model after an interrupted migration")
	} else if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitConfig {
		t.Fatalf("serve after the interrupted migration: %v, want exit %d", err, exitConfig)
	}
	again := exec.Command(binary, "migrate", "reembed")
	again.Env = env(fast.URL)
	if out, err := again.CombinedOutput(); err != nil || !strings.Contains(string(out), fmt.Sprintf("%d entries embedded with fake-embed", n)) {
		t.Fatalf("second migration: %v: %s", err, out)
	}
	sq, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer sq.Close()
	for _, c := range []struct {
		q    string
		want int
	}{
		{"SELECT count(*) FROM context_entries", n},
		{"SELECT count(DISTINCT context_id) FROM embedding_chunks", n},
		{"SELECT count(*) FROM (SELECT context_id, chunk_index FROM embedding_chunks GROUP BY 1, 2 HAVING count(*) > 1)", 0},
	} {
		var got int
		if err := sq.QueryRow(c.q).Scan(&got); err != nil || got != c.want {
			t.Fatalf("%s = %d (%v), want %d", c.q, got, err, c.want)
		}
	}
	sq.Close()
	p := start(t, env(fast.URL)...)
	res, err := p.call(context.Background(), "semantic_search_context", map[string]any{"query": "migrations and vectors", "limit": 5})
	if err != nil || res.IsError || strings.Count(resultText(res), `"id":`) != 5 {
		t.Fatalf("semantic search after the migration: %v %.300s", err, resultText(res))
	}
}
