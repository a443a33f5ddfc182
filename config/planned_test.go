package config

import (
	"errors"
	"github.com/contextd/contextd/quant"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestConfigPlannedDefaults: the variables of features not built yet keep
// the reference defaults in Config.Planned.
func TestConfigPlannedDefaults(t *testing.T) {
	c, err := FromEnv(lookupMap(map[string]string{"DB_PATH": "/tmp/x.db"}))
	if err != nil {
		t.Fatal(err)
	}
	p := c.Planned
	checks := []struct {
		name      string
		got, want any
	}{
		{"ContextSync", c.ContextSync, true},
		{"Compression.Enabled", p.Compression.Enabled, true},
		{"Compression.Explicit", p.Compression.Explicit, false},
		{"Compression.Provider", p.Compression.Provider, "turboquant"},
		{"Compression.Bits", p.Compression.Bits, 4},
		{"Compression.Variant", p.Compression.Variant, "mse"},
		{"Compression.KeepFloat", p.Compression.KeepFloat, true},
		{"Engine.Embedding.Compression", c.Engine.Embedding.Compression, quant.Settings{Bits: 4, MaxConcurrent: min(runtime.NumCPU(), 4), GraphInt8MiB: quant.DefaultGraphInt8MiB}},
		{"Compression.Seed", p.Compression.Seed, uint32(0)},
		{"Compression.MaxConcurrent", p.Compression.MaxConcurrent, min(runtime.NumCPU(), 4)},
		{"Compression.Dim", p.Compression.Dim, 100},
		{"OllamaAutoPull", p.OllamaAutoPull, true},
		{"OllamaPullTimeout", p.OllamaPullTimeout, 900 * time.Second},
		{"MetadataIndexSyncMode", p.MetadataIndexSyncMode, "additive"},
		{"Pool.QueueTimeout", p.Pool.QueueTimeout, time.Second},
		{"Pool.QueueTimeoutTest", p.Pool.QueueTimeoutTest, 100 * time.Millisecond},
		{"Pool.ShutdownTimeoutTest", p.Pool.ShutdownTimeoutTest, 5 * time.Second},
		{"Retry", p.Retry, Retry{MaxRetries: 5, BaseDelay: 500 * time.Millisecond, MaxDelay: 10 * time.Second, Jitter: true, BackoffFactor: 2}},
		{"Breaker", p.Breaker, Breaker{FailureThreshold: 10, RecoveryTimeout: 30 * time.Second, HalfOpenMaxCalls: 5}},
		{"Reranking", p.Reranking, RerankingRuntime{}},
		{"Azure version", p.Providers.AzureAPIVersion, "2024-02-01"},
		{"Voyage batch", p.Providers.VoyageBatchSize, 7},
		{"LangSmith", p.LangSmith, LangSmith{Endpoint: "https://api.smith.langchain.com", Project: "mcp-context-server"}},
		{"PostgreSQL host", p.PostgreSQL.Host, "localhost"},
		{"PostgreSQL port", p.PostgreSQL.Port, 5432},
		{"PostgreSQL ssl", p.PostgreSQL.SSLMode, "prefer"},
		{"PostgreSQL schema", p.PostgreSQL.Schema, "public"},
		{"PostgreSQL pool", [2]int{p.PostgreSQL.PoolMin, p.PostgreSQL.PoolMax}, [2]int{2, 20}},
		{"PostgreSQL timeouts", [2]time.Duration{p.PostgreSQL.ConnectTimeout, p.PostgreSQL.PoolTimeout}, [2]time.Duration{60 * time.Second, 120 * time.Second}},
		{"PostgreSQL keepalives", p.PostgreSQL.KeepalivesCount, 3},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s: got %v, want %v", ch.name, ch.got, ch.want)
		}
	}
}

// TestConfigPlannedValues: valid values land in Config.Planned, and
// ENABLE_CONTEXT_SYNC=false leaves the sync tools out.
func TestConfigPlannedValues(t *testing.T) {
	c, err := FromEnv(lookupMap(map[string]string{
		"DB_PATH": "/tmp/x.db", "ENABLE_CONTEXT_SYNC": "off", "ENABLE_EMBEDDING_COMPRESSION": "true",
		"COMPRESSION_BITS": "2", "COMPRESSION_VARIANT": "MSE", "COMPRESSION_SEED": "4294967295",
		"OLLAMA_AUTO_PULL": "no", "OLLAMA_PULL_TIMEOUT_S": "30", "METADATA_INDEX_SYNC_MODE": "Strict",
		"RETRY_MAX_RETRIES": "0", "POSTGRESQL_CONNECTION_STRING": "postgresql://u:p@db/ctx",
		"POSTGRESQL_POOL_MIN": "5", "POSTGRESQL_POOL_MAX": "5", "ENABLE_POSTGRESQL_RLS": "yes",
		"OLLAMA_HOST": "gpu-box:11434",
	}))
	if err != nil {
		t.Fatal(err)
	}
	p := c.Planned
	if c.ContextSync || !slices.Contains(c.Server.DisabledTools, "plan_context_sync") || !slices.Contains(c.Server.DisabledTools, "list_ingest_state") {
		t.Fatalf("ENABLE_CONTEXT_SYNC=off: sync %v, disabled %v", c.ContextSync, c.Server.DisabledTools)
	}
	k := p.Compression
	if !k.Enabled || !k.Explicit || k.Bits != 2 || k.Variant != "mse" || k.Seed != 4294967295 {
		t.Fatalf("compression: %+v", k)
	}
	if s := c.Engine.Embedding.Compression; s != (quant.Settings{Bits: 2, Variant: quant.MSE, Seed: 4294967295, MaxConcurrent: k.MaxConcurrent, GraphInt8MiB: 128}) {
		t.Fatalf("engine compression: %+v", s)
	}
	// COMPRESSION_GRAPH_INT8_MB: a budget, or 0 for never (a negative
	// GraphInt8MiB: the settings' zero value is the default).
	for v, want := range map[string]int{"0": -1, "64": 64} {
		c, err := FromEnv(lookupMap(map[string]string{"DB_PATH": "/tmp/x.db", "COMPRESSION_GRAPH_INT8_MB": v}))
		if err != nil || c.Engine.Embedding.Compression.GraphInt8MiB != want {
			t.Fatalf("COMPRESSION_GRAPH_INT8_MB=%s: %+v, %v", v, c.Engine.Embedding.Compression, err)
		}
	}
	if _, err := FromEnv(lookupMap(map[string]string{"DB_PATH": "/tmp/x.db", "COMPRESSION_GRAPH_INT8_MB": "-1"})); err == nil || !strings.Contains(err.Error(), "COMPRESSION_GRAPH_INT8_MB") {
		t.Fatalf("COMPRESSION_GRAPH_INT8_MB=-1: %v", err)
	}
	// SEARCH_BACKEND=native keeps the float32 vectors its table searches,
	// and refuses to drop them.
	c, err = FromEnv(lookupMap(map[string]string{"DB_PATH": "/tmp/x.db", "SEARCH_BACKEND": "native"}))
	if err != nil || !c.Planned.Compression.KeepFloat || c.Engine.Embedding.Compression.CodesOnly {
		t.Fatalf("native: keep float %v, %v", c.Planned.Compression.KeepFloat, err)
	}
	_, err = FromEnv(lookupMap(map[string]string{"DB_PATH": "/tmp/x.db", "SEARCH_BACKEND": "native", "COMPRESSION_KEEP_FLOAT": "false"}))
	if err == nil || !strings.Contains(err.Error(), "COMPRESSION_KEEP_FLOAT") {
		t.Fatalf("native without floats: %v", err)
	}
	// The 100-d built-in model starts with ip at 4 bits (300 bits a row,
	// padded to 38 bytes), which the reference refuses.
	c, err = FromEnv(lookupMap(map[string]string{"DB_PATH": "/tmp/x.db", "ENABLE_EMBEDDING_COMPRESSION": "true",
		"COMPRESSION_VARIANT": "ip", "COMPRESSION_KEEP_FLOAT": "false"}))
	if err != nil {
		t.Fatal(err)
	}
	if s := c.Engine.Embedding.Compression; s != (quant.Settings{Bits: 4, Variant: quant.IP, CodesOnly: true, MaxConcurrent: k.MaxConcurrent, GraphInt8MiB: 128}) {
		t.Fatalf("engine compression: %+v", s)
	}
	if p.OllamaAutoPull || p.OllamaPullTimeout != 30*time.Second || p.MetadataIndexSyncMode != "strict" || p.Retry.MaxRetries != 0 {
		t.Fatalf("planned: %+v", p)
	}
	if g := p.PostgreSQL; g.ConnectionString != "postgresql://u:p@db/ctx" || g.PoolMin != 5 || g.PoolMax != 5 || !g.RLS {
		t.Fatalf("postgresql: %+v", g)
	}
}

// TestConfigPlannedInvalid: a bad value of a variable whose feature is not
// built yet exits 78 like any other, with this exact message.
func TestConfigPlannedInvalid(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"ENABLE_CONTEXT_SYNC": "sometimes"}, `invalid configuration: ENABLE_CONTEXT_SYNC="sometimes": must be a boolean: true, false, 1, 0, yes, no, on or off`},
		{map[string]string{"ENABLE_EMBEDDING_COMPRESSION": "2"}, `invalid configuration: ENABLE_EMBEDDING_COMPRESSION="2": must be a boolean: true, false, 1, 0, yes, no, on or off`},
		{map[string]string{"COMPRESSION_PROVIDER": "pq"}, `invalid configuration: COMPRESSION_PROVIDER="pq": must be one of turboquant`},
		{map[string]string{"COMPRESSION_BITS": "8"}, `invalid configuration: COMPRESSION_BITS="8": must be an integer from 2 to 4`},
		{map[string]string{"COMPRESSION_VARIANT": "pq"}, `invalid configuration: COMPRESSION_VARIANT="pq": must be one of ip, mse`},
		{map[string]string{"COMPRESSION_SEED": "4294967296"}, `invalid configuration: COMPRESSION_SEED="4294967296": must be an integer from 0 to 4294967295`},
		{map[string]string{"COMPRESSION_MAX_CONCURRENT": "33"}, `invalid configuration: COMPRESSION_MAX_CONCURRENT="33": must be an integer from 1 to 32`},
		{map[string]string{"COMPRESSION_KEEP_FLOAT": "maybe"}, `invalid configuration: COMPRESSION_KEEP_FLOAT="maybe": must be a boolean: true, false, 1, 0, yes, no, on or off`},
		{map[string]string{"OLLAMA_AUTO_PULL": "always"}, `invalid configuration: OLLAMA_AUTO_PULL="always": must be a boolean: true, false, 1, 0, yes, no, on or off`},
		{map[string]string{"OLLAMA_PULL_TIMEOUT_S": "10"}, `invalid configuration: OLLAMA_PULL_TIMEOUT_S="10": must be a number of seconds from 30 to 3600`},
		{map[string]string{"OLLAMA_HOST": "ftp://x"}, `invalid configuration: OLLAMA_HOST="ftp://x": must be an http(s) URL or host[:port] of an Ollama server`},
		{map[string]string{"METADATA_INDEX_SYNC_MODE": "lazy"}, `invalid configuration: METADATA_INDEX_SYNC_MODE="lazy": must be one of strict, auto, warn, additive`},
		{map[string]string{"POOL_IDLE_TIMEOUT_S": "0"}, `invalid configuration: POOL_IDLE_TIMEOUT_S="0": must be a number of seconds greater than 0 and at most 86400`},
		{map[string]string{"POOL_HEALTH_CHECK_INTERVAL_S": "x"}, `invalid configuration: POOL_HEALTH_CHECK_INTERVAL_S="x": must be a number of seconds greater than 0 and at most 86400`},
		{map[string]string{"QUEUE_TIMEOUT_S": "-1"}, `invalid configuration: QUEUE_TIMEOUT_S="-1": must be a number of seconds greater than 0 and at most 3600`},
		{map[string]string{"QUEUE_TIMEOUT_TEST_S": "0"}, `invalid configuration: QUEUE_TIMEOUT_TEST_S="0": must be a number of seconds greater than 0 and at most 3600`},
		{map[string]string{"SHUTDOWN_TIMEOUT_TEST_S": "4000"}, `invalid configuration: SHUTDOWN_TIMEOUT_TEST_S="4000": must be a number of seconds greater than 0 and at most 3600`},
		{map[string]string{"RETRY_MAX_RETRIES": "-1"}, `invalid configuration: RETRY_MAX_RETRIES="-1": must be an integer from 0 to 100`},
		{map[string]string{"RETRY_BASE_DELAY_S": "0"}, `invalid configuration: RETRY_BASE_DELAY_S="0": must be a number of seconds greater than 0 and at most 3600`},
		{map[string]string{"RETRY_MAX_DELAY_S": "0.25"}, `invalid configuration: RETRY_MAX_DELAY_S="0.25": must be at least RETRY_BASE_DELAY_S (0.5)`},
		{map[string]string{"RETRY_JITTER": "maybe"}, `invalid configuration: RETRY_JITTER="maybe": must be a boolean: true, false, 1, 0, yes, no, on or off`},
		{map[string]string{"RETRY_BACKOFF_FACTOR": "0.5"}, `invalid configuration: RETRY_BACKOFF_FACTOR="0.5": must be a number from 1 to 10`},
		{map[string]string{"CIRCUIT_BREAKER_FAILURE_THRESHOLD": "0"}, `invalid configuration: CIRCUIT_BREAKER_FAILURE_THRESHOLD="0": must be an integer of at least 1`},
		{map[string]string{"CIRCUIT_BREAKER_RECOVERY_TIMEOUT_S": "never"}, `invalid configuration: CIRCUIT_BREAKER_RECOVERY_TIMEOUT_S="never": must be a number of seconds greater than 0 and at most 86400`},
		{map[string]string{"CIRCUIT_BREAKER_HALF_OPEN_MAX_CALLS": "0"}, `invalid configuration: CIRCUIT_BREAKER_HALF_OPEN_MAX_CALLS="0": must be an integer of at least 1`},
		{map[string]string{"RERANKING_CACHE_DIR": file}, `invalid configuration: RERANKING_CACHE_DIR="` + file + `": ` + file + ` is not a directory`},
		{map[string]string{"RERANKING_INTRA_OP_THREADS": "-2"}, `invalid configuration: RERANKING_INTRA_OP_THREADS="-2": must be an integer from 0 to 1024`},
		{map[string]string{"RERANKING_CPU_MEM_ARENA": "big"}, `invalid configuration: RERANKING_CPU_MEM_ARENA="big": must be a boolean: true, false, 1, 0, yes, no, on or off`},
		{map[string]string{"AZURE_OPENAI_ENDPOINT": "myresource"}, `invalid configuration: AZURE_OPENAI_ENDPOINT="myresource": must be an http:// or https:// URL with a host`},
		{map[string]string{"VOYAGE_TRUNCATION": "cut"}, `invalid configuration: VOYAGE_TRUNCATION="cut": must be a boolean: true, false, 1, 0, yes, no, on or off`},
		{map[string]string{"VOYAGE_BATCH_SIZE": "129"}, `invalid configuration: VOYAGE_BATCH_SIZE="129": must be an integer from 1 to 128`},
		{map[string]string{"LANGSMITH_TRACING": "verbose"}, `invalid configuration: LANGSMITH_TRACING="verbose": must be a boolean: true, false, 1, 0, yes, no, on or off`},
		{map[string]string{"LANGSMITH_ENDPOINT": "api.smith"}, `invalid configuration: LANGSMITH_ENDPOINT="api.smith": must be an http:// or https:// URL with a host`},
		{map[string]string{"ENABLE_POSTGRESQL_RLS": "strict"}, `invalid configuration: ENABLE_POSTGRESQL_RLS="strict": must be a boolean: true, false, 1, 0, yes, no, on or off`},
		{map[string]string{"POSTGRESQL_CONNECTION_STRING": "mysql://u:secret@db"}, `invalid configuration: POSTGRESQL_CONNECTION_STRING="(hidden)": must be a postgresql:// or postgres:// URL`},
		{map[string]string{"POSTGRESQL_PORT": "0"}, `invalid configuration: POSTGRESQL_PORT="0": must be an integer from 1 to 65535`},
		{map[string]string{"POSTGRESQL_SSL_MODE": "on"}, `invalid configuration: POSTGRESQL_SSL_MODE="on": must be one of disable, allow, prefer, require, verify-ca, verify-full`},
		{map[string]string{"POSTGRESQL_SCHEMA": "my-schema"}, `invalid configuration: POSTGRESQL_SCHEMA="my-schema": must be an identifier of 1 to 63 characters: a letter or _ then letters, digits, _ or $`},
		{map[string]string{"POSTGRESQL_POOL_MIN": "-1"}, `invalid configuration: POSTGRESQL_POOL_MIN="-1": must be an integer from 0 to 1000`},
		{map[string]string{"POSTGRESQL_POOL_MAX": "1", "POSTGRESQL_POOL_MIN": "4"}, `invalid configuration: POSTGRESQL_POOL_MAX="1": must be at least POSTGRESQL_POOL_MIN (4)`},
		{map[string]string{"POSTGRESQL_SESSION_POOLER_MAX_CLIENTS": "0"}, `invalid configuration: POSTGRESQL_SESSION_POOLER_MAX_CLIENTS="0": must be an integer from 1 to 1000`},
		{map[string]string{"POSTGRESQL_POOL_TIMEOUT_S": "0"}, `invalid configuration: POSTGRESQL_POOL_TIMEOUT_S="0": must be a number of seconds greater than 0 and at most 86400`},
		{map[string]string{"POSTGRESQL_CONNECT_TIMEOUT_S": "120"}, `invalid configuration: POSTGRESQL_CONNECT_TIMEOUT_S="120": must be less than POSTGRESQL_POOL_TIMEOUT_S (120)`},
		{map[string]string{"POSTGRESQL_COMMAND_TIMEOUT_S": "0"}, `invalid configuration: POSTGRESQL_COMMAND_TIMEOUT_S="0": must be a number of seconds greater than 0 and at most 86400`},
		{map[string]string{"POSTGRESQL_MIGRATION_TIMEOUT_S": "x"}, `invalid configuration: POSTGRESQL_MIGRATION_TIMEOUT_S="x": must be a number of seconds greater than 0 and at most 86400`},
		{map[string]string{"POSTGRESQL_MAX_INACTIVE_LIFETIME_S": "-1"}, `invalid configuration: POSTGRESQL_MAX_INACTIVE_LIFETIME_S="-1": must be a number of seconds at least 0 and at most 86400`},
		{map[string]string{"POSTGRESQL_MAX_QUERIES": "-1"}, `invalid configuration: POSTGRESQL_MAX_QUERIES="-1": must be an integer of at least 0`},
		{map[string]string{"POSTGRESQL_TCP_KEEPALIVES_IDLE_S": "0"}, `invalid configuration: POSTGRESQL_TCP_KEEPALIVES_IDLE_S="0": must be a number of seconds greater than 0 and at most 86400`},
		{map[string]string{"POSTGRESQL_TCP_KEEPALIVES_INTERVAL_S": "0"}, `invalid configuration: POSTGRESQL_TCP_KEEPALIVES_INTERVAL_S="0": must be a number of seconds greater than 0 and at most 86400`},
		{map[string]string{"POSTGRESQL_TCP_KEEPALIVES_COUNT": "0"}, `invalid configuration: POSTGRESQL_TCP_KEEPALIVES_COUNT="0": must be an integer from 1 to 1000`},
		{map[string]string{"POSTGRESQL_STATEMENT_CACHE_SIZE": "-1"}, `invalid configuration: POSTGRESQL_STATEMENT_CACHE_SIZE="-1": must be an integer of at least 0`},
		{map[string]string{"POSTGRESQL_MAX_CACHED_STATEMENT_LIFETIME_S": "-1"}, `invalid configuration: POSTGRESQL_MAX_CACHED_STATEMENT_LIFETIME_S="-1": must be a number of seconds at least 0 and at most 86400`},
		{map[string]string{"POSTGRESQL_MAX_CACHEABLE_STATEMENT_SIZE": "big"}, `invalid configuration: POSTGRESQL_MAX_CACHEABLE_STATEMENT_SIZE="big": must be an integer of at least 0`},
	}
	for _, tc := range tests {
		env := map[string]string{"DB_PATH": "/tmp/x.db"}
		for k, v := range tc.env {
			env[k] = v
		}
		_, err := FromEnv(lookupMap(env))
		var ce *Error
		if !errors.As(err, &ce) || err.Error() != tc.want {
			t.Errorf("%v:\n got %v\nwant %s", tc.env, err, tc.want)
		}
	}
}

// TestConfigDBPathNamesTheProblem: a DB_PATH that cannot be a database
// file is refused at start-up (exit 78) with a message naming the path.
func TestConfigDBPathNamesTheProblem(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "plain")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{dir, `invalid configuration: DB_PATH="` + dir + `": ` + dir + ` is a directory; give a file path`},
		{filepath.Join(file, "sub", "ctx.db"), `invalid configuration: DB_PATH="` + filepath.Join(file, "sub", "ctx.db") + `": ` +
			file + ` (in ` + filepath.Join(file, "sub", "ctx.db") + `) is a file, not a directory; give a file path in a directory`},
	} {
		_, err := FromEnv(lookupMap(map[string]string{"DB_PATH": tc.path}))
		if err == nil || err.Error() != tc.want {
			t.Errorf("DB_PATH=%s:\n got %v\nwant %s", tc.path, err, tc.want)
		}
	}
	// A path that does not exist yet, in directories that do not either, is fine.
	if _, err := FromEnv(lookupMap(map[string]string{"DB_PATH": filepath.Join(dir, "new", "dir", "ctx.db")})); err != nil {
		t.Fatalf("new path: %v", err)
	}
	// The default path is checked too.
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".mcp", "context_storage.db"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	want := `invalid configuration: DB_PATH="": is unset and the default ` + filepath.Join(home, ".mcp", "context_storage.db") + ` is a directory; give a file path`
	if _, err := FromEnv(lookupMap(nil)); err == nil || err.Error() != want {
		t.Fatalf("default path a directory:\n got %v\nwant %s", err, want)
	}
}
