package contextd

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextd/contextd/model/builtin"
	"github.com/contextd/contextd/quant"
)

// TestStatisticsDeploymentFiguresNeedOperatorRole: with
// an operator role configured (the default on HTTP with JWT), a caller
// without it gets the same get_statistics, bit for bit, before and after
// another principal stores, updates and deletes private entries: no
// database or embeddings size, and connection_metrics with its keys but
// zero activity. A caller with the role sees the deployment-wide figures
// move; without a role configured every caller sees them.
func TestStatisticsDeploymentFiguresNeedOperatorRole(t *testing.T) {
	eng, err := Open(context.Background(), Config{
		DBPath: filepath.Join(t.TempDir(), "ctx.db"),
		// float32 vectors: 40 entries move embeddings_size_mb at two
		// decimals, their 78-byte codes would not.
		Embedding:    EmbeddingConfig{Embedder: &builtin.Embedder{}, Provider: "builtin", Compression: quant.Settings{Disabled: true}},
		OperatorRole: "operator",
	})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	operator := WithPrincipal(context.Background(), Principal{ID: "root", Roles: []string{"operator"}})
	stats := func(ctx context.Context) (string, *Statistics) {
		t.Helper()
		s, err := eng.Statistics(ctx)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		return string(b), s
	}
	if _, err := eng.Store(as("bob"), StoreRequest{ThreadID: "b", Source: "user", Text: "bob's own note"}); err != nil {
		t.Fatal(err)
	}
	bobBefore, bs := stats(as("bob"))
	_, opBefore := stats(operator)
	if bs.DatabaseSizeMB != nil || bs.EmbeddingsSizeMB != nil || bs.ConnectionMetrics.TotalQueries != 0 || bs.ConnectionMetrics.BackendType != "sqlite" || bs.ConnectionMetrics.PoolSize == 0 {
		t.Fatalf("bob sees deployment-wide figures: %s", bobBefore)
	}
	for _, key := range []string{`"connection_metrics":{"backend_type":"sqlite","pool_size":`, `"total_queries":0`, `"last_error":null`, `"write_queue_size":0`} {
		if !strings.Contains(bobBefore, key) {
			t.Fatalf("bob's statistics lack %s: %s", key, bobBefore)
		}
	}
	var ids []string
	for i := range 40 {
		res, err := eng.Store(as("alice"), StoreRequest{ThreadID: "a", Source: "agent", Text: strings.Repeat("alice's private words ", 50+i)})
		if err != nil || !res.Success {
			t.Fatalf("store: %v %+v", err, res)
		}
		ids = append(ids, res.ContextID)
	}
	text := "rewritten"
	if _, err := eng.Update(as("alice"), UpdateRequest{ContextID: ids[0], Text: &text}); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Delete(as("alice"), DeleteRequest{ContextIDs: ids[1:5]}); err != nil {
		t.Fatal(err)
	}
	if bobAfter, _ := stats(as("bob")); bobAfter != bobBefore {
		t.Fatalf("alice's private writes moved bob's statistics:\nbefore %s\nafter  %s", bobBefore, bobAfter)
	}
	_, opAfter := stats(operator)
	if opAfter.ConnectionMetrics.TotalQueries <= opBefore.ConnectionMetrics.TotalQueries || opAfter.EmbeddingsSizeMB == nil || *opAfter.EmbeddingsSizeMB <= *opBefore.EmbeddingsSizeMB || opAfter.DatabaseSizeMB == nil {
		t.Fatalf("the operator's deployment-wide figures did not move: before %+v after %+v", opBefore.ConnectionMetrics, opAfter.ConnectionMetrics)
	}
	// No role configured: every caller sees the deployment.
	eng.cfg.OperatorRole = ""
	if _, s := stats(as("bob")); s.DatabaseSizeMB == nil || s.ConnectionMetrics.TotalQueries == 0 {
		t.Fatalf("without an operator role bob sees %+v", s.ConnectionMetrics)
	}
}
