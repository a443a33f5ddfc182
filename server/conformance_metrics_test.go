package server_test

import (
	"testing"
)

// TestConformanceConnectionMetrics_C15: get_statistics.connection_metrics
// carries every field of C.15 with the store's live figures: the pool of
// one writer and POOL_MAX_READERS (default 8) readers, connections opened,
// and operations counted as they run. No failure has happened, so the
// error fields are null and this build's absent breaker reads "none".
// On PostgreSQL the pool is the pgxpool of POSTGRESQL_POOL_MAX connections
// (8 in this suite), at least one of them open.
func TestConformanceConnectionMetrics_C15(t *testing.T) {
	forEachStore(t, func(t *testing.T, env *env) {
		backend, poolSize, minOpen := "sqlite", 9.0, 2.0
		if env.st.Backend() == "postgresql" {
			backend, poolSize, minOpen = "postgresql", 8, 1
		}
		before := env.stats(t, "alice")["connection_metrics"].(M)
		for _, key := range []string{"backend_type", "pool_size", "total_queries", "failed_queries", "circuit_state",
			"consecutive_failures", "last_error", "last_error_time", "total_connections", "active_connections",
			"failed_connections", "write_queue_size", "open_connections", "idle_connections", "wait_count", "wait_duration_ms"} {
			if !hasKey(before, key) {
				t.Fatalf("connection_metrics lacks %s: %v", key, before)
			}
		}
		wantEqual(t, "backend_type", before["backend_type"], any(backend))
		wantEqual(t, "pool_size", num(t, before, "pool_size"), poolSize)
		wantEqual(t, "circuit_state", before["circuit_state"], "none")
		wantEqual(t, "last_error", before["last_error"], nil)
		wantEqual(t, "last_error_time", before["last_error_time"], nil)
		for _, key := range []string{"failed_queries", "consecutive_failures", "failed_connections", "write_queue_size"} {
			wantEqual(t, key, num(t, before, key), 0)
		}
		if n := num(t, before, "total_connections"); n < minOpen {
			t.Fatalf("total_connections %v: the writer and at least one reader are open", n)
		}
		if n := num(t, before, "open_connections"); n < minOpen || n > poolSize {
			t.Fatalf("open_connections %v, want %v to %v", n, minOpen, poolSize)
		}
		if num(t, before, "total_queries") < 1 {
			t.Fatalf("total_queries %v after a statistics call", before["total_queries"])
		}
		env.storeText(t, "alice", "metrics", "user", "one more entry")
		after := env.stats(t, "alice")["connection_metrics"].(M)
		if num(t, after, "total_queries") <= num(t, before, "total_queries") {
			t.Fatalf("total_queries did not grow with a store: %v then %v", before["total_queries"], after["total_queries"])
		}
		// The figures describe the deployment: every caller sees the same pool.
		wantEqual(t, "pool_size for bob", num(t, env.stats(t, "bob")["connection_metrics"].(M), "pool_size"), poolSize)
	})
}
