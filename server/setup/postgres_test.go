package setup_test

import (
	"github.com/contextd/contextd/server/setup"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd/persist/postgres"
)

// TestPostgreSQLStorage: STORAGE_BACKEND=postgresql hands the engine the
// postgresql backend with a connection string built from the
// POSTGRESQL_* parts (or POSTGRESQL_CONNECTION_STRING, which overrides
// them) and the pool settings as postgres.Options.
func TestPostgreSQLStorage(t *testing.T) {
	c, err := setup.FromEnv(lookupMap(map[string]string{
		"STORAGE_BACKEND": "PostgreSQL", "POSTGRESQL_HOST": "db.internal", "POSTGRESQL_PORT": "6432",
		"POSTGRESQL_USER": "ctx", "POSTGRESQL_PASSWORD": "p@ss word", "POSTGRESQL_DATABASE": "memory",
		"POSTGRESQL_SSL_MODE": "require", "POSTGRESQL_SCHEMA": "agents", "POSTGRESQL_POOL_MAX": "7",
		"POSTGRESQL_STATEMENT_CACHE_SIZE": "0", "POSTGRESQL_COMMAND_TIMEOUT_S": "2.5",
	}))
	if err != nil {
		t.Fatal(err)
	}
	st := c.Engine.Storage
	if st.Backend != postgres.Backend {
		t.Fatalf("backend = %q", st.Backend)
	}
	if want := "postgres://ctx:p%40ss%20word@db.internal:6432/memory?sslmode=require"; st.URL != want {
		t.Fatalf("url = %q, want %q", st.URL, want)
	}
	o, ok := st.Options.(postgres.Options)
	if !ok {
		t.Fatalf("options = %T", st.Options)
	}
	if o.Schema != "agents" || o.PoolMax != 7 || o.PoolMin != 2 || o.StatementCacheSize == nil || *o.StatementCacheSize != 0 ||
		o.CommandTimeout != 2500*time.Millisecond || o.ConnectTimeout != time.Minute {
		t.Fatalf("options = %+v", o)
	}

	// The four pool settings pgxpool has no option for reach the store
	// (persist/postgres applies them: TestPoolSettings there); 0 in the
	// environment means no expiry and no size limit.
	if o.PoolTimeout != 120*time.Second || o.SessionPoolerMaxClients != 15 ||
		o.MaxCachedStatementLifetime != 300*time.Second || o.MaxCacheableStatementSize != 15360 {
		t.Fatalf("pool defaults = %+v", o)
	}
	c, err = setup.FromEnv(lookupMap(map[string]string{"STORAGE_BACKEND": "postgresql",
		"POSTGRESQL_POOL_TIMEOUT_S": "90", "POSTGRESQL_SESSION_POOLER_MAX_CLIENTS": "4",
		"POSTGRESQL_MAX_CACHED_STATEMENT_LIFETIME_S": "0", "POSTGRESQL_MAX_CACHEABLE_STATEMENT_SIZE": "0"}))
	if err != nil {
		t.Fatal(err)
	}
	if o := c.Engine.Storage.Options.(postgres.Options); o.PoolTimeout != 90*time.Second || o.SessionPoolerMaxClients != 4 ||
		o.MaxCachedStatementLifetime >= 0 || o.MaxCacheableStatementSize >= 0 {
		t.Fatalf("pool settings = %+v", o)
	}

	c, err = setup.FromEnv(lookupMap(map[string]string{"STORAGE_BACKEND": "postgresql",
		"POSTGRESQL_CONNECTION_STRING": "postgresql://u:p@primary/ctx?sslmode=disable", "POSTGRESQL_HOST": "ignored"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Engine.Storage.URL != "postgresql://u:p@primary/ctx?sslmode=disable" {
		t.Fatalf("connection string not used: %q", c.Engine.Storage.URL)
	}

	// SQLite stays the default and keeps its own options.
	c, err = setup.FromEnv(lookupMap(map[string]string{"DB_PATH": "/tmp/x.db"}))
	if err != nil || c.Engine.Storage.Backend != "sqlite" || c.Engine.Storage.URL != "" || strings.Contains(c.Engine.Storage.Backend, "postgres") {
		t.Fatalf("default backend = %+v, %v", c.Engine.Storage, err)
	}
}
